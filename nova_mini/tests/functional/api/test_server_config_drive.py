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

"""Config drives through the compute API: a server that asks for one
(``config_drive``), one built under ``[DEFAULT] force_config_drive``, one
of an image with ``img_config_drive=mandatory`` gets the drive in its
node's ``instance_info.configdrive`` (gzip + base64 of the ISO, read back
here), shows ``config_drive`` "True" and keeps it through its rebuilds;
a rebuild writes a new drive; a deletion leaves none. The API casts to a
real scheduler RPC server over oslo.messaging's in-memory driver; Glance
is a local HTTP server.
"""

import base64
import io
import json
import time
import uuid

from keystoneauth1 import loading as ks_loading
from oslo_config import fixture as config_fixture
import oslo_messaging as messaging
import pycdlib
import pytest
import webtest

from nova_mini import conf as nm_conf
from nova_mini.configdrive import iso
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini import rpc
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import http_servers

V21 = '/compute/v2.1'
ADMIN = {'X-Auth-Token': 'admin:admin'}


def _demo(version='2.57'):
    return {'X-Auth-Token': 'demo:demo',
            'OpenStack-API-Version': 'compute %s' % version}


PLAIN = str(uuid.UUID(int=1))
MANDATORY = str(uuid.UUID(int=2))
WRONG = str(uuid.UUID(int=3))
IMAGES = {
    PLAIN: {},
    MANDATORY: {'img_config_drive': 'mandatory'},
    WRONG: {'img_config_drive': 'always'},
}
USER_DATA = b'#cloud-config\nruncmd: [[touch, /tmp/drive]]\n'


def _glance_reply(request):
    image_id = request.path.rstrip('/').rsplit('/', 1)[-1]
    if image_id not in IMAGES:
        return http_servers.json_reply({}, status=404)
    return http_servers.json_reply(dict(
        IMAGES[image_id], id=image_id, status='active', name='img',
        disk_format='raw', container_format='bare', visibility='public'))


@pytest.fixture
def glance():
    server = http_servers.ReplyServer(_glance_reply)
    server.setUp()
    yield server.url
    server.cleanUp()


@pytest.fixture
def make_stack(api_fixture_factory, glance):
    """``make(register_auth_plugin=None, **conf_overrides)``: (webtest
    app, node) with a scheduler RPC server of the same configuration
    running. ``register_auth_plugin`` names a keystoneauth1 plugin whose
    options [vendordata_dynamic_auth] gets for the test (they cannot be
    set before).
    """
    servers = []
    registrar = config_fixture.Config(nm_conf.CONF)
    registrar.setUp()

    def make(register_auth_plugin=None, **overrides):
        if register_auth_plugin:
            registrar.register_opts(
                ks_loading.get_auth_plugin_conf_options(
                    register_auth_plugin),
                group='vendordata_dynamic_auth')
        overrides.setdefault('glance.endpoint_override', glance)
        fixture = api_fixture_factory(conf_overrides=overrides)
        scheduler = manager.SchedulerManager('drive', fixture.conf)
        server = rpc.get_server(
            fixture.conf, messaging.Target(topic=rpcapi.TOPIC,
                                           server='drive'), [scheduler])
        server.start()
        servers.append((server, scheduler))
        admin = nm_context.get_admin_context()
        objects.Flavor(
            admin, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
            root_gb=10, is_public=True,
            extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                         'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                         'resources:DISK_GB': '0'}).create()
        node = builders.create_node(
            admin, 'bm-0', resource_class='baremetal',
            provision_state=states.AVAILABLE,
            properties=builders.node_properties(1, 1024, 10))
        return webtest.TestApp(fixture.app), node
    yield make
    for server, scheduler in servers:
        server.stop()
        server.wait()
        scheduler.config_drives.close()
    registrar.cleanUp()


def _boot(app, image=PLAIN, status=202, **extra):
    body = {'server': dict({'name': 'drive-1', 'flavorRef': 'bm',
                            'imageRef': image}, **extra)}
    response = app.post_json(V21 + '/servers', body, headers=_demo(),
                             status=status)
    return response.json if status != 202 else response.json['server']


def _wait(app, server_id, timeout=20):
    # Polls the API as a client does; the build runs in the RPC server's
    # threads.
    deadline = time.monotonic() + timeout
    while True:
        server = app.get(V21 + '/servers/%s' % server_id,
                         headers=ADMIN).json['server']
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(0.05)


def _stored_drive(node):
    info = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                    node.uuid).instance_info
    return info.get('configdrive')


def _files(encoded):
    """The drive's files by their Rock Ridge names."""
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(iso.decode(encoded)))
    try:
        found = {}
        for root, _dirs, names in reader.walk(rr_path='/'):
            for name in names:
                path = '%s/%s' % (root.rstrip('/'), name)
                out = io.BytesIO()
                reader.get_file_from_iso_fp(out, rr_path=path)
                found[path.lstrip('/')] = out.getvalue()
        return found
    finally:
        reader.close()


def test_a_server_asking_for_a_drive_gets_one(make_stack):
    app, node = make_stack()
    created = _boot(app, config_drive=True, metadata={'role': 'db'},
                    user_data=base64.b64encode(USER_DATA).decode())
    server = _wait(app, created['id'])
    assert server['status'] == 'ACTIVE', server
    assert server['config_drive'] == 'True'
    files = _files(_stored_drive(node))
    latest = json.loads(files['openstack/latest/meta_data.json'])
    assert latest['uuid'] == created['id']
    assert latest['meta'] == {'role': 'db'}
    assert latest['availability_zone'] == 'nova'
    assert files['openstack/latest/user_data'] == USER_DATA
    assert files['openstack/2012-08-10/user_data'] == USER_DATA
    # StaticJSON, the default provider, with no file.
    assert json.loads(files['openstack/latest/vendor_data2.json']) == {
        'static': {}}
    assert 'openstack/latest/network_data.json' in files
    # The API never shows it to the owner, and masks it for admins.
    shown = app.get('/baremetal/v1/nodes/%s' % node.uuid, headers=dict(
        ADMIN, **{'X-OpenStack-Ironic-API-Version': '1.34'})).json
    assert shown['instance_info'].get('configdrive') in (None, '******')


def test_no_drive_unless_asked(make_stack):
    app, node = make_stack()
    created = _boot(app)
    server = _wait(app, created['id'])
    assert server['status'] == 'ACTIVE', server
    assert server['config_drive'] == ''
    assert _stored_drive(node) is None


def test_force_config_drive(make_stack):
    app, node = make_stack(force_config_drive=True)
    created = _boot(app, config_drive=False)
    server = _wait(app, created['id'])
    assert server['status'] == 'ACTIVE', server
    # As Nova records a forced drive: the server shows it.
    assert server['config_drive'] == 'True'
    files = _files(_stored_drive(node))
    assert json.loads(files['openstack/latest/meta_data.json'])[
        'uuid'] == created['id']


def test_image_with_a_mandatory_drive(make_stack):
    app, node = make_stack()
    created = _boot(app, image=MANDATORY)
    server = _wait(app, created['id'])
    assert server['status'] == 'ACTIVE', server
    assert server['config_drive'] == 'True'
    assert 'openstack/latest/meta_data.json' in _files(_stored_drive(node))


def test_image_with_another_drive_policy_is_refused(make_stack):
    app, _node = make_stack()
    refused = _boot(app, image=WRONG, status=400)
    assert refused == {'badRequest': {
        'code': 400,
        'message': "Image's config drive option 'always' is invalid"}}
    assert app.get(V21 + '/servers', headers=_demo()).json['servers'] == []


def test_a_failed_fatal_target_fails_the_build(make_stack):
    gone = http_servers.ReplyServer()
    gone.setUp()
    url = gone.url
    gone.cleanUp()      # nothing listens there any more
    app, node = make_stack(**{
        'api.vendordata_providers': ['DynamicJSON'],
        'api.vendordata_dynamic_targets': ['gone@' + url],
        'api.vendordata_dynamic_failure_fatal': True})
    created = _boot(app, config_drive=True)
    server = _wait(app, created['id'])
    assert server['status'] == 'ERROR'
    assert server['fault']['message'].startswith(
        'Failed to build configdrive: Vendordata target gone failed')
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    assert stored.instance_uuid is None
    assert stored.provision_state == states.AVAILABLE
    assert 'configdrive' not in stored.instance_info


def test_a_failed_target_is_left_out_when_not_fatal(make_stack):
    gone = http_servers.ReplyServer()
    gone.setUp()
    url = gone.url
    gone.cleanUp()
    app, node = make_stack(**{
        'api.vendordata_providers': ['DynamicJSON'],
        'api.vendordata_dynamic_targets': ['gone@' + url]})
    created = _boot(app, config_drive=True)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    files = _files(_stored_drive(node))
    assert json.loads(files['openstack/latest/vendor_data2.json']) == {}


def test_delete_leaves_no_drive(make_stack):
    app, node = make_stack()
    created = _boot(app, config_drive=True)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    assert _stored_drive(node)
    app.delete(V21 + '/servers/%s' % created['id'], headers=_demo(),
               status=204)
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    assert stored.instance_uuid is None
    assert 'configdrive' not in stored.instance_info


KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxY2FFvN6hRn7Pc4TVKtfFfJb2v'
       'Whxy0K6s5FRT4p+I demo@host')


def _rebuild(app, server_id, status=202, **body):
    return app.post_json(V21 + '/servers/%s/action' % server_id,
                         {'rebuild': body}, headers=_demo(), status=status)


def test_rebuild_writes_a_new_drive(make_stack):
    app, node = make_stack()
    app.post_json(V21 + '/os-keypairs', {'keypair': {
        'name': 'mykey', 'public_key': KEY}}, headers=_demo(), status=201)
    created = _boot(app, config_drive=True, metadata={'role': 'db'},
                    user_data=base64.b64encode(b'old').decode())
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    before = _stored_drive(node)
    _rebuild(app, created['id'], imageRef=MANDATORY, name='renamed',
             metadata={'role': 'web'}, key_name='mykey',
             user_data=base64.b64encode(USER_DATA).decode())
    after = _stored_drive(node)
    assert after != before
    files = _files(after)
    latest = json.loads(files['openstack/latest/meta_data.json'])
    assert latest['uuid'] == created['id']
    assert latest['name'] == 'renamed'
    assert latest['hostname'] == 'renamed.novalocal'
    assert latest['meta'] == {'role': 'web'}
    assert latest['public_keys'] == {'mykey': KEY}
    assert files['openstack/latest/user_data'] == USER_DATA
    assert _wait(app, created['id'])['config_drive'] == 'True'


def test_rebuild_to_an_image_that_mandates_a_drive(make_stack):
    app, node = make_stack()
    created = _boot(app)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    assert _stored_drive(node) is None
    _rebuild(app, created['id'], imageRef=MANDATORY)
    files = _files(_stored_drive(node))
    assert json.loads(files['openstack/latest/meta_data.json'])[
        'uuid'] == created['id']
    assert _wait(app, created['id'])['config_drive'] == 'True'


def test_a_server_without_a_drive_is_rebuilt_without_one(make_stack):
    # force_config_drive is for new builds: a launched server is rebuilt
    # as it was.
    app, node = make_stack()
    created = _boot(app)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    _rebuild(app, created['id'], imageRef=PLAIN)
    assert _stored_drive(node) is None
    assert _wait(app, created['id'])['config_drive'] == ''


def test_rebuild_to_an_image_with_another_drive_policy(make_stack):
    app, node = make_stack()
    created = _boot(app, config_drive=True)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    before = _stored_drive(node)
    refused = _rebuild(app, created['id'], status=400, imageRef=WRONG)
    assert refused.json['badRequest']['message'] == (
        "Image's config drive option 'always' is invalid")
    assert _stored_drive(node) == before


def test_rebuild_with_a_failed_fatal_target_changes_nothing(make_stack):
    gone = http_servers.ReplyServer()
    gone.setUp()
    url = gone.url
    gone.cleanUp()
    app, node = make_stack(**{
        'api.vendordata_providers': ['DynamicJSON'],
        'api.vendordata_dynamic_targets': ['gone@' + url],
        'api.vendordata_dynamic_failure_fatal': True})
    # No drive at boot: the target is not called.
    created = _boot(app)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    refused = _rebuild(app, created['id'], status=503, imageRef=MANDATORY,
                       name='other')
    fault = refused.json['serviceUnavailable']['message']
    assert fault.startswith('Failed to build configdrive: vendordata '
                            'target gone failed. Nothing was changed')
    # The target's URL stays in the log.
    assert url not in fault
    assert refused.headers['Retry-After'] == '5'
    server = _wait(app, created['id'])
    assert (server['name'], server['image']['id'], server['status'],
            server['config_drive']) == ('drive-1', PLAIN, 'ACTIVE', '')
    assert _stored_drive(node) is None
