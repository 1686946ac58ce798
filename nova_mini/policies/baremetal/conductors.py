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

"""Policies of conductors, with Ironic's name: the services doing the
conductors' work are the operator's to read (Ironic's system scope, an
administrator here).
"""

from oslo_policy import policy

from nova_mini.policies import base

GET = 'baremetal:conductor:get'

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.SYSTEM_READER,
        description='List and show conductors.',
        operations=[{'method': 'GET', 'path': '/conductors'},
                    {'method': 'GET', 'path': '/conductors/{hostname}'}]),
]


def list_rules():
    return rules
