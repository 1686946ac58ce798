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

"""Policies of chassis, with Ironic's names: chassis belong to the
operator (Ironic's system scope).
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:chassis:'
GET = PREFIX + 'get'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_CHASSIS = '/chassis/{chassis_id}'

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.SYSTEM_READER,
        description='List and show chassis, and the nodes of one.',
        operations=[{'method': 'GET', 'path': '/chassis'},
                    {'method': 'GET', 'path': '/chassis/detail'},
                    {'method': 'GET', 'path': _CHASSIS},
                    {'method': 'GET', 'path': _CHASSIS + '/nodes'}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create a chassis.',
        operations=[{'method': 'POST', 'path': '/chassis'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.SYSTEM_ADMIN,
        description='Change a chassis.',
        operations=[{'method': 'PATCH', 'path': _CHASSIS}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Delete a chassis holding no node.',
        operations=[{'method': 'DELETE', 'path': _CHASSIS}]),
]


def list_rules():
    return rules
