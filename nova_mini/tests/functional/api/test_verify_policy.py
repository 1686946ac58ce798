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
its rule. The routes are those of tests/fixtures/policy_routes.py, which
the unit test_verify_policy.py matches with the documented policies.
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.compute import instance_action
from nova_mini.policies.compute import extensions as extension_policies
from nova_mini.policies.compute import flavor_access as access_policies
from nova_mini.policies.compute import flavor_extra_specs as specs_policies
from nova_mini.policies.compute import flavors as flavor_policies
from nova_mini.policies.compute import instance_actions as action_policies
from nova_mini.policies.compute import keypairs as keypair_policies
from nova_mini.policies.compute import limits as limit_policies
from nova_mini.policies.compute import quota_sets as quota_policies
from nova_mini.policies.compute import server_actions as server_action_policies
from nova_mini.policies.compute import server_groups as group_policies
from nova_mini.policies.compute import server_metadata as metadata_policies
from nova_mini.policies.compute import servers as server_policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import policy as policy_fixture
from nova_mini.tests.fixtures import policy_routes

V21 = '/compute/v2.1'
FLAVOR = policy_routes.FLAVOR
SERVER = policy_routes.SERVER
IMAGE = policy_routes.IMAGE
ROUTES = policy_routes.COMPUTE_ROUTES

VERSION_DOCUMENTS = ['/compute', '/compute/', V21, V21 + '/']


@pytest.fixture
def denied_api():
    fixture = api_fixture.APIFixture(
        policy_rules=policy_fixture.deny_everything())
    fixture.setUp()
    # A private flavor with an extra spec and an access entry, so that a
    # route that skipped its policy would find something and answer 200.
    admin = nm_context.get_admin_context()
    flavor = builders.create_flavor(admin, FLAVOR, memory_mb=1, vcpus=1,
                                    root_gb=0, is_public=False,
                                    extra_specs={'k': 'v'}, projects=['p'])
    _server(admin, flavor)
    try:
        yield webtest.TestApp(fixture.app)
    finally:
        fixture.cleanUp()


def _server(context, flavor):
    """A server and a server group of project demo, so that routes find
    them.
    """
    builders.boot_server(context, SERVER, name='s', flavor=flavor,
                         user_id='demo', image_ref=None, vm_state='active',
                         metadata={'k': 'v'})
    recorder = nm_context.RequestContext(
        user_id='demo', project_id='demo', request_id=policy_routes.ACTION)
    instance_action.record(recorder, SERVER, instance_action.CREATE)
    objects.ServerGroup(context, uuid=policy_routes.GROUP, name='g',
                        policy='affinity', rules={}, project_id='demo',
                        user_id='demo').create()


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
    # Both in the server's project: another project's caller, which is no
    # administrator here, would not find it (test_default_policy_by_persona).
    for method, _doc, rule, path, body, version in ROUTES:
        for token in ('admin:demo', 'demo:demo'):
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
    body = {'server': {'name': 's', 'flavorRef': FLAVOR, 'imageRef': IMAGE,
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
          access_policies.LIST, access_policies.ADD, access_policies.REMOVE,
          quota_policies.UPDATE, quota_policies.DELETE}


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
        elif rule in ALLOWED_STATUS:
            assert member.status_int == ALLOWED_STATUS[rule], (
                method, path, member.body)
        else:
            # 202 for a boot, 204 for a delete.
            assert member.status_int in (200, 202, 204), (
                method, path, member.body)
    # The admin is allowed everywhere; the answers may still be errors
    # of the resource (a public flavor has no access list, say).
    for method, _doc, rule, path, body, version in ROUTES:
        response = _request(app, method, path, body, version)
        assert response.status_int != 403, (method, path, response.body)


# The compute routes by persona: Nova's answers under its default policy.
# A member (demo:demo) of the project owning the server and the group,
# which may use the private flavor; a reader of that project; a member of
# another project. What each may do succeeds; otherwise the status here
# (403 where the rule refuses, 404 where Nova does not find another
# project's server or a flavor the project may not use, 400 for a boot
# on such a flavor), 403 by default.
PERSONA_TOKENS = {'member': ('demo:demo', None),
                  'reader': ('rita:demo', 'reader'),
                  'other': ('eve:other', None)}
_READS = {flavor_policies.LIST, flavor_policies.SHOW, specs_policies.INDEX,
          specs_policies.SHOW, server_policies.INDEX, server_policies.SHOW,
          metadata_policies.INDEX, metadata_policies.SHOW,
          group_policies.INDEX, group_policies.SHOW,
          action_policies.LIST, action_policies.SHOW,
          quota_policies.SHOW, quota_policies.DETAIL}
# Anyone's own key pairs, the extension list, the default quotas and
# the limits of the caller's own project.
_OWN = {extension_policies.BASE, keypair_policies.CREATE,
        keypair_policies.INDEX, keypair_policies.SHOW,
        keypair_policies.DELETE, quota_policies.DEFAULTS,
        limit_policies.BASE}
_SERVER_ACTIONS = {server_action_policies.STOP, server_action_policies.START,
                   server_action_policies.REBOOT,
                   server_action_policies.REBUILD,
                   server_action_policies.LOCK, server_action_policies.UNLOCK,
                   server_action_policies.CREATE_IMAGE}
ALLOWED_STATUS = policy_routes.COMPUTE_ALLOWED_STATUS
_MEMBER_WRITES = {server_policies.CREATE, server_policies.UPDATE,
                  server_policies.DELETE, metadata_policies.CREATE,
                  metadata_policies.UPDATE_ALL, metadata_policies.UPDATE,
                  metadata_policies.DELETE, group_policies.CREATE,
                  group_policies.DELETE} | _SERVER_ACTIONS
PERSONA_ALLOWED = {
    'member': _READS | _MEMBER_WRITES | _OWN,
    'reader': _READS | _OWN,
    'other': {flavor_policies.LIST, server_policies.INDEX,
              group_policies.INDEX, group_policies.CREATE} | _OWN,
}
PERSONA_REFUSALS = {
    'other': {
        # GET /flavors/detail lists; the private flavor is not found.
        flavor_policies.SHOW: 404,
        specs_policies.INDEX: 404, specs_policies.SHOW: 404,
        server_policies.SHOW: 404, server_policies.UPDATE: 404,
        server_policies.DELETE: 404, server_policies.CREATE: 400,
        metadata_policies.INDEX: 404, metadata_policies.SHOW: 404,
        metadata_policies.CREATE: 404, metadata_policies.UPDATE_ALL: 404,
        metadata_policies.UPDATE: 404, metadata_policies.DELETE: 404,
        action_policies.LIST: 404, action_policies.SHOW: 404,
        **{rule: 404 for rule in _SERVER_ACTIONS},
        # Nova finds any group, then checks the rule on its project.
        group_policies.SHOW: 403, group_policies.DELETE: 403,
    },
}


def _persona_request(app, persona, method, path, body, version):
    token, roles = PERSONA_TOKENS[persona]
    headers = {'X-Auth-Token': token}
    if roles:
        headers['X-Roles'] = roles
    if version:
        headers['OpenStack-API-Version'] = 'compute %s' % version
    kwargs = {'headers': headers, 'expect_errors': True, 'method': method}
    if body is not None:
        kwargs['json'] = body
    return app.request(V21 + path, **kwargs)


def test_default_policy_by_persona(api_fixture_factory):
    """Walk every route as another project's member, a reader and a member
    of the owning project (last but one: it deletes), then an admin.
    """
    app = webtest.TestApp(api_fixture_factory().app)
    admin = nm_context.get_admin_context()
    flavor = builders.create_flavor(admin, FLAVOR, memory_mb=1, vcpus=1,
                                    root_gb=0, is_public=False,
                                    extra_specs={'k': 'v'},
                                    projects=['demo'])
    _server(admin, flavor)
    for persona in ('other', 'reader', 'member'):
        for method, _doc, rule, path, body, version in ROUTES:
            response = _persona_request(app, persona, method, path, body,
                                        version)
            if rule in PERSONA_ALLOWED[persona]:
                assert response.status_int in (
                    (ALLOWED_STATUS[rule],) if rule in ALLOWED_STATUS
                    else (200, 202, 204)), (
                    persona, method, path, response.body)
                continue
            expected = PERSONA_REFUSALS.get(persona, {}).get(rule, 403)
            assert response.status_int == expected, (
                persona, method, path, response.body)
            if expected == 403:
                assert rule in response.json['forbidden']['message']
    for method, _doc, rule, path, body, version in ROUTES:
        response = _request(app, method, path, body, version)
        assert response.status_int != 403, (method, path, response.body)
