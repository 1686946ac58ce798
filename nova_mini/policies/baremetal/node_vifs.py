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

"""Policies of a bare-metal node's VIFs, with Ironic's names: who sees
the node lists them; members of its owner (and administrators) attach
and detach them.
"""

from oslo_policy import policy

from nova_mini.policies.baremetal import nodes

PREFIX = 'baremetal:node:vif:'
LIST = PREFIX + 'list'
ATTACH = PREFIX + 'attach'
DETACH = PREFIX + 'detach'

_PATH = '/nodes/{node_ident}/vifs'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=nodes.ADMIN_OR_NODE_READER,
        description='List the VIFs attached to a node.',
        operations=[{'method': 'GET', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=ATTACH, check_str=nodes.ADMIN_OR_OWNER_MEMBER,
        description='Attach a VIF to a node.',
        operations=[{'method': 'POST', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=DETACH, check_str=nodes.ADMIN_OR_OWNER_MEMBER,
        description='Detach a VIF from a node.',
        operations=[{'method': 'DELETE', 'path': _PATH + '/{node_vif_ident}'}]),
]


def list_rules():
    return rules
