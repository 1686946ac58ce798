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

"""Policies of bare-metal nodes, with Ironic's names and its project
scoping: system administrators may do anything (system readers see
everything); a project sees the nodes it owns (``owner``) or leases
(``lessee``), its members change some of them.

The node rules are checked against a target holding ``node.owner`` and
``node.lessee`` (absent when the node has none, so that no project
matches them): see ``project_target`` and ``authorize`` in
``api/baremetal/lookup.py``.
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:node:'
LIST = PREFIX + 'list'
LIST_ALL = PREFIX + 'list_all'
GET = PREFIX + 'get'
# Who sees a node's body unfiltered; the others are checked against
# the rules of the fields filtered (GET_LAST_ERROR, GET_DRIVER_INFO,
# GET_DRIVER_INTERNAL_INFO).
GET_FILTER_THRESHOLD = PREFIX + 'get:filter_threshold'
GET_LAST_ERROR = PREFIX + 'get:last_error'
GET_DRIVER_INFO = PREFIX + 'get:driver_info'
GET_DRIVER_INTERNAL_INFO = PREFIX + 'get:driver_internal_info'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
UPDATE_EXTRA = PREFIX + 'update_extra'
UPDATE_INSTANCE_INFO = PREFIX + 'update_instance_info'
UPDATE_DRIVER_INFO = PREFIX + 'update:driver_info'
UPDATE_PROPERTIES = PREFIX + 'update:properties'
UPDATE_INSTANCE_UUID = PREFIX + 'update:instance_uuid'
UPDATE_NAME = PREFIX + 'update:name'
UPDATE_DRIVER = PREFIX + 'update:driver_interfaces'
UPDATE_OWNER = PREFIX + 'update:owner'
UPDATE_LESSEE = PREFIX + 'update:lessee'
UPDATE_CHASSIS = PREFIX + 'update:chassis_uuid'
UPDATE_CONDUCTOR_GROUP = PREFIX + 'update:conductor_group'
# retired and retired_reason.
UPDATE_RETIRED = PREFIX + 'update:retired'
# A patch turning automated_clean off (on is a generic update).
DISABLE_CLEANING = PREFIX + 'disable_cleaning'
UPDATE_OWNER_PROVISIONED = PREFIX + 'update_owner_provisioned'
DELETE = PREFIX + 'delete'
VALIDATE = PREFIX + 'validate'
GET_STATES = PREFIX + 'get_states'
SET_PROVISION_STATE = PREFIX + 'set_provision_state'
# Checked besides SET_PROVISION_STATE when clean steps are given.
SET_PROVISION_STATE_CLEAN_STEPS = SET_PROVISION_STATE + ':clean_steps'
SET_POWER_STATE = PREFIX + 'set_power_state'
GET_CONSOLE = PREFIX + 'get_console'
SET_CONSOLE_STATE = PREFIX + 'set_console_state'
GET_BOOT_DEVICE = PREFIX + 'get_boot_device'
SET_BOOT_DEVICE = PREFIX + 'set_boot_device'
SET_RAID_STATE = PREFIX + 'set_raid_state'
INJECT_NMI = PREFIX + 'inject_nmi'
GET_INDICATOR_STATE = PREFIX + 'get_indicator_state'
SET_INDICATOR_STATE = PREFIX + 'set_indicator_state'
GET_BIOS = PREFIX + 'bios:get'
# Not node rules: whether secrets in driver_info and instance_info are
# shown (Ironic's names; nobody by default).
SHOW_PASSWORD = 'show_password'
SHOW_INSTANCE_SECRETS = 'show_instance_secrets'

# Check strings on the node's projects.
NODE_READER = ('role:reader and (project_id:%(node.owner)s or '
               'project_id:%(node.lessee)s)')
NODE_MEMBER = ('role:member and (project_id:%(node.owner)s or '
               'project_id:%(node.lessee)s)')
OWNER_READER = 'role:reader and project_id:%(node.owner)s'
OWNER_MEMBER = 'role:member and project_id:%(node.owner)s'
# A project administrator (or manager, Keystone's role between admin and
# member) of the node's owner, or of its lessee: Ironic lets them change
# the driver interfaces (owner) and instance_info (lessee).
OWNER_ADMIN = '(role:admin or role:manager) and project_id:%(node.owner)s'
LESSEE_ADMIN = '(role:admin or role:manager) and project_id:%(node.lessee)s'
ADMIN_OR_NODE_READER = '%s or (%s)' % (base.SYSTEM_READER, NODE_READER)
ADMIN_OR_NODE_MEMBER = '%s or (%s)' % (base.SYSTEM_ADMIN, NODE_MEMBER)
ADMIN_OR_OWNER_READER = '%s or (%s)' % (base.SYSTEM_READER, OWNER_READER)
ADMIN_OR_OWNER_MEMBER = '%s or (%s)' % (base.SYSTEM_ADMIN, OWNER_MEMBER)

_NODE = '/nodes/{node_ident}'
_LIST = [{'method': 'GET', 'path': '/nodes'},
         {'method': 'GET', 'path': '/nodes/detail'}]
_SHOW = [{'method': 'GET', 'path': _NODE}]
_PATCH = [{'method': 'PATCH', 'path': _NODE}]


def _patch_rule(name, check_str, what):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str,
        description='Change %s of a node with a patch.' % what,
        operations=_PATCH)


rules = [
    policy.DocumentedRuleDefault(
        name=SHOW_PASSWORD, check_str='!',
        description='Show the secrets of node driver_info (passwords, '
                    'keys) rather than "******". Use with the utmost care.',
        operations=_SHOW + _LIST),
    policy.DocumentedRuleDefault(
        name=SHOW_INSTANCE_SECRETS, check_str='!',
        description='Show the secrets of node instance_info (passwords, '
                    'config drive, image URL) rather than "******". Use '
                    'with the utmost care.',
        operations=_SHOW + _LIST),
    policy.DocumentedRuleDefault(
        name=LIST, check_str='role:reader or ' + base.SYSTEM_READER,
        description='List nodes, briefly or in detail: those the caller\'s '
                    'project owns or leases, unless list_all allows all.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=LIST_ALL, check_str=base.SYSTEM_READER,
        description='List every node, and filter lists by any project.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=GET, check_str=ADMIN_OR_NODE_READER,
        description='Show one node. A node the caller may not see is not '
                    'found (404), whatever the route.',
        operations=_SHOW),
    policy.DocumentedRuleDefault(
        name=GET_FILTER_THRESHOLD, check_str=base.SYSTEM_READER,
        description='See node bodies unfiltered; the others get '
                    'last_error and driver_info only if the rules below '
                    'allow them.',
        operations=_SHOW),
    policy.DocumentedRuleDefault(
        name=GET_LAST_ERROR, check_str=ADMIN_OR_OWNER_READER,
        description='See the last_error of a node (else redacted).',
        operations=_SHOW),
    policy.DocumentedRuleDefault(
        name=GET_DRIVER_INFO, check_str=ADMIN_OR_OWNER_READER,
        description='See the driver_info of a node (else redacted).',
        operations=_SHOW),
    policy.DocumentedRuleDefault(
        name=GET_DRIVER_INTERNAL_INFO, check_str=ADMIN_OR_OWNER_READER,
        description='See the driver_internal_info of a node (else '
                    'redacted).',
        operations=_SHOW),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create a node.',
        operations=[{'method': 'POST', 'path': '/nodes'}]),
    _patch_rule(UPDATE, ADMIN_OR_NODE_MEMBER,
                'the fields no other rule below names (maintenance, '
                'resource_class, description, protected, '
                'automated_clean set to true or removed)'),
    _patch_rule(UPDATE_EXTRA, ADMIN_OR_NODE_MEMBER, 'extra'),
    _patch_rule(UPDATE_INSTANCE_INFO,
                '%s or (%s)' % (ADMIN_OR_OWNER_MEMBER, LESSEE_ADMIN),
                'instance_info'),
    _patch_rule(UPDATE_DRIVER_INFO, ADMIN_OR_OWNER_MEMBER, 'driver_info'),
    _patch_rule(UPDATE_PROPERTIES, ADMIN_OR_OWNER_MEMBER, 'properties'),
    _patch_rule(UPDATE_INSTANCE_UUID, ADMIN_OR_OWNER_MEMBER,
                'instance_uuid'),
    _patch_rule(UPDATE_NAME, ADMIN_OR_OWNER_MEMBER, 'the name'),
    _patch_rule(UPDATE_DRIVER, '%s or (%s)' % (base.SYSTEM_ADMIN, OWNER_ADMIN),
                'the driver and the hardware interfaces'),
    _patch_rule(UPDATE_CHASSIS, base.SYSTEM_ADMIN, 'the chassis'),
    _patch_rule(UPDATE_OWNER, base.SYSTEM_ADMIN, 'the owner'),
    _patch_rule(UPDATE_LESSEE, ADMIN_OR_OWNER_MEMBER, 'the lessee'),
    _patch_rule(UPDATE_CONDUCTOR_GROUP, base.SYSTEM_ADMIN,
                'the conductor group (which conductors manage it)'),
    _patch_rule(UPDATE_RETIRED, ADMIN_OR_OWNER_MEMBER,
                'retired and retired_reason'),
    _patch_rule(DISABLE_CLEANING, base.SYSTEM_ADMIN,
                'automated_clean to false (no cleaning between tenants)'),
    _patch_rule(UPDATE_OWNER_PROVISIONED, base.SYSTEM_ADMIN,
                'the owner while it is active (else 409)'),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Delete a node.',
        operations=[{'method': 'DELETE', 'path': _NODE}]),
    policy.DocumentedRuleDefault(
        name=VALIDATE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Validate the interfaces of a node (and the traits its '
                    'instance asks for).',
        operations=[{'method': 'GET', 'path': _NODE + '/validate'}]),
    policy.DocumentedRuleDefault(
        name=GET_STATES, check_str=ADMIN_OR_NODE_READER,
        description='Show the states of a node.',
        operations=[{'method': 'GET', 'path': _NODE + '/states'}]),
    policy.DocumentedRuleDefault(
        name=SET_PROVISION_STATE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Change the provision state of a node (deploy, '
                    'undeploy, manage, provide, clean, ...).',
        operations=[{'method': 'PUT',
                     'path': _NODE + '/states/provision'}]),
    # Ironic's default lets lessee administrators run steps too.
    policy.DocumentedRuleDefault(
        name=SET_PROVISION_STATE_CLEAN_STEPS, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Run clean steps on a node (manual cleaning: the clean '
                    'target with clean_steps), besides set_provision_state.',
        operations=[{'method': 'PUT',
                     'path': _NODE + '/states/provision'}]),
    policy.DocumentedRuleDefault(
        name=SET_POWER_STATE, check_str=ADMIN_OR_NODE_MEMBER,
        description='Power a node on or off, or reboot it.',
        operations=[{'method': 'PUT', 'path': _NODE + '/states/power'}]),
    policy.DocumentedRuleDefault(
        name=GET_CONSOLE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Show whether the console of a node is enabled, and '
                    'how to reach it.',
        operations=[{'method': 'GET', 'path': _NODE + '/states/console'}]),
    policy.DocumentedRuleDefault(
        name=SET_CONSOLE_STATE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Enable or disable the console of a node.',
        operations=[{'method': 'PUT', 'path': _NODE + '/states/console'}]),
    policy.DocumentedRuleDefault(
        name=GET_BOOT_DEVICE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Show the boot device of a node, and those it '
                    'supports.',
        operations=[
            {'method': 'GET', 'path': _NODE + '/management/boot_device'},
            {'method': 'GET',
             'path': _NODE + '/management/boot_device/supported'}]),
    policy.DocumentedRuleDefault(
        name=SET_BOOT_DEVICE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Set the boot device of a node.',
        operations=[{'method': 'PUT',
                     'path': _NODE + '/management/boot_device'}]),
    policy.DocumentedRuleDefault(
        name=SET_RAID_STATE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Set the target RAID configuration of a node.',
        operations=[{'method': 'PUT', 'path': _NODE + '/states/raid'}]),
    # Ironic also lets the owner's project administrators inject an NMI.
    policy.DocumentedRuleDefault(
        name=INJECT_NMI, check_str=base.SYSTEM_ADMIN,
        description='Inject a non-maskable interrupt into a node.',
        operations=[{'method': 'PUT',
                     'path': _NODE + '/management/inject_nmi'}]),
    policy.DocumentedRuleDefault(
        name=GET_INDICATOR_STATE, check_str=ADMIN_OR_NODE_READER,
        description='List the indicators (LEDs) of a node, and show the '
                    'state of one.',
        operations=[
            {'method': 'GET', 'path': _NODE + '/management/indicators'},
            {'method': 'GET',
             'path': _NODE + '/management/indicators/{indicator_ident}'}]),
    policy.DocumentedRuleDefault(
        name=SET_INDICATOR_STATE, check_str=ADMIN_OR_OWNER_MEMBER,
        description='Turn an indicator (LED) of a node on or off, or make '
                    'it blink.',
        operations=[{
            'method': 'PUT',
            'path': _NODE + '/management/indicators/{indicator_ident}'}]),
    policy.DocumentedRuleDefault(
        name=GET_BIOS, check_str=ADMIN_OR_NODE_READER,
        description='List the BIOS settings of a node, and show one.',
        operations=[{'method': 'GET', 'path': _NODE + '/bios'},
                    {'method': 'GET',
                     'path': _NODE + '/bios/{setting_name}'}]),
]


def list_rules():
    return rules
