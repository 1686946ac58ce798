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
naming its rule, in Ironic's error format; the routes walked are exactly
the operations the baremetal policies document.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import policies
from nova_mini.policies import node_traits as trait_policies
from nova_mini.policies import nodes as node_policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import policy as policy_fixture

V1 = '/baremetal/v1'
NODE = 'node-1'
_N = '/nodes/{node_ident}'

# (method, documented path, rule, request path, body)
ROUTES = [
    ('GET', '/nodes', node_policies.LIST, '/nodes', None),
    ('GET', '/nodes/detail', node_policies.LIST, '/nodes/detail', None),
    ('GET', _N, node_policies.GET, '/nodes/' + NODE, None),
    ('POST', '/nodes', node_policies.CREATE, '/nodes',
     {'driver': 'fake-hardware'}),
    ('PATCH', _N, node_policies.UPDATE, '/nodes/' + NODE,
     [{'op': 'add', 'path': '/extra/a', 'value': 'b'}]),
    ('DELETE', _N, node_policies.DELETE, '/nodes/' + NODE, None),
    ('GET', _N + '/validate', node_policies.VALIDATE,
     '/nodes/%s/validate' % NODE, None),
    ('GET', _N + '/states', node_policies.GET_STATES,
     '/nodes/%s/states' % NODE, None),
    ('PUT', _N + '/states/provision', node_policies.SET_PROVISION_STATE,
     '/nodes/%s/states/provision' % NODE, {'target': 'manage'}),
    ('GET', _N + '/traits', trait_policies.LIST,
     '/nodes/%s/traits' % NODE, None),
    ('PUT', _N + '/traits', trait_policies.SET,
     '/nodes/%s/traits' % NODE, {'traits': ['CUSTOM_B']}),
    ('PUT', _N + '/traits/{trait}', trait_policies.SET,
     '/nodes/%s/traits/CUSTOM_C' % NODE, None),
    ('DELETE', _N + '/traits', trait_policies.DELETE,
     '/nodes/%s/traits' % NODE, None),
    ('DELETE', _N + '/traits/{trait}', trait_policies.DELETE,
     '/nodes/%s/traits/CUSTOM_A' % NODE, None),
]

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


def _baremetal_rules():
    return [rule for rule in policies.list_rules()
            if rule.name.startswith('baremetal:')]


def test_routes_are_the_documented_operations():
    documented = {(op['method'], op['path'])
                  for rule in _baremetal_rules() for op in rule.operations}
    assert {(method, doc) for method, doc, *_rest in ROUTES} == documented


def test_each_route_checks_the_rule_documenting_it():
    by_name = {rule.name: rule for rule in _baremetal_rules()}
    for method, doc, rule, *_rest in ROUTES:
        operations = {(op['method'], op['path'])
                      for op in by_name[rule].operations}
        assert (method, doc) in operations, (rule, method, doc)


def test_every_rule_is_used_by_a_route():
    assert {rule for _m, _d, rule, *_rest in ROUTES} == {
        rule.name for rule in _baremetal_rules()}


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
