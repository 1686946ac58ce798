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

"""Policies of key pairs (os-keypairs): Nova's names and defaults, a
user's own key pairs, or anyone's for an administrator (``user_id``
from 2.10).
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:os-keypairs:'
INDEX = PREFIX + 'index'
CREATE = PREFIX + 'create'
DELETE = PREFIX + 'delete'
SHOW = PREFIX + 'show'

_OWNER_OR_ADMIN = '(' + base.ADMIN + ') or user_id:%(user_id)s'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=_OWNER_OR_ADMIN,
        description='List the key pairs of a user.',
        operations=[{'method': 'GET', 'path': '/os-keypairs'}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=_OWNER_OR_ADMIN,
        description='Import or generate a key pair.',
        operations=[{'method': 'POST', 'path': '/os-keypairs'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=_OWNER_OR_ADMIN,
        description='Delete a key pair.',
        operations=[{'method': 'DELETE',
                     'path': '/os-keypairs/{keypair_name}'}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=_OWNER_OR_ADMIN,
        description='Show a key pair.',
        operations=[{'method': 'GET',
                     'path': '/os-keypairs/{keypair_name}'}]),
]


def list_rules():
    return rules
