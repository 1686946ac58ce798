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

"""Policies of drivers (hardware types), with Ironic's names: what the
conductors drive is the operator's to read (Ironic's system scope, an
administrator here).
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:driver:'
GET = PREFIX + 'get'
GET_PROPERTIES = PREFIX + 'get_properties'
GET_RAID_PROPERTIES = PREFIX + 'get_raid_logical_disk_properties'

_DRIVER = '/drivers/{driver_name}'

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.SYSTEM_READER,
        description='List and show drivers.',
        operations=[{'method': 'GET', 'path': '/drivers'},
                    {'method': 'GET', 'path': _DRIVER}]),
    policy.DocumentedRuleDefault(
        name=GET_PROPERTIES, check_str=base.SYSTEM_READER,
        description='Show the node properties a driver reads.',
        operations=[{'method': 'GET', 'path': _DRIVER + '/properties'}]),
    policy.DocumentedRuleDefault(
        name=GET_RAID_PROPERTIES, check_str=base.SYSTEM_READER,
        description='Show the logical disk properties of a driver.',
        operations=[{'method': 'GET',
                     'path': _DRIVER + '/raid/logical_disk_properties'}]),
]


def list_rules():
    return rules
