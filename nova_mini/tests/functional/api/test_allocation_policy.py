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

"""The allocation routes (tests/fixtures/policy_routes.ALLOCATION_ROUTES)
under Ironic's default policy, persona by persona, and each refusing
with its own rule when every rule denies: an allocation is its owner
project's, and one a project may not see is not found.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.baremetal import node_allocation
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import policy as policy_fixture
from nova_mini.tests.fixtures import policy_routes

V1 = '/baremetal/v1'
OWNER = policy_routes.NODE_OWNER
ROUTES = policy_routes.ALLOCATION_ROUTES
PERSONAS = {
    'admin': ('admin:admin', None),
    'owner member': ('alice:' + OWNER, None),
    'owner reader': ('carol:' + OWNER, 'reader'),
    'other member': ('dave:p-other', None),
}
# Expected status of each route (in ALLOCATION_ROUTES' order) by persona;
# the owner member's first delete frees the node, so the second finds
# nothing.
EXPECTED = {
    'other member': [200, 201, 404, 404, 404, 404, 404],
    'owner reader': [200, 403, 200, 403, 200, 403, 403],
    'owner member': [200, 201, 200, 200, 200, 204, 404],
}


def _store():
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, policy_routes.NODE, owner=OWNER,
                                resource_class='gold',
                                provision_state='available',
                                power_state='power off')
    allocation = objects.Allocation(
        admin, uuid=policy_routes.ALLOCATION, owner=OWNER,
        resource_class='gold', candidate_nodes=[node.uuid])
    allocation.create()
    assert node_allocation.allocate(allocation).state == 'active'


def _request(app, persona, method, path, body):
    token, roles = PERSONAS[persona]
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version': '1.60'}
    if roles is not None:
        headers['X-Roles'] = roles
    kwargs = {'headers': headers, 'expect_errors': True, 'method': method}
    if body is not None:
        kwargs['json'] = body
    return app.request(V1 + path, **kwargs)


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


@pytest.mark.parametrize('persona', sorted(EXPECTED))
def test_default_policy_by_persona(persona):
    fixture = api_fixture.APIFixture()
    fixture.setUp()
    try:
        _store()
        app = webtest.TestApp(fixture.app)
        for (method, _doc, rule, path, body), expected in zip(
                ROUTES, EXPECTED[persona]):
            response = _request(app, persona, method, path, body)
            assert response.status_int == expected, (
                persona, method, path, response.body)
            if expected == 403:
                assert rule in _fault(response), (persona, path)
    finally:
        fixture.cleanUp()


def test_owner_member_creates_for_its_project_only():
    fixture = api_fixture.APIFixture()
    fixture.setUp()
    try:
        _store()
        app = webtest.TestApp(fixture.app)
        mine = _request(app, 'owner member', 'POST', '/allocations',
                        {'resource_class': 'gold'})
        assert mine.status_int == 201, mine.body
        assert mine.json['owner'] == OWNER
        other = _request(app, 'owner member', 'POST', '/allocations',
                         {'resource_class': 'gold', 'owner': 'p-other'})
        assert other.status_int == 403, other.body
        # The admin's list has both; the other project's none.
        listed = _request(app, 'admin', 'GET', '/allocations', None)
        assert len(listed.json['allocations']) == 2
        theirs = _request(app, 'other member', 'GET', '/allocations', None)
        assert theirs.json['allocations'] == []
    finally:
        fixture.cleanUp()


def test_every_route_refuses_with_its_rule():
    fixture = api_fixture.APIFixture(
        policy_rules=policy_fixture.deny_everything())
    fixture.setUp()
    try:
        _store()
        app = webtest.TestApp(fixture.app)
        for method, _doc, rule, path, body in ROUTES:
            response = _request(app, 'admin', method, path, body)
            if path.startswith('/allocations/'):
                # Not even seen: not found.
                assert response.status_int == 404, (method, path)
            elif path.startswith('/nodes/'):
                assert response.status_int == 404, (method, path)
            else:
                assert response.status_int == 403, (method, path)
                assert _fault(response) == (
                    "Policy doesn't allow %s to be performed." % rule)
    finally:
        fixture.cleanUp()
