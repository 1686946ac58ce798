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

"""Policy defaults in code: registration, documentation, defaults, and
the oslo.policy command line tools (route coverage:
api/test_verify_policy.py)."""

import os
import subprocess
import sys

from oslo_policy import _checks as oslo_checks
from oslo_policy import policy as oslo_policy
import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import policies
from nova_mini.policies.baremetal import allocations as allocation_policies
from nova_mini.policies.baremetal import chassis as chassis_policies
from nova_mini.policies.baremetal import conductors as conductor_policies
from nova_mini.policies.baremetal import deploy_templates as template_policies
from nova_mini.policies.baremetal import drivers as driver_policies
from nova_mini.policies.baremetal import events as event_policies
from nova_mini.policies.baremetal import node_traits as trait_policies
from nova_mini.policies.baremetal import node_vifs as vif_policies
from nova_mini.policies.baremetal import nodes as node_policies
from nova_mini.policies.baremetal import portgroups as portgroup_policies
from nova_mini.policies.baremetal import ports as port_policies
from nova_mini.policies.baremetal import ramdisk as ramdisk_policies
from nova_mini.policies.baremetal import vendor_passthru as vendor_policies
from nova_mini.policies.baremetal import volumes as volume_policies
from nova_mini.policies import base
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
from nova_mini import policy

BIN = os.path.dirname(sys.executable)

ADMIN_ONLY = [
    flavor_policies.CREATE, flavor_policies.UPDATE, flavor_policies.DELETE,
    specs_policies.CREATE, specs_policies.UPDATE, specs_policies.DELETE,
    access_policies.LIST, access_policies.ADD, access_policies.REMOVE,
    node_policies.CREATE, node_policies.DELETE, node_policies.LIST_ALL,
    node_policies.GET_FILTER_THRESHOLD, node_policies.UPDATE_DRIVER,
    node_policies.UPDATE_OWNER, node_policies.UPDATE_OWNER_PROVISIONED,
    trait_policies.SET, trait_policies.DELETE,
    node_policies.UPDATE_CHASSIS, node_policies.UPDATE_CONDUCTOR_GROUP,
    node_policies.DISABLE_CLEANING, chassis_policies.GET,
    chassis_policies.CREATE, chassis_policies.UPDATE,
    chassis_policies.DELETE, port_policies.LIST_ALL, port_policies.CREATE,
    port_policies.UPDATE, port_policies.DELETE,
    portgroup_policies.LIST_ALL, portgroup_policies.CREATE,
    portgroup_policies.UPDATE, portgroup_policies.DELETE,
    server_policies.EXTENDED_ATTRIBUTES, server_policies.CREATE_FORCED_HOST,
    server_policies.INDEX_ALL_TENANTS, server_policies.DETAIL_ALL_TENANTS,
    server_policies.ALLOW_ALL_FILTERS, group_policies.INDEX_ALL_PROJECTS,
    server_action_policies.UNLOCK_OVERRIDE, action_policies.EVENTS,
    action_policies.EVENTS_DETAILS, driver_policies.GET,
    driver_policies.GET_PROPERTIES, driver_policies.GET_RAID_PROPERTIES,
    allocation_policies.LIST_ALL, allocation_policies.CREATE,
    event_policies.POST,
    node_policies.INJECT_NMI, conductor_policies.GET,
    template_policies.GET, template_policies.CREATE,
    template_policies.UPDATE, template_policies.DELETE,
    volume_policies.LIST_ALL, volume_policies.CREATE,
    volume_policies.DELETE, volume_policies.VIEW_TARGET_PROPERTIES,
    vendor_policies.NODE, vendor_policies.DRIVER,
    quota_policies.UPDATE, quota_policies.DELETE,
    limit_policies.OTHER_PROJECT,
]
READERS = [specs_policies.INDEX, specs_policies.SHOW, node_policies.LIST,
           port_policies.LIST, portgroup_policies.LIST,
           server_policies.INDEX, server_policies.SHOW,
           metadata_policies.INDEX, metadata_policies.SHOW,
           group_policies.INDEX, group_policies.SHOW,
           action_policies.LIST, action_policies.SHOW,
           allocation_policies.LIST, allocation_policies.GET,
           volume_policies.LIST, quota_policies.SHOW,
           quota_policies.DETAIL]
MEMBERS = [server_policies.CREATE, server_policies.DELETE,
           server_policies.UPDATE, metadata_policies.CREATE,
           metadata_policies.UPDATE_ALL, metadata_policies.UPDATE,
           metadata_policies.DELETE, group_policies.CREATE,
           group_policies.DELETE, server_action_policies.STOP,
           server_action_policies.START, server_action_policies.REBOOT,
           server_action_policies.REBUILD,
           server_action_policies.CREATE_IMAGE, server_action_policies.LOCK,
           server_action_policies.UNLOCK,
           allocation_policies.CREATE_RESTRICTED,
           allocation_policies.UPDATE, allocation_policies.DELETE]
ANYONE = [flavor_policies.LIST, flavor_policies.SHOW,
          extension_policies.BASE, ramdisk_policies.LOOKUP,
          ramdisk_policies.HEARTBEAT, quota_policies.DEFAULTS,
          limit_policies.BASE]
# A user's own, or anyone's for an administrator (Nova's key pairs).
USER_OR_ADMIN = [keypair_policies.INDEX, keypair_policies.CREATE,
                 keypair_policies.DELETE, keypair_policies.SHOW]
# Node rules, on the node's owner and lessee (Ironic's defaults).
NODE_READERS = [node_policies.GET, node_policies.GET_STATES,
                trait_policies.LIST, port_policies.GET,
                portgroup_policies.GET, node_policies.GET_INDICATOR_STATE,
                node_policies.GET_BIOS, vif_policies.LIST,
                volume_policies.GET]
NODE_MEMBERS = [node_policies.UPDATE, node_policies.UPDATE_EXTRA,
                node_policies.SET_POWER_STATE]
OWNER_READERS = [node_policies.GET_LAST_ERROR, node_policies.GET_DRIVER_INFO,
                 node_policies.GET_DRIVER_INTERNAL_INFO]
OWNER_MEMBERS = [node_policies.UPDATE_INSTANCE_INFO,
                 node_policies.UPDATE_DRIVER_INFO,
                 node_policies.UPDATE_PROPERTIES,
                 node_policies.UPDATE_INSTANCE_UUID,
                 node_policies.UPDATE_NAME, node_policies.UPDATE_LESSEE,
                 node_policies.UPDATE_RETIRED, node_policies.VALIDATE,
                 node_policies.SET_PROVISION_STATE,
                 node_policies.SET_PROVISION_STATE_CLEAN_STEPS,
                 node_policies.GET_CONSOLE, node_policies.SET_CONSOLE_STATE,
                 node_policies.GET_BOOT_DEVICE,
                 node_policies.SET_BOOT_DEVICE,
                 node_policies.SET_INDICATOR_STATE,
                 node_policies.SET_RAID_STATE,
                 vif_policies.ATTACH, vif_policies.DETACH,
                 volume_policies.UPDATE]
NOBODY = [node_policies.SHOW_PASSWORD, node_policies.SHOW_INSTANCE_SECRETS]
NODE_RULES = NODE_READERS + NODE_MEMBERS + OWNER_READERS + OWNER_MEMBERS

# What the rules' checks may name besides other rules: the roles, and the
# credentials compared with the target (generic checks).
ROLES = {'reader', 'member', 'manager', 'admin'}
CREDENTIALS = {'project_id', 'user_id', 'system_scope', 'is_admin'}


def _ids(names):
    # NOTE: no ':' in test ids: gabbi's pytest plugin takes those for its
    # own tests.
    return [name.replace(':', '.') for name in names]


def _rules():
    return {rule.name: rule for rule in policies.list_rules()}


def test_rule_names_are_unique():
    names = [rule.name for rule in policies.list_rules()]
    assert len(names) == len(set(names))


def test_rules_are_documented():
    for rule in policies.list_rules():
        assert rule.description and rule.description.strip(), rule.name
    # The rules handlers check (every rule but the building blocks other
    # rules refer to) say which API operations they guard.
    building_blocks = {rule.name for rule in base.list_rules()}
    for name, rule in _rules().items():
        if name in building_blocks:
            continue
        assert isinstance(rule, oslo_policy.DocumentedRuleDefault), name
        assert rule.operations, name
        for operation in rule.operations:
            assert operation['method'] in ('GET', 'POST', 'PUT', 'DELETE',
                                           'PATCH')
            prefixes = ('/flavors', '/nodes', '/servers',
                        '/os-server-groups', '/chassis', '/ports',
                        '/extensions', '/os-keypairs',
                        '/portgroups', '/drivers', '/allocations',
                        '/deploy_templates',
                        '/conductors', '/lookup', '/heartbeat', '/events',
                        '/volume', '/os-quota-sets', '/limits')
            assert operation['path'].startswith(prefixes), name


def test_building_blocks_are_referenced():
    check_strings = ' '.join(rule.check_str
                             for rule in policies.list_rules())
    for rule in base.list_rules():
        if rule.name != 'context_is_admin':
            assert 'rule:%s' % rule.name in check_strings, rule.name


def _leaf_checks(check):
    """The checks a parsed rule is made of (without and, or, not)."""
    if isinstance(check, (oslo_checks.AndCheck, oslo_checks.OrCheck)):
        for part in check.rules:
            yield from _leaf_checks(part)
    elif isinstance(check, oslo_checks.NotCheck):
        yield from _leaf_checks(check.rule)
    else:
        yield check


def _unreadable_checks(check_str, names):
    """The checks of ``check_str`` (as strings) that are not what a rule
    may check.

    parse_rule does not raise on a check string it cannot read: it logs
    and answers a FalseCheck, which denies everyone (only "!" may mean
    that). A check of an unknown kind is a generic check comparing a
    credential nobody has. So every check must name a rule of ``names``,
    a role of ROLES or one of the CREDENTIALS.
    """
    parsed = oslo_policy._parser.parse_rule(check_str)
    if check_str == '!':
        return [] if isinstance(parsed, oslo_checks.FalseCheck) else [
            str(parsed)]
    unreadable = []
    for check in _leaf_checks(parsed):
        if isinstance(check, oslo_checks.RuleCheck):
            known = check.match in names
        elif isinstance(check, oslo_checks.RoleCheck):
            known = check.match in ROLES
        elif isinstance(check, oslo_checks.GenericCheck):
            known = check.kind in CREDENTIALS
        else:
            known = (isinstance(check, oslo_checks.TrueCheck) and
                     check_str in ('', '@'))
        if not known:
            unreadable.append(str(check))
    return unreadable


def test_check_strings_parse():
    names = set(_rules())
    for rule in policies.list_rules():
        assert _unreadable_checks(rule.check_str, names) == [], (
            rule.name, rule.check_str)


@pytest.mark.parametrize('check_str', [
    'rule:system_admin_api or', 'role admin', 'rule:system_admin_api and (',
    'rle:admin', 'role:admn', 'rule:no_such_rule', 'project:%(project_id)s',
    '@ or role:admin'])
def test_check_strings_that_do_not_parse_are_seen(check_str):
    assert _unreadable_checks(check_str, set(_rules()))


@pytest.mark.parametrize('name', ADMIN_ONLY, ids=_ids(ADMIN_ONLY))
def test_admin_only_defaults(name):
    if name.startswith('baremetal:'):
        # Ironic's: the system's administrators (and readers for reads).
        assert _rules()[name].check_str.startswith(
            (base.SYSTEM_ADMIN, base.SYSTEM_READER)), name
    else:
        assert _rules()[name].check_str == 'rule:context_is_admin'


def test_every_rule_has_an_expected_default():
    assert set(ADMIN_ONLY + READERS + MEMBERS + ANYONE + NODE_RULES +
               NOBODY + USER_OR_ADMIN) == (
        set(_rules()) - {rule.name for rule in base.list_rules()})


def _context(user, project, roles, system_scope=None):
    context = nm_context.RequestContext(user_id=user, project_id=project,
                                        roles=roles,
                                        system_scope=system_scope)
    context.is_admin = policy.check_is_admin(context)
    return context


def _own(context):
    return policy.own_target(context)


def _admin(contexts, name):
    # The administrator of the rule's API: Nova's is project scoped,
    # Ironic's system scoped (as noauth2's admin is on each).
    if name.startswith('baremetal:'):
        return contexts['system_admin']
    return contexts['admin']


@pytest.fixture
def contexts(conf, policy_reset):
    return {
        'admin': _context('admin', 'admin', ['admin', 'member', 'reader']),
        'system_admin': _context('admin', 'admin',
                                 ['admin', 'member', 'reader'], 'all'),
        'member': _context('demo', 'demo', ['member', 'reader']),
        'reader': _context('ro', 'ro', ['reader']),
        'nobody': _context('x', 'x', []),
    }


def test_is_admin_comes_from_policy(contexts):
    assert contexts['admin'].is_admin
    assert not contexts['member'].is_admin


@pytest.mark.parametrize('name', ADMIN_ONLY, ids=_ids(ADMIN_ONLY))
def test_members_are_denied_writes(contexts, name):
    assert _admin(contexts, name).can(name)
    for who in ('member', 'reader', 'nobody'):
        with pytest.raises(exception.PolicyNotAuthorized) as caught:
            contexts[who].can(name, _own(contexts[who]))
        assert caught.value.format_message() == (
            "Policy doesn't allow %s to be performed." % name)
        assert contexts[who].can(name, _own(contexts[who]),
                                 fatal=False) is False


@pytest.mark.parametrize('name', READERS, ids=_ids(READERS))
def test_readers_may_read_extra_specs(contexts, name):
    assert _admin(contexts, name).can(name, {'project_id': 'someone'})
    for who in ('member', 'reader'):
        assert contexts[who].can(name, _own(contexts[who]))
    assert contexts['nobody'].can(name, _own(contexts['nobody']),
                                  fatal=False) is False


@pytest.mark.parametrize('name', MEMBERS, ids=_ids(MEMBERS))
def test_members_may_boot_and_delete(contexts, name):
    assert _admin(contexts, name).can(name, {'project_id': 'someone'})
    assert contexts['member'].can(name, _own(contexts['member']))
    for who in ('reader', 'nobody'):
        assert contexts[who].can(name, _own(contexts[who]),
                                 fatal=False) is False


@pytest.mark.parametrize('name', ANYONE, ids=_ids(ANYONE))
def test_anyone_may_list_and_show(contexts, name):
    for who, context in contexts.items():
        if who != 'system_admin':   # Nova refuses system scope
            assert context.can(name)


def _node(context, owner=None, lessee=None):
    target = {'project_id': context.project_id, 'user_id': context.user_id}
    if owner:
        target['node.owner'] = owner
    if lessee:
        target['node.lessee'] = lessee
    return target


@pytest.mark.parametrize('name', NODE_RULES, ids=_ids(NODE_RULES))
def test_node_rules_follow_owner_and_lessee(contexts, name):
    member, reader = contexts['member'], contexts['reader']
    reads = name in NODE_READERS + OWNER_READERS
    by_lessee = name in NODE_READERS + NODE_MEMBERS
    admin = _admin(contexts, name)
    assert admin.can(name, _node(admin, 'p2', 'p3'))
    assert member.can(name, _node(member, owner='demo'))
    assert member.can(name, _node(member, lessee='demo'),
                      fatal=False) is by_lessee
    assert reader.can(name, _node(reader, owner='ro'), fatal=False) is reads
    # Nobody's node, or another project's.
    for target in (_node(member), _node(member, 'p2', 'p3')):
        assert member.can(name, target, fatal=False) is False


@pytest.mark.parametrize('name', NOBODY, ids=_ids(NOBODY))
def test_secrets_are_shown_to_nobody(contexts, name):
    for context in contexts.values():
        assert context.can(name, fatal=False) is False


def test_unregistered_rule_is_an_error(contexts):
    with pytest.raises(oslo_policy.PolicyNotRegistered):
        contexts['admin'].can('os_compute_api:no-such-rule')


def _run(*args):
    return subprocess.run(list(args), capture_output=True, text=True,
                          timeout=120, cwd=os.path.dirname(policies.__file__))


def test_sample_generator():
    result = _run(os.path.join(BIN, 'oslopolicy-sample-generator'),
                  '--namespace', 'nova_mini')
    assert result.returncode == 0, result.stderr
    for name, rule in _rules().items():
        assert '#"%s": "%s"' % (name, rule.check_str) in result.stdout


def test_policy_generator_uses_the_enforcer_entry_point():
    result = _run(os.path.join(BIN, 'oslopolicy-policy-generator'),
                  '--namespace', 'nova_mini')
    assert result.returncode == 0, result.stderr
    for name, rule in _rules().items():
        assert '"%s": "%s"' % (name, rule.check_str) in result.stdout


def test_sample_generator_config_file():
    repo = os.path.dirname(os.path.dirname(os.path.dirname(policies.__file__)))
    config = os.path.join(repo, 'etc', 'nova_mini',
                          'nova-mini-policy-generator.conf')
    if not os.path.exists(config):
        pytest.fail('%s is missing' % config)
    result = subprocess.run(
        [os.path.join(BIN, 'oslopolicy-sample-generator'), '--config-file',
         config, '--output-file', '/dev/stdout'],
        capture_output=True, text=True, timeout=120, cwd=repo)
    assert result.returncode == 0, result.stderr
    assert flavor_policies.CREATE in result.stdout


@pytest.mark.parametrize('name', USER_OR_ADMIN, ids=_ids(USER_OR_ADMIN))
def test_key_pairs_are_their_users(contexts, name):
    assert contexts['member'].can(name, {'user_id': 'demo'})
    assert contexts['admin'].can(name, {'user_id': 'someone'})
    with pytest.raises(exception.PolicyNotAuthorized):
        contexts['member'].can(name, {'user_id': 'someone'})
