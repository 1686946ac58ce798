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

"""Every route of the compute API enforces a policy.

With a policy file that denies every registered rule (``context_is_admin``
included), every route but the version documents must answer 403 naming
its rule. The routes walked here must be exactly the operations the
policies document, so a new route without a documented policy fails too.
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini import policies
from nova_mini.policies import flavor_access as access_policies
from nova_mini.policies import flavor_extra_specs as specs_policies
from nova_mini.policies import flavors as flavor_policies
from nova_mini.policies import server_metadata as metadata_policies
from nova_mini.policies import servers as server_policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import policy as policy_fixture

V21 = '/compute/v2.1'
FLAVOR = 'f-private'
SERVER = '6f1c8a52-3b7e-4d0a-9c61-2e5b8f4a7d10'

# (method, documented path, rule, request path, body, microversion)
ROUTES = [
    ('GET', '/flavors', flavor_policies.LIST, '/flavors', None, None),
    ('GET', '/flavors/detail', flavor_policies.LIST, '/flavors/detail',
     None, None),
    ('GET', '/flavors/{flavor_id}', flavor_policies.SHOW,
     '/flavors/%s' % FLAVOR, None, None),
    ('POST', '/flavors', flavor_policies.CREATE, '/flavors',
     {'flavor': {'name': 'n', 'ram': 1, 'vcpus': 1, 'disk': 0}}, None),
    ('PUT', '/flavors/{flavor_id}', flavor_policies.UPDATE,
     '/flavors/%s' % FLAVOR, {'flavor': {'description': 'd'}}, '2.55'),
    ('DELETE', '/flavors/{flavor_id}', flavor_policies.DELETE,
     '/flavors/%s' % FLAVOR, None, None),
    ('GET', '/flavors/{flavor_id}/os-extra_specs', specs_policies.INDEX,
     '/flavors/%s/os-extra_specs' % FLAVOR, None, None),
    ('GET', '/flavors/{flavor_id}/os-extra_specs/{key}',
     specs_policies.SHOW, '/flavors/%s/os-extra_specs/k' % FLAVOR, None,
     None),
    ('POST', '/flavors/{flavor_id}/os-extra_specs', specs_policies.CREATE,
     '/flavors/%s/os-extra_specs' % FLAVOR, {'extra_specs': {'k': 'w'}},
     None),
    ('PUT', '/flavors/{flavor_id}/os-extra_specs/{key}',
     specs_policies.UPDATE, '/flavors/%s/os-extra_specs/k' % FLAVOR,
     {'k': 'w'}, None),
    ('DELETE', '/flavors/{flavor_id}/os-extra_specs/{key}',
     specs_policies.DELETE, '/flavors/%s/os-extra_specs/k' % FLAVOR, None,
     None),
    ('GET', '/flavors/{flavor_id}/os-flavor-access', access_policies.LIST,
     '/flavors/%s/os-flavor-access' % FLAVOR, None, None),
    ('POST', '/flavors/{flavor_id}/action (addTenantAccess)',
     access_policies.ADD, '/flavors/%s/action' % FLAVOR,
     {'addTenantAccess': {'tenant': 'p'}}, None),
    ('POST', '/flavors/{flavor_id}/action (removeTenantAccess)',
     access_policies.REMOVE, '/flavors/%s/action' % FLAVOR,
     {'removeTenantAccess': {'tenant': 'p'}}, None),
    ('GET', '/servers', server_policies.INDEX, '/servers', None, None),
    ('GET', '/servers/detail', server_policies.INDEX, '/servers/detail',
     None, None),
    ('GET', '/servers/{server_id}', server_policies.SHOW,
     '/servers/%s' % SERVER, None, None),
    ('POST', '/servers', server_policies.CREATE, '/servers',
     {'server': {'name': 's', 'flavorRef': FLAVOR, 'imageRef': 'i'}},
     None),
    ('PUT', '/servers/{server_id}', server_policies.UPDATE,
     '/servers/%s' % SERVER, {'server': {'name': 'n'}}, None),
    ('GET', '/servers/{server_id}/metadata', metadata_policies.INDEX,
     '/servers/%s/metadata' % SERVER, None, None),
    ('GET', '/servers/{server_id}/metadata/{key}', metadata_policies.SHOW,
     '/servers/%s/metadata/k' % SERVER, None, None),
    ('POST', '/servers/{server_id}/metadata', metadata_policies.CREATE,
     '/servers/%s/metadata' % SERVER, {'metadata': {'k': 'w'}}, None),
    ('PUT', '/servers/{server_id}/metadata', metadata_policies.UPDATE_ALL,
     '/servers/%s/metadata' % SERVER, {'metadata': {'k': 'w'}}, None),
    ('PUT', '/servers/{server_id}/metadata/{key}', metadata_policies.UPDATE,
     '/servers/%s/metadata/k' % SERVER, {'meta': {'k': 'w'}}, None),
    ('DELETE', '/servers/{server_id}/metadata/{key}',
     metadata_policies.DELETE, '/servers/%s/metadata/k' % SERVER, None,
     None),
    # Last: the routes before it need the server.
    ('DELETE', '/servers/{server_id}', server_policies.DELETE,
     '/servers/%s' % SERVER, None, None),
]

# Rules a route that another rule guards checks only for some requests:
# one filters the response body (checked with fatal=False), one guards
# what a body may ask for (tests below).
BODY_RULES = {server_policies.EXTENDED_ATTRIBUTES,
              server_policies.CREATE_FORCED_HOST}
# Rules the list routes check for what a query asks, after their own
# (gabbits/servers-list.yaml).
QUERY_RULES = {server_policies.INDEX_ALL_TENANTS,
               server_policies.DETAIL_ALL_TENANTS,
               server_policies.ALLOW_ALL_FILTERS}

VERSION_DOCUMENTS = ['/compute', '/compute/', V21, V21 + '/']


@pytest.fixture
def denied_api():
    fixture = api_fixture.APIFixture(
        policy_rules=policy_fixture.deny_everything())
    fixture.setUp()
    # A private flavor with an extra spec and an access entry, so that a
    # route that skipped its policy would find something and answer 200.
    admin = nm_context.get_admin_context()
    flavor = objects.Flavor(admin, flavorid=FLAVOR, name=FLAVOR,
                            memory_mb=1, vcpus=1, root_gb=0,
                            is_public=False, extra_specs={'k': 'v'},
                            projects=['p'])
    flavor.create()
    _server(admin, flavor)
    try:
        yield webtest.TestApp(fixture.app)
    finally:
        fixture.cleanUp()


def _server(context, flavor):
    """A server of project demo, so that routes find one."""
    objects.Instance(context, uuid=SERVER, name='s', project_id='demo',
                     user_id='demo', flavor=flavor, image_ref=None,
                     vm_state='active', node_uuid=None, fault=None,
                     metadata={'k': 'v'}).create()


def _request(app, method, path, body, version, token='admin:admin'):
    headers = {'X-Auth-Token': token}
    if version:
        headers['OpenStack-API-Version'] = 'compute %s' % version
    if body is not None:
        return app.request(V21 + path, method=method, json=body,
                           headers=headers, expect_errors=True)
    return app.request(V21 + path, method=method, headers=headers,
                       expect_errors=True)


def test_every_route_denies(denied_api):
    for method, _doc, rule, path, body, version in ROUTES:
        for token in ('admin:admin', 'demo:demo'):
            response = _request(denied_api, method, path, body, version,
                                token)
            assert response.status_int == 403, (method, path, token,
                                                response.body)
            assert response.json == {'forbidden': {
                'code': 403,
                'message': "Policy doesn't allow %s to be performed."
                           % rule}}, (method, path)


def test_version_documents_need_no_policy(denied_api):
    for path in VERSION_DOCUMENTS:
        response = denied_api.get(path, headers={'X-Auth-Token': 'x:y'})
        assert response.status_int == 200, path


def _compute_rules():
    # The /baremetal routes: test_verify_policy_baremetal.py.
    return [rule for rule in policies.list_rules()
            if rule.name.startswith('os_compute_api:')]


def test_routes_are_the_documented_operations():
    documented = set()
    for rule in _compute_rules():
        for operation in getattr(rule, 'operations', ()):
            documented.add((operation['method'], operation['path']))
    walked = {(method, doc) for method, doc, *_rest in ROUTES}
    assert walked == documented


def test_each_route_checks_the_rule_documenting_it():
    by_name = {rule.name: rule for rule in policies.list_rules()}
    for method, doc, rule, *_rest in ROUTES:
        operations = {(op['method'], op['path'])
                      for op in by_name[rule].operations}
        assert (method, doc) in operations, (rule, method, doc)


def test_every_rule_is_used_by_a_route():
    used = ({rule for _m, _d, rule, *_rest in ROUTES} | BODY_RULES |
            QUERY_RULES)
    documented = {rule.name for rule in _compute_rules()
                  if getattr(rule, 'operations', None)}
    assert used == documented


def test_body_rules_filter_the_body(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory().app)
    admin = nm_context.get_admin_context()
    flavor = objects.Flavor(admin, flavorid=FLAVOR, name=FLAVOR,
                            memory_mb=1, vcpus=1, root_gb=0, is_public=True,
                            extra_specs={})
    flavor.create()
    _server(admin, flavor)
    key = 'OS-EXT-SRV-ATTR:hypervisor_hostname'
    shown = _request(app, 'GET', '/servers/%s' % SERVER, None, None)
    assert key in shown.json['server']
    shown = _request(app, 'GET', '/servers/%s' % SERVER, None, None,
                     'demo:demo')
    assert shown.status_int == 200
    assert key not in shown.json['server']


def test_forced_host_rule_guards_a_named_node(api_fixture_factory):
    rule = server_policies.CREATE_FORCED_HOST
    app = webtest.TestApp(api_fixture_factory(
        policy_rules={rule: '!'}).app)
    admin = nm_context.get_admin_context()
    objects.Flavor(admin, flavorid=FLAVOR, name=FLAVOR, memory_mb=1,
                   vcpus=1, root_gb=0, is_public=True,
                   extra_specs={}).create()
    body = {'server': {'name': 's', 'flavorRef': FLAVOR, 'imageRef': 'i',
                       'availability_zone': 'nova::node-1'}}
    response = _request(app, 'POST', '/servers', body, None)
    assert response.json == {'forbidden': {
        'code': 403,
        'message': "Policy doesn't allow %s to be performed." % rule}}
    assert objects.InstanceList.get_all(admin).objects == []
    body['server']['availability_zone'] = 'nova'
    assert _request(app, 'POST', '/servers', body, None).status_int == 202


WRITES = {flavor_policies.CREATE, flavor_policies.UPDATE,
          flavor_policies.DELETE, specs_policies.CREATE,
          specs_policies.UPDATE, specs_policies.DELETE,
          access_policies.LIST, access_policies.ADD, access_policies.REMOVE}


def test_default_policy(api_fixture_factory):
    """Admins pass every rule; members only the read ones (the access
    list is admin-only too).
    """
    app = webtest.TestApp(api_fixture_factory().app)
    admin = nm_context.get_admin_context()
    flavor = objects.Flavor(admin, flavorid=FLAVOR, name=FLAVOR,
                            memory_mb=1, vcpus=1, root_gb=0, is_public=True,
                            extra_specs={'k': 'v'})
    flavor.create()
    _server(admin, flavor)
    for method, _doc, rule, path, body, version in ROUTES:
        member = _request(app, method, path, body, version, 'demo:demo')
        if rule in WRITES:
            assert member.status_int == 403, (method, path)
            assert rule in member.json['forbidden']['message']
        else:
            # 202 for a boot, 204 for a delete.
            assert member.status_int in (200, 202, 204), (
                method, path, member.body)
    # The admin is allowed everywhere; the answers may still be errors
    # of the resource (a public flavor has no access list, say).
    for method, _doc, rule, path, body, version in ROUTES:
        response = _request(app, method, path, body, version)
        assert response.status_int != 403, (method, path, response.body)
