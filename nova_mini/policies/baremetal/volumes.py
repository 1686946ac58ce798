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

"""Policies of volume connectors and volume targets, with Ironic's
names. A volume resource is its node's: the rules are checked against the
node's owner and lessee (as port rules are), and a project lists the
volume resources of the nodes it owns or leases. The node owner's members
change them; creating and deleting them is a system administrator's
(Ironic also lets the owner's and lessee's administrators). The properties
of a target (connection details, maybe credentials) are for system readers
and administrators, as in Ironic; others see them redacted.
"""

from oslo_policy import policy

from nova_mini.policies.baremetal import nodes
from nova_mini.policies import base

PREFIX = 'baremetal:volume:'
GET = PREFIX + 'get'
LIST = PREFIX + 'list'
LIST_ALL = PREFIX + 'list_all'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'
VIEW_TARGET_PROPERTIES = PREFIX + 'view_target_properties'

_CONNECTOR = '/volume/connectors/{volume_connector_id}'
_TARGET = '/volume/targets/{volume_target_id}'
_LIST = [{'method': 'GET', 'path': '/volume/connectors'},
         {'method': 'GET', 'path': '/volume/targets'},
         {'method': 'GET', 'path': '/nodes/{node_ident}/volume/connectors'},
         {'method': 'GET', 'path': '/nodes/{node_ident}/volume/targets'}]

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=nodes.ADMIN_OR_NODE_READER,
        description='Show the volume resources of a node, and the volume '
                    'links. One the caller may not see is not found (404).',
        operations=[{'method': 'GET', 'path': '/volume'},
                    {'method': 'GET', 'path': '/nodes/{node_ident}/volume'},
                    {'method': 'GET', 'path': _CONNECTOR},
                    {'method': 'GET', 'path': _TARGET}]),
    policy.DocumentedRuleDefault(
        name=LIST, check_str='role:reader or ' + base.SYSTEM_READER,
        description='List volume connectors and targets: those of the '
                    'nodes the caller\'s project owns or leases, unless '
                    'list_all allows all.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=LIST_ALL, check_str=base.SYSTEM_READER,
        description='List every volume connector and target.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create a volume connector or target of a node.',
        operations=[{'method': 'POST', 'path': '/volume/connectors'},
                    {'method': 'POST', 'path': '/volume/targets'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=nodes.ADMIN_OR_OWNER_MEMBER,
        description='Change a volume connector or target (members of the '
                    'node\'s owner too).',
        operations=[{'method': 'PATCH', 'path': _CONNECTOR},
                    {'method': 'PATCH', 'path': _TARGET}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Delete a volume connector or target.',
        operations=[{'method': 'DELETE', 'path': _CONNECTOR},
                    {'method': 'DELETE', 'path': _TARGET}]),
    policy.DocumentedRuleDefault(
        name=VIEW_TARGET_PROPERTIES,
        check_str=base.SYSTEM_READER + ' or role:admin',
        description='See the properties of volume targets; others see '
                    'them redacted.',
        operations=[{'method': 'GET', 'path': _TARGET},
                    {'method': 'GET', 'path': '/volume/targets'}]),
]


def list_rules():
    return rules
