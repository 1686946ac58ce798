#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""nova-mini-manage metadata show, run as operators run it (its ``main``
in process, a config file, a database made by ``db sync``) against a local
HTTP server that stands for the metadata service and records what it is
sent. The live tests run it against the real metadata service.
"""

import hashlib
import hmac
import http.server
import json
import threading
import uuid

import pytest

from nova_mini.cmd import manage_metadata
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.unit.extra_specs_tools import test_manage as tm
from nova_mini_deploy import util

SECRET = 'manage-secret-%s' % uuid.uuid4().hex


class Recorder(object):
    """A threaded HTTP server answering GETs from ``answers`` ({path:
    (status, content type, body)}), 404 otherwise; ``seen`` holds
    (path, headers) of each request.
    """

    def __init__(self, answers):
        seen = self.seen = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append((self.path, dict(self.headers)))
                status, content_type, body = answers.get(
                    self.path, (404, 'text/plain', b'404 Not Found'))
                self.send_response(status)
                self.send_header('Content-Type', content_type)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            (util.LOCALHOST, 0), Handler)
        self.port = self.server.server_address[1]
        # A short poll: shutdown() waits for the loop's next look.
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def deployment(tmp_path):
    """(config file, instance): a synced database with one instance."""
    sections = ('[metadata]\nbind_host = 0.0.0.0\n'
                'metadata_proxy_shared_secret = %s\n' % SECRET)
    with console_scripts.synced_database(tmp_path, sections) as config_file:
        admin = nm_context.get_admin_context()
        flavor = objects.Flavor(
            admin, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
            root_gb=10, ephemeral_gb=0, swap=0, is_public=True,
            disabled=False, description=None, extra_specs={})
        instance = objects.Instance(
            admin, uuid=str(uuid.uuid4()), name='web-1', project_id='p1',
            user_id='u1', flavor=flavor, image_ref='img', vm_state='active',
            node_uuid=None, fault=None, metadata={}, user_data=None,
            launch_index=0, boot_roles=[])
        instance.create()
        yield config_file, instance


@pytest.fixture
def recorder():
    servers = []

    def make(answers):
        servers.append(Recorder(answers))
        return servers[-1]
    yield make
    for server in servers:
        server.close()


def test_signs_like_the_proxy_and_prints_json(deployment, recorder):
    config_file, instance = deployment
    document = {'static': {'b': 1, 'a': [1, 2]}}
    server = recorder({'/openstack/latest/vendor_data2.json': (
        200, 'application/json', json.dumps(document).encode())})
    shown = tm.manage('metadata', 'show', 'web-1', '--url',
                      'http://127.0.0.1:%d/' % server.port,
                      config_file=config_file)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == json.dumps(document, indent=2,
                                      sort_keys=True) + '\n'
    path, headers = server.seen[0]
    assert path == '/openstack/latest/vendor_data2.json'
    assert headers['X-Instance-ID'] == instance.uuid
    assert headers['X-Tenant-ID'] == 'p1'
    assert headers['X-Instance-ID-Signature'] == hmac.new(
        SECRET.encode(), instance.uuid.encode(), hashlib.sha256).hexdigest()


def test_other_paths_and_plain_text(deployment, recorder):
    config_file, instance = deployment
    server = recorder({'/openstack/2012-08-10/user_data': (
        200, 'text/plain', b'#!/bin/sh\necho hi')})
    shown = tm.manage('metadata', 'show', instance.uuid, '--path',
                      '/openstack/2012-08-10/user_data', '--url',
                      'http://127.0.0.1:%d' % server.port,
                      config_file=config_file)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == '#!/bin/sh\necho hi\n'


def test_errors_exit_1(deployment, recorder):
    config_file, instance = deployment
    server = recorder({})
    url = 'http://127.0.0.1:%d' % server.port
    shown = tm.manage('metadata', 'show', instance.uuid, '--url', url,
                      config_file=config_file)
    assert shown.returncode == 1
    assert shown.stdout == ''
    assert ('GET %s/openstack/latest/vendor_data2.json: 404 Not Found\n'
            '404 Not Found' % url) in shown.stderr
    unknown = str(uuid.uuid4())
    shown = tm.manage('metadata', 'show', unknown, '--url', url,
                      config_file=config_file)
    assert shown.returncode == 1
    assert shown.stderr == 'No server with the id or name %s.\n' % unknown
    closed = util.free_port()
    shown = tm.manage('metadata', 'show', 'web-1', '--url',
                      'http://127.0.0.1:%d' % closed,
                      config_file=config_file)
    assert shown.returncode == 1
    assert 'The metadata service did not answer at http://127.0.0.1:%d/' \
        'openstack/latest/vendor_data2.json' % closed in shown.stderr


def test_a_name_two_servers_share(deployment, recorder):
    config_file, instance = deployment
    twin = objects.Instance(
        instance._context, uuid=str(uuid.uuid4()), name='web-1',
        project_id='p2', user_id='u2', flavor=instance.flavor,
        image_ref='img', vm_state='active', node_uuid=None, fault=None,
        metadata={}, user_data=None, launch_index=0, boot_roles=[])
    twin.create()
    server = recorder({})
    shown = tm.manage('metadata', 'show', 'web-1', '--url',
                      'http://127.0.0.1:%d' % server.port,
                      config_file=config_file)
    assert shown.returncode == 1
    assert shown.stderr.startswith('2 servers are named web-1: use an id (')
    assert instance.uuid in shown.stderr and twin.uuid in shown.stderr
    assert server.seen == []


@pytest.mark.parametrize('host, url', [
    ('0.0.0.0', 'http://127.0.0.1:8775'),
    ('::', 'http://[::1]:8775'),
    ('10.0.0.5', 'http://10.0.0.5:8775'),
    ('fd00::5', 'http://[fd00::5]:8775'),
])
def test_service_url_from_bind_host(conf, host, url):
    conf.config(bind_host=host, group='metadata')
    assert manage_metadata.service_url(conf.conf) == url


@pytest.mark.parametrize('path', [
    'latest/meta_data.json', '/latest/meta_data.json',
    'openstack/latest/meta_data.json', '/openstack/latest/meta_data.json/'])
def test_metadata_url(path):
    assert manage_metadata.metadata_url('http://h:1/', path) == (
        'http://h:1/openstack/latest/meta_data.json')
