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

"""Node owner and lessee: the list scoping in SQL on every backend, the
fields a node body redacts for whom, the owner of an active node, and
Node 1.1 sent to a 1.0 reader.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.policies.baremetal import nodes as node_policies
from nova_mini import states
from nova_mini.tests.fixtures import builders

V1 = '/baremetal/v1'
SECRET = 'pw-%s' % 'c0ffee'


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _names(admin, **filters):
    return sorted(node.name for node in objects.NodeList.get_all(
        admin, filters=filters).objects)


def test_project_filters_in_sql(admin):
    builders.create_node(admin, 'a', owner='p1')
    builders.create_node(admin, 'b', owner='p1', lessee='p2')
    builders.create_node(admin, 'c', lessee='p1')
    builders.create_node(admin, 'd', owner='p3', lessee='p2')
    builders.create_node(admin, 'e')
    assert _names(admin, project='p1') == ['a', 'b', 'c']
    assert _names(admin, project='p2') == ['b', 'd']
    assert _names(admin, project='p4') == []
    assert _names(admin, owner='p1') == ['a', 'b']
    assert _names(admin, lessee='p2') == ['b', 'd']
    assert _names(admin, project='p2', owner='p3') == ['d']
    assert _names(admin, project='p1', associated=False,
                  provision_state=states.ENROLL) == ['a', 'b', 'c']


def test_owner_and_lessee_are_stored(admin):
    node = builders.create_node(admin, 'a', owner='p1')
    node.lessee = 'p2'
    node.save()
    loaded = objects.Node.get_by_name(admin, 'a')
    assert (loaded.owner, loaded.lessee) == ('p1', 'p2')
    loaded.owner = None
    loaded.save()
    assert objects.Node.get_by_name(admin, 'a').owner is None


def test_node_1_0_has_no_owner_nor_lessee(admin):
    node = builders.create_node(admin, 'a', owner='p1', lessee='p2')
    primitive = node.obj_to_primitive(target_version='1.0')
    data = primitive['nova_mini_object.data']
    assert 'owner' not in data and 'lessee' not in data
    assert data['name'] == 'a'


def _request(app, method, path, token, body=None, roles=None):
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version': '1.65'}
    if roles:
        headers['X-Roles'] = roles
    kwargs = {'headers': headers, 'expect_errors': True, 'method': method}
    if body is not None:
        kwargs['json'] = body
    return app.request(V1 + path, **kwargs)


@pytest.fixture
def app(api_fixture_factory):
    return webtest.TestApp(api_fixture_factory().app)


def _failed_node(name, **values):
    admin = nm_context.get_admin_context()
    node = builders.create_node(
        admin, name, driver_info={'ipmi_address': '10.0.0.9',
                                  'ipmi_password': SECRET}, **values)
    node.last_error = 'deploy failed on conductor c-1 (10.0.0.9)'
    node.provision_state = states.DEPLOYFAIL
    node.save()
    return node


def test_lessee_gets_last_error_and_driver_info_redacted(app):
    _failed_node('n', owner='p-own', lessee='p-lease')
    for path in ('/nodes/n', '/nodes/n/states'):
        owner = _request(app, 'GET', path, 'alice:p-own').json
        assert owner['last_error'].startswith('deploy failed')
        lessee = _request(app, 'GET', path, 'bob:p-lease').json
        assert 'Redacted' in lessee['last_error']
        assert node_policies.GET_LAST_ERROR in lessee['last_error']
        assert '10.0.0.9' not in json.dumps(lessee)
    owner = _request(app, 'GET', '/nodes/n', 'alice:p-own').json
    assert owner['driver_info'] == {'ipmi_address': '10.0.0.9',
                                    'ipmi_password': '******'}
    reader = _request(app, 'GET', '/nodes/n', 'carol:p-own',
                      roles='reader').json
    assert reader['driver_info'] == owner['driver_info']
    lessee = _request(app, 'GET', '/nodes/detail', 'bob:p-lease').json
    assert list(lessee['nodes'][0]['driver_info']) == ['content']
    admin = _request(app, 'GET', '/nodes/n', 'admin:admin').json
    assert admin['last_error'].startswith('deploy failed')
    assert admin['driver_info']['ipmi_password'] == '******'


def test_driver_internal_info_masked_and_redacted_for_lessees(app):
    node = _failed_node('n', owner='p-own', lessee='p-lease')
    node.driver_internal_info = {'agent_secret_token': SECRET,
                                 'agent_url': 'http://10.0.0.9:9999'}
    node.save()
    expected = {'agent_secret_token': '******',
                'agent_url': 'http://10.0.0.9:9999'}
    for token in ('admin:admin', 'alice:p-own'):
        shown = _request(app, 'GET', '/nodes/n', token).json
        assert shown['driver_internal_info'] == expected
    lessee = _request(app, 'GET', '/nodes/n', 'bob:p-lease').json
    assert lessee['driver_internal_info'] == {
        'content': '** Redacted: needs the %s permission. **'
                   % node_policies.GET_DRIVER_INTERNAL_INFO}
    assert SECRET not in json.dumps(lessee)


def test_secrets_shown_where_policy_allows(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory(policy_rules={
        node_policies.SHOW_PASSWORD: 'role:admin'}).app)
    _failed_node('n', owner='p-own')
    admin = _request(app, 'GET', '/nodes/n', 'admin:admin').json
    assert admin['driver_info']['ipmi_password'] == SECRET
    owner = _request(app, 'GET', '/nodes/n', 'alice:p-own').json
    assert owner['driver_info']['ipmi_password'] == '******'


def test_owner_of_an_active_node(api_fixture_factory):
    # Owners' members may change the owner, but not of an active node.
    app = webtest.TestApp(api_fixture_factory(policy_rules={
        node_policies.UPDATE_OWNER: node_policies.ADMIN_OR_OWNER_MEMBER}).app)
    admin = nm_context.get_admin_context()
    builders.create_node(admin, 'idle', owner='p-own')
    builders.create_node(admin, 'busy', owner='p-own',
                         provision_state=states.ACTIVE)
    patch = [{'op': 'replace', 'path': '/owner', 'value': 'p-new'}]
    busy = _request(app, 'PATCH', '/nodes/busy', 'alice:p-own', patch)
    assert busy.status_int == 409, busy.body
    assert 'active' in json.loads(busy.json['error_message'])['faultstring']
    assert objects.Node.get_by_name(admin, 'busy').owner == 'p-own'
    idle = _request(app, 'PATCH', '/nodes/idle', 'alice:p-own', patch)
    assert idle.status_int == 200, idle.body
    assert idle.json['owner'] == 'p-new'
    # The admin passes update_owner_provisioned.
    moved = _request(app, 'PATCH', '/nodes/busy', 'admin:admin', patch)
    assert moved.status_int == 200, moved.body
    # Gone from alice's sight now.
    assert _request(app, 'GET', '/nodes/busy', 'alice:p-own'
                    ).status_int == 404


def _deployed(admin, name, instance_uuid, **values):
    node = builders.create_node(admin, name, instance_uuid=instance_uuid,
                                instance_info={'traits': []},
                                provision_state=states.AVAILABLE, **values)
    node.set_provision_state(states.DEPLOY)
    return objects.Node.get_by_name(admin, name)


SERVER = '2b1f5a0e-8c3d-4e6f-9a7b-1c2d3e4f5a60'


def test_deploy_leases_the_node_to_the_instance_project(admin):
    builders.boot_server(admin, SERVER, project_id='p-srv')
    node = _deployed(admin, 'n', SERVER, owner='p-own')
    assert (node.owner, node.lessee) == ('p-own', 'p-srv')
    # With the server's root partition (its flavor's disk, MANUAL).
    assert node.instance_info == {'traits': [], 'project_id': 'p-srv',
                                  'root_gb': '10',
                                  'auto_disk_config': False}
    assert _names(admin, project='p-srv') == ['n']
    node.set_provision_state(states.UNDEPLOY)
    node = objects.Node.get_by_name(admin, 'n')
    assert (node.owner, node.lessee, node.instance_uuid) == (
        'p-own', None, None)
    assert node.instance_info == {}


def test_deploy_keeps_a_lessee_given_before_or_after(admin):
    builders.boot_server(admin, SERVER, project_id='p-srv')
    node = _deployed(admin, 'n', SERVER, lessee='p-lease')
    assert node.lessee == 'p-lease'
    assert 'project_id' not in node.instance_info
    node.set_provision_state(states.UNDEPLOY)
    assert objects.Node.get_by_name(admin, 'n').lessee == 'p-lease'
    # A lessee the owner gives while the node is deployed stays too.
    node = _deployed(admin, 'm', SERVER)
    assert node.lessee == 'p-srv'
    node.lessee = 'p-later'
    node.save()
    node.set_provision_state(states.UNDEPLOY)
    assert objects.Node.get_by_name(admin, 'm').lessee == 'p-later'


def test_deploy_without_an_instance_row_leases_to_nobody(admin):
    node = _deployed(admin, 'n', SERVER)
    assert node.lessee is None
    assert node.instance_info == {'traits': []}
