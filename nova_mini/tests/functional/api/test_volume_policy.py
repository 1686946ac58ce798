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

"""The volume routes (tests/fixtures/policy_routes.VOLUME_ROUTES) under
Ironic's default policy, persona by persona, and each refusing with its
own rule when every rule denies: a volume resource is its node's, and
one of a node a project may not see is not found.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.policies.baremetal import volumes as volume_policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import policy as policy_fixture
from nova_mini.tests.fixtures import policy_routes

V1 = '/baremetal/v1'
OWNER = policy_routes.NODE_OWNER
LESSEE = policy_routes.NODE_LESSEE
ROUTES = policy_routes.VOLUME_ROUTES
PERSONAS = {
    'admin': ('admin:admin', None),
    'owner member': ('alice:' + OWNER, None),
    'lessee member': ('bob:' + LESSEE, None),
    'owner reader': ('carol:' + OWNER, 'reader'),
    'other member': ('dave:p-other', None),
}
# Expected status of each route (in VOLUME_ROUTES' order) by persona:
# the volume root, the node's volume root, the four lists, show
# connector and target, create both, patch both, delete both.
EXPECTED = {
    'admin': [200, 200, 200, 200, 200, 200, 200, 200, 201, 201, 200, 200,
              204, 204],
    'owner member': [403, 403, 200, 200, 200, 200, 200, 200, 403, 403, 200,
                     200, 403, 403],
    'lessee member': [403, 403, 200, 200, 200, 200, 200, 200, 403, 403,
                      403, 403, 403, 403],
    'owner reader': [403, 403, 200, 200, 200, 200, 200, 200, 403, 403, 403,
                     403, 403, 403],
    'other member': [403, 403, 200, 200, 404, 404, 404, 404, 403, 403, 404,
                     404, 404, 404],
}


def _store():
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, policy_routes.NODE, owner=OWNER,
                                lessee=LESSEE, power_state='power off',
                                uuid=policy_routes.VOLUME_NODE_UUID)
    builders.create_node(admin, 'node-other', owner='p-other',
                         power_state='power off')
    objects.VolumeConnector(
        admin, node_id=node.id, uuid=policy_routes.VOLUME_CONNECTOR,
        type='iqn', connector_id='iqn.2026-11.org.example:n1').create()
    objects.VolumeTarget(
        admin, node_id=node.id, uuid=policy_routes.VOLUME_TARGET,
        volume_type='iscsi', volume_id='vol-1', boot_index=0,
        properties={'target_iqn': 'iqn.2026-11.org.example:t1',
                    'auth_password': 'pw'}).create()


def _request(app, persona, method, path, body):
    token, roles = PERSONAS[persona]
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version': '1.32'}
    if roles is not None:
        headers['X-Roles'] = roles
    kwargs = {'headers': headers, 'expect_errors': True, 'method': method}
    if body is not None:
        kwargs['json'] = body
    return app.request(V1 + path, **kwargs)


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


@pytest.fixture
def app():
    fixture = api_fixture.APIFixture()
    fixture.setUp()
    try:
        _store()
        yield webtest.TestApp(fixture.app)
    finally:
        fixture.cleanUp()


@pytest.mark.parametrize('persona', sorted(EXPECTED))
def test_default_policy_by_persona(app, persona):
    for (method, _doc, rule, path, body), expected in zip(
            ROUTES, EXPECTED[persona]):
        response = _request(app, persona, method, path, body)
        assert response.status_int == expected, (
            persona, method, path, response.body)
        if expected == 403:
            assert rule in _fault(response), (persona, path)


@pytest.mark.parametrize('persona,count', [
    ('admin', 1), ('owner member', 1), ('lessee member', 1),
    ('owner reader', 1), ('other member', 0)])
def test_lists_hold_the_volumes_of_the_nodes_a_project_sees(app, persona,
                                                            count):
    for kind in ('connectors', 'targets'):
        listed = _request(app, persona, 'GET', '/volume/' + kind, None)
        assert len(listed.json[kind]) == count, (persona, kind)
    shown = _request(app, persona, 'GET', '/volume/connectors?node=%s' %
                     policy_routes.NODE, None)
    assert shown.status_int == (200 if count else 404)


def test_target_properties_are_an_administrator_s(app):
    path = '/volume/targets/' + policy_routes.VOLUME_TARGET
    admin = _request(app, 'admin', 'GET', path, None).json
    assert admin['properties'] == {
        'target_iqn': 'iqn.2026-11.org.example:t1',
        'auth_password': '******'}
    owner = _request(app, 'owner member', 'GET', path, None).json
    assert list(owner['properties']) == ['redacted_contents']
    assert 'view_target_properties' in \
        owner['properties']['redacted_contents']
    assert owner['volume_id'] == 'vol-1'
    listed = _request(app, 'owner member', 'GET',
                      '/volume/targets?detail=true', None).json
    assert list(listed['targets'][0]['properties']) == ['redacted_contents']
    # What the owner's member patches is stored; it still sees it
    # redacted, the administrator in full.
    patched = _request(app, 'owner member', 'PATCH', path, [
        {'op': 'add', 'path': '/properties/target_lun', 'value': 2}])
    assert patched.status_int == 200, patched.body
    assert list(patched.json['properties']) == ['redacted_contents']
    admin = _request(app, 'admin', 'GET', path, None).json
    assert admin['properties']['target_lun'] == 2
    assert admin['properties']['target_iqn'] == \
        'iqn.2026-11.org.example:t1'


def test_a_connector_moves_only_to_a_node_of_the_same_owner(app):
    path = '/volume/connectors/' + policy_routes.VOLUME_CONNECTOR
    other = objects.Node.get_by_name(nm_context.get_admin_context(),
                                     'node-other').uuid
    moved = _request(app, 'admin', 'PATCH', path, [
        {'op': 'replace', 'path': '/node_uuid', 'value': other}])
    assert moved.status_int == 400, moved.body
    assert 'node_uuid' in _fault(moved)
    assert _request(app, 'admin', 'GET', path, None).json['node_uuid'] != \
        other


def test_every_route_refuses_with_its_rule():
    fixture = api_fixture.APIFixture(
        policy_rules=policy_fixture.deny_everything())
    fixture.setUp()
    try:
        _store()
        app = webtest.TestApp(fixture.app)
        for method, _doc, rule, path, body in ROUTES:
            response = _request(app, 'admin', method, path, body)
            if path.startswith(('/volume/connectors/', '/volume/targets/')) \
                    or (path.startswith('/nodes/') and
                        rule != volume_policies.GET):
                # Neither the node nor its volumes are seen: not found.
                assert response.status_int == 404, (method, path)
            else:
                assert response.status_int == 403, (method, path)
                assert _fault(response) == (
                    "Policy doesn't allow %s to be performed." % rule)
    finally:
        fixture.cleanUp()
