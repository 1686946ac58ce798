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

"""Policies of the flavors resource."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:'
LIST = PREFIX + 'flavors:index'
SHOW = PREFIX + 'flavors:show'
CREATE = PREFIX + 'os-flavor-manage:create'
UPDATE = PREFIX + 'os-flavor-manage:update'
DELETE = PREFIX + 'os-flavor-manage:delete'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.ANY,
        description='List flavors, briefly or in detail.',
        operations=[{'method': 'GET', 'path': '/flavors'},
                    {'method': 'GET', 'path': '/flavors/detail'}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.ANY,
        description='Show one flavor.',
        operations=[{'method': 'GET', 'path': '/flavors/{flavor_id}'}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.ADMIN,
        description='Create a flavor.',
        operations=[{'method': 'POST', 'path': '/flavors'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN,
        description='Change the description of a flavor.',
        operations=[{'method': 'PUT', 'path': '/flavors/{flavor_id}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Delete a flavor.',
        operations=[{'method': 'DELETE', 'path': '/flavors/{flavor_id}'}]),
]


def list_rules():
    return rules
