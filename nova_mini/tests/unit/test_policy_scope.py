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

"""Targets and scopes: a missing target is nobody's, and the personas of
Ironic's secure RBAC (/baremetal/v1) and Nova's project-scoped rules
(/compute/v2.1), with ``[oslo_policy] enforce_new_defaults`` on (the
default) and off.
"""

import pytest
import webob

from nova_mini.api import auth
from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini.policies.baremetal import allocations as allocation_policies
from nova_mini.policies.baremetal import chassis as chassis_policies
from nova_mini.policies.baremetal import conductors as conductor_policies
from nova_mini.policies.baremetal import ports as port_policies
from nova_mini.policies.baremetal import volumes as volume_policies
from nova_mini.policies.compute import flavor_extra_specs as specs_policies
from nova_mini.policies.compute import flavors as flavor_policies
from nova_mini.policies.compute import servers as server_policies
from nova_mini import policy

OWNER, LESSEE, OTHER = 'p-owner', 'p-lessee', 'p-other'


def _context(project, roles, system_scope=None, user='u'):
    context = nm_context.RequestContext(
        user_id=user, project_id=project, roles=roles,
        system_scope=system_scope)
    context.is_admin = policy.check_is_admin(context)
    return context


PERSONAS = {
    'system_admin': lambda: _context(None, ['admin', 'member', 'reader'],
                                     'all'),
    'system_reader': lambda: _context(None, ['reader'], 'all'),
    'owner_admin': lambda: _context(OWNER, ['admin', 'member', 'reader']),
    'owner_member': lambda: _context(OWNER, ['member', 'reader']),
    'owner_reader': lambda: _context(OWNER, ['reader']),
    'lessee_member': lambda: _context(LESSEE, ['member', 'reader']),
    'other_admin': lambda: _context(OTHER, ['admin', 'member', 'reader']),
    'other_member': lambda: _context(OTHER, ['member', 'reader']),
}

# An allocation (or any object a project owns) of OWNER.
_OWNED = {'project_id': OWNER}
# A port of a node OWNER owns and LESSEE leases, seen by the caller.


def _port(context):
    return {'project_id': context.project_id, 'node.owner': OWNER,
            'node.lessee': LESSEE}


# rule, target (a function of the caller), who passes with the new
# defaults, and who the old check strings add (enforce_new_defaults =
# False: any project's admin was the bare-metal administrator).
_ALL = set(PERSONAS)
_ADMINS = {'system_admin', 'owner_admin', 'other_admin'}
_SYSTEM = {'system_admin', 'system_reader'}
CASES = [
    # Operator-only bare-metal resources: the system's, not a project's.
    (chassis_policies.CREATE, None, {'system_admin'}, _ADMINS),
    (chassis_policies.GET, None, _SYSTEM, _ADMINS),
    (conductor_policies.GET, None, _SYSTEM, _ADMINS),
    (port_policies.CREATE, _port, {'system_admin'}, _ADMINS),
    (port_policies.LIST_ALL, None, _SYSTEM, _ADMINS),
    # Owned by a project: the system, or the owner.
    (allocation_policies.GET, lambda c: _OWNED,
     _SYSTEM | {'owner_admin', 'owner_member', 'owner_reader'}, _ADMINS),
    (allocation_policies.UPDATE, lambda c: _OWNED,
     {'system_admin', 'owner_admin', 'owner_member'}, _ADMINS),
    # Ironic's: system readers, and any admin.
    (volume_policies.VIEW_TARGET_PROPERTIES, None, _SYSTEM | _ADMINS,
     set()),
    # Nova: project scoped; a project's admin is an admin, a system
    # scoped token is refused whatever its roles.
    (flavor_policies.CREATE, None, {'owner_admin', 'other_admin'}, set()),
    (flavor_policies.LIST, None, _ALL - _SYSTEM, set()),
    (server_policies.DELETE, lambda c: _OWNED,
     {'owner_admin', 'owner_member', 'other_admin'}, set()),
    (server_policies.INDEX_ALL_TENANTS, None, {'owner_admin', 'other_admin'},
     set()),
]


def _ids(cases):
    return [case[0].replace(':', '.') for case in cases]


def _outcomes(rule, target):
    allowed = set()
    for name, make in PERSONAS.items():
        context = make()
        if context.can(rule, target(context) if target else None,
                       fatal=False):
            allowed.add(name)
    return allowed


@pytest.mark.parametrize('rule,target,new,legacy', CASES, ids=_ids(CASES))
def test_personas_with_new_defaults(conf, policy_reset, rule, target, new,
                                    legacy):
    policy.get_enforcer()     # registers [oslo_policy]
    assert conf.conf.oslo_policy.enforce_new_defaults is True
    assert _outcomes(rule, target) == new


@pytest.mark.parametrize('rule,target,new,legacy', CASES, ids=_ids(CASES))
def test_personas_with_old_defaults(conf, policy_reset, rule, target, new,
                                    legacy):
    conf.config(enforce_new_defaults=False, group='oslo_policy')
    policy.reset()
    assert _outcomes(rule, target) == new | legacy


def test_a_project_admin_is_not_the_baremetal_admin(conf, policy_reset):
    # The heart of it, in words: an admin of one project may not create
    # the operator's chassis, a system-scoped admin may.
    with pytest.raises(exception.PolicyNotAuthorized):
        PERSONAS['other_admin']().can(chassis_policies.CREATE)
    assert PERSONAS['system_admin']().can(chassis_policies.CREATE)
    # is_admin stays Nova's: the compute API's administrator.
    assert PERSONAS['other_admin']().is_admin


def test_a_missing_target_is_nobodys(conf, policy_reset):
    member = PERSONAS['owner_member']()
    # A handler that forgot the object's owner passed every project rule
    # (the target became the caller's own project).
    for target in (None, {}):
        assert member.can(server_policies.DELETE, target,
                          fatal=False) is False
        assert member.can(specs_policies.INDEX, target, fatal=False) is False
    # Asked for explicitly, the caller's own is allowed.
    assert member.can(server_policies.DELETE, policy.own_target(member))
    assert policy.own_target(member) == {'project_id': OWNER,
                                         'user_id': 'u'}


def test_a_none_attribute_matches_nobody(conf, policy_reset):
    # A project-less caller (a system-scoped token) and a project-less
    # object: oslo.policy compares "None" with "None".
    projectless = _context(None, ['member', 'reader'])
    assert projectless.can(allocation_policies.UPDATE,
                           {'project_id': None}, fatal=False) is False


def test_scope_types_follow_the_api():
    from nova_mini import policies
    for rule in policies.list_rules():
        if rule.name.startswith('os_compute_api:'):
            assert rule.scope_types == ['project'], rule.name
        elif rule.name.startswith('baremetal:'):
            assert rule.scope_types == ['system', 'project'], rule.name


def _noauth2(path, headers):
    seen = {}

    def app(environ, start_response):
        seen.update(environ)
        return webob.Response()(environ, start_response)

    request = webob.Request.blank(path, headers=headers)
    request.get_response(auth.NoAuth2(app))
    return nm_context.RequestContext.from_environ(seen)


def test_noauth2_admin_is_system_scoped_on_baremetal_only():
    admin = {'X-Auth-Token': 'admin:admin'}
    context = _noauth2('/baremetal/v1/nodes', admin)
    assert (context.system_scope, context.project_id) == ('all', 'admin')
    context = _noauth2('/compute/v2.1/servers', admin)
    assert (context.system_scope, context.project_id) == (None, 'admin')


@pytest.mark.parametrize('header', ['OpenStack-System-Scope',
                                    'X-System-Scope'])
def test_noauth2_drops_a_claimed_system_scope(header):
    context = _noauth2('/baremetal/v1/nodes',
                       {'X-Auth-Token': 'demo:demo', header: 'all'})
    assert context.system_scope is None


def test_public_paths_drop_a_claimed_system_scope():
    seen = {}

    def public(environ, start_response):
        seen.update(environ)
        return webob.Response()(environ, start_response)

    app = auth.PublicPaths(public, None, ['/baremetal/'])
    request = webob.Request.blank(
        '/baremetal/', headers={'OpenStack-System-Scope': 'all'})
    request.get_response(app)
    assert 'HTTP_OPENSTACK_SYSTEM_SCOPE' not in seen
