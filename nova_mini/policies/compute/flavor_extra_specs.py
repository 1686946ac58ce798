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

"""Policies of a flavor's extra specs (os-extra_specs)."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:os-flavor-extra-specs:'
INDEX = PREFIX + 'index'
SHOW = PREFIX + 'show'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_PATH = '/flavors/{flavor_id}/os-extra_specs'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the extra specs of a flavor; also decides whether '
                    'flavor bodies (microversion 2.61 and later) include '
                    'them.',
        operations=[{'method': 'GET', 'path': _PATH},
                    {'method': 'GET', 'path': '/flavors/detail'},
                    {'method': 'GET', 'path': '/flavors/{flavor_id}'}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one extra spec of a flavor.',
        operations=[{'method': 'GET', 'path': _PATH + '/{key}'}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.ADMIN,
        description='Add or replace extra specs of a flavor.',
        operations=[{'method': 'POST', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN,
        description='Replace one extra spec of a flavor.',
        operations=[{'method': 'PUT', 'path': _PATH + '/{key}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Delete one extra spec of a flavor.',
        operations=[{'method': 'DELETE', 'path': _PATH + '/{key}'}]),
]


def list_rules():
    return rules
