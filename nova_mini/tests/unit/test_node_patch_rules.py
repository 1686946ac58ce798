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

"""Who may patch each node field under the default policy, Ironic 39's
defaults with its secure RBAC personas (the project administrators
included, which noauth2 cannot make on /baremetal).
"""

import pytest

from nova_mini.api.baremetal import node_patch
from nova_mini import context as nm_context
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.policies.baremetal import nodes as policies

OWNER, LESSEE, OTHER = 'p-owner', 'p-lessee', 'p-other'
ADMIN_ROLES = ['admin', 'member', 'reader']
MEMBER_ROLES = ['member', 'reader']
PERSONAS = {
    'system admin': (None, ADMIN_ROLES, 'all'),
    'system reader': (None, ['reader'], 'all'),
    'owner admin': (OWNER, ADMIN_ROLES, None),
    'owner manager': (OWNER, ['manager', 'member', 'reader'], None),
    'owner member': (OWNER, MEMBER_ROLES, None),
    'owner reader': (OWNER, ['reader'], None),
    'lessee admin': (LESSEE, ADMIN_ROLES, None),
    'lessee member': (LESSEE, MEMBER_ROLES, None),
    'other admin': (OTHER, ADMIN_ROLES, None),
    'other member': (OTHER, MEMBER_ROLES, None),
}
# Ironic 39's defaults (its system members are the system's
# administrators here).
_SYSTEM = {'system admin'}
_OWNER_ADMINS = _SYSTEM | {'owner admin', 'owner manager'}
_OWNER_MEMBERS = _OWNER_ADMINS | {'owner member'}
_NODE_MEMBERS = _OWNER_MEMBERS | {'lessee admin', 'lessee member'}
EXPECTED = {
    ('name', 'x'): _OWNER_MEMBERS,
    ('driver', 'fake-hardware'): _OWNER_ADMINS,
    ('driver_info', 'x'): _OWNER_MEMBERS,
    ('extra', 'x'): _NODE_MEMBERS,
    ('properties', 'x'): _OWNER_MEMBERS,
    ('resource_class', 'x'): _NODE_MEMBERS,
    ('instance_info', 'x'): _OWNER_MEMBERS | {'lessee admin'},
    ('instance_uuid', None): _OWNER_MEMBERS,
    ('maintenance', True): _NODE_MEMBERS,
    ('owner', 'x'): _SYSTEM,
    ('lessee', 'x'): _OWNER_MEMBERS,
    ('chassis_uuid', None): _SYSTEM,
    ('automated_clean', False): _SYSTEM,
    ('automated_clean', 'false'): _SYSTEM,
    ('automated_clean', True): _NODE_MEMBERS,
    ('conductor_group', 'x'): _SYSTEM,
    ('description', 'x'): _NODE_MEMBERS,
    ('protected', True): _NODE_MEMBERS,
    ('protected_reason', 'x'): _NODE_MEMBERS,
    ('retired', True): _OWNER_MEMBERS,
    ('retired_reason', 'x'): _OWNER_MEMBERS,
    **{(name, 'fake'): _OWNER_ADMINS for name in node_interfaces.FIELDS},
}


def test_every_patchable_field_is_expected():
    assert {field for field, _value in EXPECTED} == set(
        node_patch.PATCHABLE)


def _can(persona, rule):
    project, roles, system_scope = PERSONAS[persona]
    context = nm_context.RequestContext(
        user_id='u', project_id=project, roles=roles,
        system_scope=system_scope)
    target = {'project_id': project, 'user_id': 'u', 'node.owner': OWNER,
              'node.lessee': LESSEE}
    return context.can(rule, target, fatal=False)


@pytest.mark.parametrize('field, value', sorted(EXPECTED, key=str),
                         ids=['%s=%s' % case for case in sorted(EXPECTED,
                                                                key=str)])
def test_default_field_rules(conf, policy_reset, field, value):
    # Only automated_clean's rule depends on the value: the others get a
    # string, the field's type does not matter to the rule.
    rule = node_patch.operation_rule(
        field, {'op': 'replace', 'path': '/' + field, 'value': value})
    allowed = {persona for persona in PERSONAS if _can(persona, rule)}
    assert allowed == EXPECTED[field, value], rule


def test_removal_of_automated_clean_is_a_generic_update():
    # As in Ironic: only a false value disables cleaning.
    assert node_patch.operation_rule(
        'automated_clean',
        {'op': 'remove', 'path': '/automated_clean'}) == policies.UPDATE
