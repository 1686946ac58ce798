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

"""Policies of the access list of private flavors."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:os-flavor-access'
LIST = PREFIX
ADD = PREFIX + ':add_tenant_access'
REMOVE = PREFIX + ':remove_tenant_access'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.ADMIN,
        description='List the projects that may use a private flavor.',
        operations=[{'method': 'GET',
                     'path': '/flavors/{flavor_id}/os-flavor-access'}]),
    policy.DocumentedRuleDefault(
        name=ADD, check_str=base.ADMIN,
        description='Let a project use a private flavor.',
        operations=[{'method': 'POST',
                     'path': '/flavors/{flavor_id}/action (addTenantAccess)'}]),
    policy.DocumentedRuleDefault(
        name=REMOVE, check_str=base.ADMIN,
        description='Stop a project from using a private flavor.',
        operations=[{'method': 'POST',
                     'path': '/flavors/{flavor_id}/action '
                             '(removeTenantAccess)'}]),
]


def list_rules():
    return rules
