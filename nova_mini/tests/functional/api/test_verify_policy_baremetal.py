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

"""Every route of the bare-metal API enforces a policy (the twin of
test_verify_policy.py for /baremetal).

With every rule denied, every route but the version documents answers 403
naming its rule, in Ironic's error format. The routes are those of
tests/fixtures/policy_routes.py, which the unit
test_verify_policy_baremetal.py matches with the documented policies.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini.policies import node_traits as trait_policies
from nova_mini.policies import nodes as node_policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import policy as policy_fixture
from nova_mini.tests.fixtures import policy_routes

V1 = '/baremetal/v1'
NODE = policy_routes.NODE
ROUTES = policy_routes.BAREMETAL_ROUTES

VERSION_DOCUMENTS = ['/baremetal', '/baremetal/', V1, V1 + '/']
WRITES = {node_policies.CREATE, node_policies.UPDATE, node_policies.DELETE,
          node_policies.VALIDATE, node_policies.SET_PROVISION_STATE,
          trait_policies.SET, trait_policies.DELETE}


def _make_node():
    builders.create_node(nm_context.get_admin_context(), NODE, ['CUSTOM_A'])


@pytest.fixture
def denied_api():
    fixture = api_fixture.APIFixture(
        policy_rules=policy_fixture.deny_everything())
    fixture.setUp()
    # A node with a trait, so that a route that skipped its policy would
    # find something and succeed.
    _make_node()
    try:
        yield webtest.TestApp(fixture.app)
    finally:
        fixture.cleanUp()


def _request(app, method, path, body, token='admin:admin'):
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version': '1.37'}
    kwargs = {'headers': headers, 'expect_errors': True, 'method': method}
    if body is not None:
        kwargs['json'] = body
    return app.request(V1 + path, **kwargs)


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def test_every_route_denies(denied_api):
    for method, _doc, rule, path, body in ROUTES:
        for token in ('admin:admin', 'demo:demo'):
            response = _request(denied_api, method, path, body, token)
            assert response.status_int == 403, (method, path, token,
                                                response.body)
            assert _fault(response) == (
                "Policy doesn't allow %s to be performed." % rule)


def test_version_documents_need_no_policy(denied_api):
    for path in VERSION_DOCUMENTS:
        response = denied_api.get(path, headers={'X-Auth-Token': 'x:y'})
        assert response.status_int == 200, path


def test_default_policy(api_fixture_factory):
    """Admins pass every rule; members only the read ones."""
    app = webtest.TestApp(api_fixture_factory().app)
    _make_node()
    for method, _doc, rule, path, body in ROUTES:
        member = _request(app, method, path, body, 'demo:demo')
        if rule in WRITES:
            assert member.status_int == 403, (method, path)
            assert rule in _fault(member)
        else:
            assert member.status_int == 200, (method, path, member.body)
    for method, _doc, rule, path, body in ROUTES:
        response = _request(app, method, path, body)
        assert response.status_int != 403, (method, path, response.body)
