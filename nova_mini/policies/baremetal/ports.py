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

"""Policies of ports, with Ironic's names. A port is its node's: the rules
are checked against the node's owner and lessee (as node rules are), and
a project lists the ports of the nodes it owns or leases. Changing ports
is a system administrator's (Ironic also lets the owner project's
administrators).
"""

from oslo_policy import policy

from nova_mini.policies.baremetal import nodes
from nova_mini.policies import base

PREFIX = 'baremetal:port:'
GET = PREFIX + 'get'
LIST = PREFIX + 'list'
LIST_ALL = PREFIX + 'list_all'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_PORT = '/ports/{port_id}'
_LIST = [{'method': 'GET', 'path': '/ports'},
         {'method': 'GET', 'path': '/ports/detail'},
         {'method': 'GET', 'path': '/nodes/{node_ident}/ports'},
         {'method': 'GET', 'path': '/nodes/{node_ident}/ports/detail'}]

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=nodes.ADMIN_OR_NODE_READER,
        description='Show a port. A port the caller may not see is not '
                    'found (404).',
        operations=[{'method': 'GET', 'path': _PORT}]),
    policy.DocumentedRuleDefault(
        name=LIST, check_str='role:reader or ' + base.SYSTEM_READER,
        description='List ports: those of the nodes the caller\'s project '
                    'owns or leases, unless list_all allows all.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=LIST_ALL, check_str=base.SYSTEM_READER,
        description='List every port.',
        operations=_LIST),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create a port of a node.',
        operations=[{'method': 'POST', 'path': '/ports'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.SYSTEM_ADMIN,
        description='Change a port.',
        operations=[{'method': 'PATCH', 'path': _PORT}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Delete a port.',
        operations=[{'method': 'DELETE', 'path': _PORT}]),
]


def list_rules():
    return rules
