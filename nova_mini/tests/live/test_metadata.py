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

"""The metadata service of the live stack: a server booted through the
compute API (Keystone tokens, RabbitMQ, the scheduler), then read from
nova-mini-metadata with the headers Neutron's metadata proxy signs with
the stack's shared secret; and the daemon's start-up checks.

The signing proxy here is also used by test_cloud_init; the node,
flavor and boot builders are in helpers.
"""

import base64
import http.client
import http.server
import subprocess
import threading
import urllib.error
import urllib.request
import uuid

import pytest
import requests

from nova_mini.metadata import identity
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

USER_DATA = b'#cloud-config\nhostname: from-user-data\n\x00\xffbinary tail'
VERSIONS = ['2012-08-10', '2013-04-04', '2013-10-17', '2015-10-15',
            '2016-06-30', '2016-10-06', '2017-02-22', '2018-08-27',
            '2020-10-14', '2025-04-04', 'latest']


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack)


def signed_headers(secret, instance_id, project_id):
    return {identity.INSTANCE_ID: instance_id,
            identity.TENANT_ID: project_id,
            identity.SIGNATURE: identity.sign(secret, instance_id)}


class SigningProxy(object):
    """What Neutron's metadata agent does for an instance: forwards its
    GETs to the metadata service with the identity headers signed with
    the shared secret. Listens on a free loopback port, in a thread.
    """

    def __init__(self, upstream, secret, instance_id, project_id):
        headers = signed_headers(secret, instance_id, project_id)
        self.requests = []
        seen = self.requests

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.path)
                request = urllib.request.Request(
                    upstream + self.path, headers=dict(
                        headers, **{'X-Forwarded-For': '10.0.0.5'}))
                try:
                    with urllib.request.urlopen(request, timeout=30) as resp:
                        status, body = resp.status, resp.read()
                        content_type = resp.headers.get('Content-Type')
                except urllib.error.HTTPError as exc:
                    status, body = exc.code, exc.read()
                    content_type = exc.headers.get('Content-Type')
                self.send_response(status)
                if content_type:
                    self.send_header('Content-Type', content_type)
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            (util.LOCALHOST, util.free_port()), Handler)
        self.url = 'http://%s:%d' % self.server.server_address
        self._thread = threading.Thread(target=self.server.serve_forever,
                                        daemon=True)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        self._thread.join(10)


@pytest.fixture(scope='module')
def server(stack, flavor):
    server = helpers.boot(stack, flavor, 'Meta Web_1',
                          metadata={'role': 'web', 'tier': 'front'},
                          user_data=USER_DATA)
    yield server
    response = requests.delete(
        stack.nova.compute_url + '/servers/%s' % server['id'],
        headers={'X-Auth-Token': stack.token('demo')}, timeout=30)
    assert response.status_code in (204, 404)


def _get(stack, path, headers=None):
    return requests.get(stack.nova.metadata_url + path, headers=headers,
                        timeout=30)


def test_booted_server_reads_its_metadata(stack, server):
    headers = signed_headers(stack.nova.metadata_secret, server['id'],
                             server['tenant_id'])
    response = _get(stack, '/openstack/latest/meta_data.json', headers)
    assert response.status_code == 200, response.text
    assert response.headers['Content-Type'] == 'application/json'
    document = response.json()
    assert len(base64.b64decode(document.pop('random_seed'))) == 512
    assert document == {
        'uuid': server['id'], 'name': 'Meta Web_1',
        'hostname': 'meta-web-1.novalocal',
        'meta': {'role': 'web', 'tier': 'front'},
        'project_id': server['tenant_id'], 'launch_index': 0,
        'availability_zone': 'nova', 'devices': [], 'dedicated_cpus': []}

    response = _get(stack, '/openstack/latest/user_data', headers)
    assert response.status_code == 200
    assert response.content == USER_DATA

    response = _get(stack, '/openstack/latest/network_data.json', headers)
    assert response.json() == {'links': [], 'networks': [], 'services': []}


def test_every_listed_version_and_file_answers(stack, server):
    headers = signed_headers(stack.nova.metadata_secret, server['id'],
                             server['tenant_id'])
    listing = _get(stack, '/openstack')
    assert listing.text.split('\n') == VERSIONS
    for version in VERSIONS:
        files = _get(stack, '/openstack/%s' % version, headers)
        assert files.status_code == 200, files.text
        assert 'meta_data.json' in files.text.split('\n')
        for name in files.text.split('\n'):
            response = _get(stack, '/openstack/%s/%s' % (version, name),
                            headers)
            assert response.status_code == 200, (
                version, name, response.text)


def test_identity_errors(stack, server):
    secret = stack.nova.metadata_secret
    path = '/openstack/latest/meta_data.json'
    good = signed_headers(secret, server['id'], server['tenant_id'])

    for missing in (identity.INSTANCE_ID, identity.SIGNATURE,
                    identity.TENANT_ID):
        headers = {k: v for k, v in good.items() if k != missing}
        response = _get(stack, path, headers)
        assert response.status_code == 400
        assert '%s header is missing' % missing in response.text

    wrong = dict(good, **{identity.SIGNATURE: identity.sign(
        'not-the-secret', server['id'])})
    response = _get(stack, path, wrong)
    assert response.status_code == 403
    log = open(stack.nova.processes[nova.METADATA].log_path).read()
    assert secret not in log
    assert wrong[identity.SIGNATURE] not in log

    # A header sent twice (the server joins the values with a comma).
    conn = http.client.HTTPConnection(util.LOCALHOST, stack.nova.metadata_port,
                                      timeout=30)
    try:
        conn.putrequest('GET', path)
        for name, value in good.items():
            conn.putheader(name, value)
        conn.putheader(identity.INSTANCE_ID, server['id'])
        conn.endheaders()
        response = conn.getresponse()
        assert response.status == 400
        assert b'Multiple X-Instance-ID headers' in response.read()
    finally:
        conn.close()

    other_project = signed_headers(secret, server['id'], 'someone-else')
    assert _get(stack, path, other_project).status_code == 404
    unknown = str(uuid.uuid4())
    assert _get(stack, path, signed_headers(
        secret, unknown, server['tenant_id'])).status_code == 404


def test_changes_are_served_at_once_and_deleted_server_is_404(stack,
                                                              flavor):
    server = helpers.boot(stack, flavor, 'meta-change', metadata={'a': '1'})
    headers = signed_headers(stack.nova.metadata_secret, server['id'],
                             server['tenant_id'])
    path = '/openstack/latest/meta_data.json'
    assert _get(stack, path, headers).json()['meta'] == {'a': '1'}
    # user_data: none given, none listed, 404.
    assert 'user_data' not in _get(stack, '/openstack/latest',
                                   headers).text.split('\n')
    assert _get(stack, '/openstack/latest/user_data',
                headers).status_code == 404

    response = requests.put(
        stack.nova.compute_url + '/servers/%s/metadata' % server['id'],
        json={'metadata': {'b': '2'}},
        headers={'X-Auth-Token': stack.token('demo')}, timeout=30)
    assert response.status_code == 200, response.text
    # Within metadata_cache_expiration (15 s), yet the new metadata.
    assert _get(stack, path, headers).json()['meta'] == {'b': '2'}

    helpers.delete(stack, server['id'])
    assert _get(stack, path, headers).status_code == 404


def _run_metadata(stack, sections):
    extra = stack.nova.write_extra_config('md-%s' % uuid.uuid4().hex[:6],
                                          sections)
    return subprocess.run(
        [nova.script(nova.METADATA), '--config-file', stack.nova.conf_path,
         '--config-file', extra],
        capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, env=util.clean_env())


@pytest.mark.parametrize('sections, expected', [
    ({'metadata': {'metadata_proxy_shared_secret': ''}},
     ['metadata_proxy_shared_secret is not set',
      'insecure_unsigned_requests']),
    ({'api': {'vendordata_providers': 'StaticJSON,NoSuchProvider'}},
     ['vendordata_providers', 'NoSuchProvider']),
    ({'api': {'vendordata_jsonfile_path': '/nonexistent/vendor.json'}},
     ['/nonexistent/vendor.json']),
], ids=['no_secret', 'unknown_provider', 'missing_static_file'])
def test_startup_refused_with_one_line(stack, sections, expected):
    sections = dict(sections)
    sections['metadata'] = dict(sections.get('metadata', {}),
                                bind_port=util.free_port(), workers=1)
    proc = _run_metadata(stack, sections)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert 'Traceback' not in output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    assert ' ERROR ' in lines[0]
    for text in expected:
        assert text in lines[0]


def test_insecure_unsigned_requests(stack, server):
    """No secret, the explicit insecure option: it starts with a warning,
    and the instance and project headers alone name the instance.
    """
    port = util.free_port()
    name = 'nova-mini-metadata-insecure-%s' % helpers.RUN
    extra = stack.nova.write_extra_config(name, {'metadata': {
        'bind_port': port, 'workers': 1,
        'metadata_proxy_shared_secret': '',
        'insecure_unsigned_requests': 'true'}})
    proc = stack.nova.start(nova.METADATA, name=name, port=port,
                            config_files=[stack.nova.conf_path, extra])
    try:
        url = 'http://127.0.0.1:%d/openstack/latest/meta_data.json' % port
        response = requests.get(url, headers={
            identity.INSTANCE_ID: server['id'],
            identity.TENANT_ID: server['tenant_id']}, timeout=30)
        assert response.status_code == 200, response.text
        assert response.json()['uuid'] == server['id']
        response = requests.get(url, headers={
            identity.INSTANCE_ID: server['id'],
            identity.TENANT_ID: 'someone-else'}, timeout=30)
        assert response.status_code == 404
    finally:
        stack.nova.stop(proc.name, timeout=30)
    log = open(proc.log_path).read()
    assert 'insecure_unsigned_requests is' in log
    assert log.count('insecure_unsigned_requests is') == 1
