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

"""Policies of port groups, with Ironic's names: as ports, a port group
is its node's (checked on the node's owner and lessee); system
administrators change them.
"""

from oslo_policy import policy

from nova_mini.policies.baremetal import nodes
from nova_mini.policies import base

PREFIX = 'baremetal:portgroup:'
GET = PREFIX + 'get'
LIST = PREFIX + 'list'
LIST_ALL = PREFIX + 'list_all'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_GROUP = '/portgroups/{portgroup_ident}'
_LIST = [{'method': 'GET', 'path': '/portgroups'},
         {'method': 'GET', 'path': '/portgroups/detail'},
         {'method': 'GET', 'path': '/nodes/{node_ident}/portgroups'},
         {'method': 'GET', 'path': '/nodes/{node_ident}/portgroups/detail'}]

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=nodes.ADMIN_OR_NODE_READER,
        description='Show a port group, and list its ports. A port group '
                    'the caller may not see is not found (404).',
        operations=[{'method': 'GET', 'path': _GROUP},
                    {'method': 'GET', 'path': _GROUP + '/ports'},
                    {'method': 'GET', 'path': _GROUP + '/ports/detail'}]),
    policy.DocumentedRuleDefault(
        name=LIST, check_str='role:reader or ' + base.SYSTEM_READER,
        description='List port groups: those of the nodes the caller\'s '
                    'project owns or leases, unless list_all allows all.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=LIST_ALL, check_str=base.SYSTEM_READER,
        description='List every port group.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create a port group of a node.',
        operations=[{'method': 'POST', 'path': '/portgroups'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.SYSTEM_ADMIN,
        description='Change a port group.',
        operations=[{'method': 'PATCH', 'path': _GROUP}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Delete a port group holding no port.',
        operations=[{'method': 'DELETE', 'path': _GROUP}]),
]


def list_rules():
    return rules
