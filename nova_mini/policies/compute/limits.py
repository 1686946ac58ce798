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

"""Policies of the limits resource, Nova's names and defaults."""

from oslo_policy import policy

from nova_mini.policies import base

BASE = 'os_compute_api:limits'
# Checked after BASE when ``tenant_id`` names another project.
OTHER_PROJECT = 'os_compute_api:limits:other_project'

rules = [
    policy.DocumentedRuleDefault(
        name=BASE, check_str=base.ANY,
        description="Show the limits and usage of the caller's project.",
        operations=[{'method': 'GET', 'path': '/limits'}]),
    policy.DocumentedRuleDefault(
        name=OTHER_PROJECT, check_str=base.ADMIN,
        description='Show the limits and usage of another project '
                    '(tenant_id).',
        operations=[{'method': 'GET', 'path': '/limits'}]),
]


def list_rules():
    return rules
