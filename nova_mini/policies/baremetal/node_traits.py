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

"""Policies of a bare-metal node's traits, with Ironic's names: who
sees the node sees its traits; administrators change them.
"""

from oslo_policy import policy

from nova_mini.policies.baremetal import nodes
from nova_mini.policies import base

PREFIX = 'baremetal:node:traits:'
LIST = PREFIX + 'list'
SET = PREFIX + 'set'
DELETE = PREFIX + 'delete'

_PATH = '/nodes/{node_ident}/traits'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=nodes.ADMIN_OR_NODE_READER,
        description='List the traits of a node.',
        operations=[{'method': 'GET', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=SET, check_str=base.SYSTEM_ADMIN,
        description='Replace the traits of a node, or add one.',
        operations=[{'method': 'PUT', 'path': _PATH},
                    {'method': 'PUT', 'path': _PATH + '/{trait}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Remove one or all traits of a node.',
        operations=[{'method': 'DELETE', 'path': _PATH},
                    {'method': 'DELETE', 'path': _PATH + '/{trait}'}]),
]


def list_rules():
    return rules
