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

"""Every route of the bare-metal API enforces its policy (the twin of
test_verify_policy.py for /baremetal), with Ironic's project scoping.

With every rule denied, the lists, the chassis routes and the create
answer 403 naming their rule and every route on a node or port 404 (a
node the caller may not see is not found, as in Ironic for
project-scoped callers); with only ``baremetal:node:get`` and
``baremetal:port:get`` allowed, each route on a node or port answers 403
naming its own rule. Then every route is walked with the default policy by an
admin, a member of the project owning the node, a member of the project
leasing it, a reader of the owning project and a member of another
project, each answer checked against Ironic's defaults. The routes are
those of tests/fixtures/policy_routes.py, which the unit
test_verify_policy_baremetal.py matches with the documented policies.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.baremetal import conductor
from nova_mini.policies.baremetal import node_traits as trait_policies
from nova_mini.policies.baremetal import node_vifs as vif_policies
from nova_mini.policies.baremetal import nodes as node_policies
from nova_mini.policies.baremetal import portgroups as group_policies
from nova_mini.policies.baremetal import ports as port_policies
from nova_mini.policies.baremetal import ramdisk as ramdisk_policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import policy as policy_fixture
from nova_mini.tests.fixtures import policy_routes

V1 = '/baremetal/v1'
NODE = policy_routes.NODE
OWNER = policy_routes.NODE_OWNER
LESSEE = policy_routes.NODE_LESSEE
OTHER = 'p-other'
ROUTES = policy_routes.BAREMETAL_ROUTES

VERSION_DOCUMENTS = ['/baremetal', '/baremetal/', V1, V1 + '/']
# The rules that let a caller see a node or port (else not found).
SEEING = {node_policies.GET, port_policies.GET, group_policies.GET}


def _kind(method, path):
    """What a route's request names: ``node`` (a node, in its path or,
    for a port create, in its body), ``port`` or ``free`` (nothing a
    project owns: lists, creates, chassis).
    """
    if path.startswith('/nodes/%s' % NODE) or \
            (method, path) in (('POST', '/ports'), ('POST', '/portgroups')):
        return 'node'
    if path.startswith('/ports/' + policy_routes.PORT):
        return 'port'
    if path.startswith('/portgroups/' + policy_routes.PORTGROUP):
        return 'portgroup'
    return 'free'


_NOT_FOUND = {'node': 'Node %s could not be found.' % NODE,
              'port': 'Port %s could not be found.' % policy_routes.PORT,
              'portgroup': 'Portgroup %s could not be found.' % (
                  policy_routes.PORTGROUP)}

# Persona: (token, roles or None for the noauth2 defaults).
PERSONAS = {
    'admin': ('admin:admin', None),
    'owner member': ('alice:' + OWNER, None),
    'lessee member': ('bob:' + LESSEE, None),
    'owner reader': ('carol:' + OWNER, 'reader'),
    'other member': ('dave:' + OTHER, None),
}

# What each persona may do on NODE under the default policy (Ironic's
# defaults): the other rules answer 403 on a node it sees.
_READS = {node_policies.LIST, node_policies.GET, node_policies.GET_STATES,
          trait_policies.LIST, port_policies.LIST, port_policies.GET,
          group_policies.LIST, group_policies.GET,
          node_policies.GET_INDICATOR_STATE, node_policies.GET_BIOS,
          vif_policies.LIST}
# Public: a ramdisk has no credentials.
_PUBLIC = {ramdisk_policies.LOOKUP, ramdisk_policies.HEARTBEAT}
ALLOWED = {
    'owner member': _READS | _PUBLIC | {
        node_policies.UPDATE, node_policies.UPDATE_EXTRA,
        node_policies.UPDATE_INSTANCE_INFO, node_policies.UPDATE_DRIVER_INFO,
        node_policies.UPDATE_PROPERTIES, node_policies.UPDATE_INSTANCE_UUID,
        node_policies.UPDATE_NAME, node_policies.UPDATE_LESSEE,
        node_policies.UPDATE_RETIRED, node_policies.VALIDATE,
        node_policies.SET_PROVISION_STATE,
        node_policies.SET_POWER_STATE, node_policies.GET_CONSOLE,
        node_policies.SET_CONSOLE_STATE, node_policies.GET_BOOT_DEVICE,
        node_policies.SET_BOOT_DEVICE, node_policies.SET_INDICATOR_STATE,
        node_policies.SET_RAID_STATE,
        vif_policies.ATTACH, vif_policies.DETACH},
    'lessee member': _READS | _PUBLIC | {node_policies.UPDATE,
                                         node_policies.UPDATE_EXTRA,
                                         node_policies.SET_POWER_STATE},
    'owner reader': _READS | _PUBLIC,
    'other member': _PUBLIC | {node_policies.LIST, port_policies.LIST,
                               group_policies.LIST},
}
# Success statuses of the routes by method.
_SUCCESS = {'GET': 200, 'PATCH': 200, 'POST': 201, 'PUT': 204,
            'DELETE': 204}


def _make_nodes():
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, NODE, ['CUSTOM_A'], owner=OWNER,
                                lessee=LESSEE)
    other = builders.create_node(admin, 'node-other', owner=OTHER)
    builders.create_port(admin, node, policy_routes.PORT_MAC,
                         uuid=policy_routes.PORT)
    builders.create_chassis(admin, uuid=policy_routes.CHASSIS)
    objects.Portgroup(admin, node_id=node.id,
                      uuid=policy_routes.PORTGROUP).create()
    conductor.register_host(admin, policy_routes.CONDUCTOR)
    objects.DeployTemplate(admin, name=policy_routes.DEPLOY_TEMPLATE,
                           steps=policy_routes.DEPLOY_STEPS).create()
    return node, other


def _api(rules=None):
    fixture = api_fixture.APIFixture(policy_rules=rules)
    fixture.setUp()
    return fixture


@pytest.fixture
def denied_api():
    fixture = _api(policy_fixture.deny_everything())
    # A node with a trait, so that a route that skipped its policy would
    # find something and succeed.
    _make_nodes()
    try:
        yield webtest.TestApp(fixture.app)
    finally:
        fixture.cleanUp()


@pytest.fixture
def visible_api():
    rules = policy_fixture.deny_everything()
    for rule in SEEING:
        rules[rule] = '@'
    fixture = _api(rules)
    _make_nodes()
    try:
        yield webtest.TestApp(fixture.app)
    finally:
        fixture.cleanUp()


def _request(app, method, path, body, persona='admin'):
    token, roles = PERSONAS[persona]
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version':
                   policy_routes.BAREMETAL_VERSION}
    if roles is not None:
        headers['X-Roles'] = roles
    kwargs = {'headers': headers, 'expect_errors': True, 'method': method}
    if body is not None:
        kwargs['json'] = body
    return app.request(V1 + path, **kwargs)


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def test_every_route_denies(denied_api):
    for method, _doc, rule, path, body in ROUTES:
        for persona in ('admin', 'owner member'):
            response = _request(denied_api, method, path, body, persona)
            kind = _kind(method, path)
            if kind == 'free':
                assert response.status_int == 403, (method, path, persona,
                                                    response.body)
                assert _fault(response) == (
                    "Policy doesn't allow %s to be performed." % rule)
            else:
                # Not even seen: not found, whoever asks.
                assert response.status_int == 404, (method, path, persona,
                                                    response.body)
                assert _fault(response) == _NOT_FOUND[kind]


def test_every_node_route_checks_its_rule(visible_api):
    for method, _doc, rule, path, body in ROUTES:
        if _kind(method, path) == 'free' or rule in SEEING:
            continue
        for persona in ('admin', 'owner member', 'other member'):
            response = _request(visible_api, method, path, body, persona)
            assert response.status_int == 403, (method, path, persona,
                                                response.body)
            assert _fault(response) == (
                "Policy doesn't allow %s to be performed." % rule)


def test_version_documents_need_no_policy(denied_api):
    for path in VERSION_DOCUMENTS:
        response = denied_api.get(path, headers={'X-Auth-Token': 'x:y'})
        assert response.status_int == 200, path


def _expected(persona, rule, method, path):
    # A node or port route: 404 for a node the persona does not see.
    if _kind(method, path) != 'free' and \
            node_policies.GET not in ALLOWED[persona]:
        return 404
    if rule in ALLOWED[persona]:
        return None
    return 403


def test_default_policy_by_persona(api_fixture_factory):
    """Each persona gets Ironic's answer on each route: success where
    allowed, 403 where refused on a node it sees, 404 on a node it does
    not see; the admin (walked last, it deletes the node) is never refused.
    """
    app = webtest.TestApp(api_fixture_factory().app)
    _make_nodes()
    for persona in ('other member', 'owner reader', 'lessee member',
                    'owner member'):
        for method, doc, rule, path, body in ROUTES:
            response = _request(app, method, path, body, persona)
            expected = _expected(persona, rule, method, path)
            if expected is None:
                assert response.status_int in _allowed(method, doc), (
                    persona, method, path, response.body)
            else:
                assert response.status_int == expected, (
                    persona, method, path, response.body)
                if expected == 403:
                    assert rule in _fault(response), (persona, path)
    for method, doc, rule, path, body in ROUTES:
        response = _request(app, method, path, body)
        special = policy_routes.BAREMETAL_ALLOWED_STATUS.get((method, doc))
        if special is not None:
            assert response.status_int == special, (method, path,
                                                    response.body)
        else:
            assert response.status_int not in (403, 404), (
                method, path, response.body)


def _allowed(method, doc):
    # The answers of a route to a caller its rule allows.
    special = policy_routes.BAREMETAL_ALLOWED_STATUS.get((method, doc))
    if special is not None:
        return (special,)
    return (_SUCCESS[method], 202)


def _names(app, persona, path='/nodes'):
    response = _request(app, 'GET', path, None, persona)
    assert response.status_int == 200, response.body
    return sorted(node['name'] for node in response.json['nodes'])


def test_lists_hold_the_nodes_a_project_owns_or_leases(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory().app)
    _make_nodes()
    builders.create_node(nm_context.get_admin_context(), 'node-free')
    assert _names(app, 'admin') == ['node-1', 'node-free', 'node-other']
    for persona in ('owner member', 'lessee member', 'owner reader'):
        assert _names(app, persona) == ['node-1']
        assert _names(app, persona, '/nodes/detail') == ['node-1']
    assert _names(app, 'other member') == ['node-other']
