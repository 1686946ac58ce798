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

"""Policies of the endpoints a deploy or rescue ramdisk calls, with
Ironic's names: public (the ramdisk has no credentials; its paths skip
authentication, see nova_mini.api.app).
"""

from oslo_policy import policy

LOOKUP = 'baremetal:driver:ipa_lookup'
HEARTBEAT = 'baremetal:node:ipa_heartbeat'

rules = [
    policy.DocumentedRuleDefault(
        name=LOOKUP, check_str='',
        description='Look a node up by its MAC addresses or uuid, as its '
                    'ramdisk does (public).',
        operations=[{'method': 'GET', 'path': '/lookup'}]),
    policy.DocumentedRuleDefault(
        name=HEARTBEAT, check_str='',
        description='Receive the heartbeat of a node\'s ramdisk (public).',
        operations=[{'method': 'POST', 'path': '/heartbeat/{node_ident}'}]),
]


def list_rules():
    return rules
