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

"""Policies of allocations, with Ironic's names: an allocation belongs
to its ``owner`` project, whose members may create, change and delete
it (its readers see it); system administrators see and handle every
allocation (system readers see them), and may create one for any project
or none (``create_restricted`` is what lets a caller create only for its
own project, among the nodes it owns or leases).
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:allocation:'
GET = PREFIX + 'get'
LIST = PREFIX + 'list'
LIST_ALL = PREFIX + 'list_all'
CREATE = PREFIX + 'create'
CREATE_RESTRICTED = PREFIX + 'create_restricted'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_ALLOCATION = '/allocations/{allocation_id}'
_NODE_ALLOCATION = '/nodes/{node_ident}/allocation'

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.SYSTEM_OR_PROJECT_READER,
        description='Show an allocation (its owner\'s readers). One the '
                    'caller may not see is not found (404).',
        operations=[{'method': 'GET', 'path': _ALLOCATION},
                    {'method': 'GET', 'path': _NODE_ALLOCATION}]),
    policy.DocumentedRuleDefault(
        name=LIST, check_str='role:reader or ' + base.SYSTEM_READER,
        description='List allocations: those the caller\'s project owns, '
                    'unless list_all allows all.',
        operations=[{'method': 'GET', 'path': '/allocations'}]),
    policy.DocumentedRuleDefault(
        name=LIST_ALL, check_str=base.SYSTEM_READER,
        description='List every allocation.',
        operations=[{'method': 'GET', 'path': '/allocations'}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create an allocation for any project (or none), '
                    'among every node.',
        operations=[{'method': 'POST', 'path': '/allocations'}]),
    policy.DocumentedRuleDefault(
        name=CREATE_RESTRICTED, check_str='role:member',
        description='Create an allocation owned by the caller\'s project, '
                    'among the nodes it owns or leases.',
        operations=[{'method': 'POST', 'path': '/allocations'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
        description='Change the name and extra of an allocation.',
        operations=[{'method': 'PATCH', 'path': _ALLOCATION}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN_OR_PROJECT_MEMBER,
        description='Delete an allocation, freeing its node.',
        operations=[{'method': 'DELETE', 'path': _ALLOCATION},
                    {'method': 'DELETE', 'path': _NODE_ALLOCATION}]),
]


def list_rules():
    return rules
