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

"""Policy of the extensions list (/extensions): Nova's name, anyone."""

from oslo_policy import policy

from nova_mini.policies import base

BASE = 'os_compute_api:extensions'

rules = [
    policy.DocumentedRuleDefault(
        name=BASE, check_str=base.ANY,
        description='List the API extensions or show one by its alias.',
        operations=[{'method': 'GET', 'path': '/extensions'},
                    {'method': 'GET', 'path': '/extensions/{alias}'}]),
]


def list_rules():
    return rules
