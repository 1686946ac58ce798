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

"""A ramdisk's lookup and heartbeat when a node waits for it: fake-hardware
never waits, so the node is put in ``rescue wait`` in the database, as
Ironic's rescue leaves it for an agent. The refusals (no node, a node in
another state, the versions) are in gabbits/baremetal-ramdisk.yaml.
"""

import pytest

from nova_mini import context as nm_context
from nova_mini import objects

ADMIN = {'X-Auth-Token': 'admin:admin',
         'X-OpenStack-Ironic-API-Version': '1.65'}
MAC = '52:54:00:aa:bb:01'
ROOT = '/baremetal/v1'


def _v(version):
    return {'X-OpenStack-Ironic-API-Version': version}


@pytest.fixture
def waiting(api):
    """A deployed node with a port, put in rescue wait; its uuid."""
    node = api.post_json(ROOT + '/nodes', {
        'name': 'n1', 'driver': 'fake-hardware',
        'properties': {'cpus': 4},
        'instance_info': {'image_source': 'img'},
        'driver_info': {'ipmi_password': 'x'}}, headers=ADMIN).json
    api.post_json(ROOT + '/ports', {'address': MAC,
                                    'node_uuid': node['uuid']},
                  headers=ADMIN)
    for target in ('manage', 'provide', 'active'):
        api.put_json(ROOT + '/nodes/n1/states/provision',
                     {'target': target}, headers=ADMIN)
    api.put_json(ROOT + '/nodes/n1/states/provision',
                 {'target': 'rescue', 'rescue_password': 'pw'},
                 headers=ADMIN)
    _set(node['uuid'], provision_state='rescue wait')
    return node['uuid']


def _set(uuid, **values):
    node = objects.Node.get_by_uuid(nm_context.get_admin_context(), uuid)
    for name, value in values.items():
        setattr(node, name, value)
    node.save()


def _stored(uuid):
    return objects.Node.get_by_uuid(nm_context.get_admin_context(), uuid)


def test_lookup_gives_a_token_once(api, waiting):
    # No token: a ramdisk has no credentials.
    found = api.get(ROOT + '/lookup?addresses=%s' % MAC.upper(),
                    headers=_v('1.62')).json
    node, config = found['node'], found['config']
    assert set(node) == {'uuid', 'properties', 'instance_info',
                         'driver_internal_info', 'links'}
    assert node['uuid'] == waiting
    assert node['properties'] == {'cpus': 4}
    assert node['instance_info']['image_source'] == 'img'
    assert node['instance_info']['rescue_password'] == '******'
    # An anonymous caller is below the filter threshold.
    assert node['driver_internal_info'] == {
        'content': '** Redacted: needs the '
                   'baremetal:node:get:driver_internal_info permission. **'}
    assert node['links'][0]['href'].endswith('/baremetal/v1/nodes/'
                                             + waiting)
    token = config['agent_token']
    assert len(token) >= 32
    assert config['agent_token_required'] is True
    assert config['heartbeat_timeout'] == 300
    assert _stored(waiting).driver_internal_info[
        'agent_secret_token'] == token
    # A second lookup learns nothing, and does not change the token.
    again = api.get(ROOT + '/lookup?node_uuid=%s' % waiting,
                    headers=_v('1.65')).json
    assert again['config']['agent_token'] == '******'
    assert _stored(waiting).driver_internal_info[
        'agent_secret_token'] == token
    # Before 1.62 no token is made; the one there is handed out.
    old = api.get(ROOT + '/lookup?node_uuid=%s' % waiting,
                  headers=_v('1.61')).json
    assert old['config']['agent_token'] == token
    # The token is a secret in node bodies.
    shown = api.get(ROOT + '/nodes/n1', headers=ADMIN).json
    assert shown['driver_internal_info']['agent_secret_token'] == '******'


def test_lookup_before_1_62_makes_no_token(api, waiting):
    found = api.get(ROOT + '/lookup?addresses=zz,%s' % MAC,
                    headers=_v('1.22')).json
    assert found['node']['uuid'] == waiting
    assert found['config']['agent_token'] is None
    assert 'agent_secret_token' not in _stored(waiting).driver_internal_info


def test_identity_headers_give_no_role_on_public_paths(api, waiting):
    found = api.get(ROOT + '/lookup?node_uuid=%s' % waiting, headers=dict(
        _v('1.62'), **{'X-Roles': 'admin', 'X-Project-Id': 'admin',
                       'X-User-Id': 'admin'})).json
    assert 'content' in found['node']['driver_internal_info']


def test_lookup_finds_no_node_in_another_state(api, waiting):
    _set(waiting, provision_state='rescue')
    response = api.get(ROOT + '/lookup?addresses=%s' % MAC,
                       headers=_v('1.62'), expect_errors=True)
    assert response.status_int == 404
    assert 'agent_secret_token' not in _stored(waiting).driver_internal_info


def test_lookup_by_ports_of_two_nodes_is_not_found(api, waiting):
    other = api.post_json(ROOT + '/nodes', {'driver': 'fake-hardware'},
                          headers=ADMIN).json
    api.post_json(ROOT + '/ports', {'address': '52:54:00:aa:bb:02',
                                    'node_uuid': other['uuid']},
                  headers=ADMIN)
    response = api.get(ROOT + '/lookup?addresses=%s,52:54:00:aa:bb:02'
                       % MAC, headers=_v('1.62'), expect_errors=True)
    assert response.status_int == 404


def _heartbeat(api, ident, body, version='1.65'):
    return api.post_json(ROOT + '/heartbeat/%s' % ident, body,
                         headers=_v(version), expect_errors=True)


def test_heartbeat_with_the_token(api, waiting):
    token = api.get(ROOT + '/lookup?node_uuid=%s' % waiting,
                    headers=_v('1.62')).json['config']['agent_token']
    before = _stored(waiting)
    for ident in (waiting, 'n1'):
        response = _heartbeat(api, ident, {
            'callback_url': 'http://192.0.2.5:9999', 'agent_version': '9.0',
            'agent_token': token}, version='1.36')
        assert response.status_int == 202
        assert response.body == b''
        assert 'Content-Type' not in response.headers
    # fake-hardware's deploy interface does nothing with it.
    after = _stored(waiting)
    assert after.provision_state == 'rescue wait'
    assert after.driver_internal_info == before.driver_internal_info
    assert after.updated_at == before.updated_at
    # Another token is refused.
    response = _heartbeat(api, waiting, {
        'callback_url': 'http://192.0.2.5:9999', 'agent_version': '9.0',
        'agent_token': 'forged'})
    assert response.status_int == 400
    assert 'Invalid or missing agent token' in response.text


def test_heartbeat_from_another_url_is_refused(api, waiting):
    _set(waiting, driver_internal_info={'agent_secret_token': 't',
                                        'agent_url': 'http://192.0.2.5:1'})
    body = {'callback_url': 'http://192.0.2.6:1', 'agent_version': '9.0',
            'agent_token': 't'}
    response = _heartbeat(api, waiting, body)
    assert response.status_int == 400
    assert 'Detected change in ramdisk provided' in response.text
    body['callback_url'] = 'http://192.0.2.5:1'
    assert _heartbeat(api, waiting, body).status_int == 202


def test_abort_of_rescue_wait(api, waiting):
    api.put_json(ROOT + '/nodes/n1/states/provision', {'target': 'abort'},
                 headers=ADMIN)
    node = _stored(waiting)
    assert node.provision_state == 'rescue failed'
    assert node.target_provision_state == 'rescue'
    assert 'rescue_password' not in node.instance_info
    assert node.instance_info['image_source'] == 'img'
    # A failed rescue may be rescued again.
    api.put_json(ROOT + '/nodes/n1/states/provision',
                 {'target': 'rescue', 'rescue_password': 'pw2'},
                 headers=ADMIN)
    node = _stored(waiting)
    assert node.provision_state == 'rescue'
    assert node.instance_info['rescue_password'] == 'pw2'


def test_heartbeat_naming_the_node_in_its_body(api, waiting):
    token = api.get(ROOT + '/lookup?node_uuid=%s' % waiting,
                    headers=_v('1.62')).json['config']['agent_token']
    body = {'node_ident': waiting, 'callback_url': 'http://192.0.2.5:1',
            'agent_version': '9.0', 'agent_token': token}
    # Not a public path: the caller authenticates.
    headers = dict(_v('1.65'), **{'X-Auth-Token': 'admin:admin'})
    response = api.post_json(ROOT + '/heartbeat', body, headers=headers,
                             expect_errors=True)
    assert response.status_int == 202
    assert _heartbeat(api, 'n1', body).status_int == 400
    del body['node_ident']
    response = api.post_json(ROOT + '/heartbeat', body, headers=headers,
                             expect_errors=True)
    assert response.status_int == 400
    assert 'Missing mandatory parameter: node_ident' in response.text
    response = api.post_json(ROOT + '/heartbeat', body, headers=dict(
        headers, **{'X-OpenStack-Ironic-API-Version': '1.21'}),
        expect_errors=True)
    assert response.status_int == 404
