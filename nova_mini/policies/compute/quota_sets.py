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

"""Policies of the quota sets resource (os-quota-sets), Nova's names and
defaults: a project's readers see its quotas, anyone the defaults, only
an administrator changes them."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:os-quota-sets:'
SHOW = PREFIX + 'show'
DETAIL = PREFIX + 'detail'
DEFAULTS = PREFIX + 'defaults'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_PATH = '/os-quota-sets/{tenant_id}'

rules = [
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description="Show a project's quotas.",
        operations=[{'method': 'GET', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=DETAIL, check_str=base.PROJECT_READER_OR_ADMIN,
        description="Show a project's quotas with what it uses of them.",
        operations=[{'method': 'GET', 'path': _PATH + '/detail'}]),
    policy.DocumentedRuleDefault(
        name=DEFAULTS, check_str=base.ANY,
        description='Show the default quotas.',
        operations=[{'method': 'GET', 'path': _PATH + '/defaults'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN,
        description="Set a project's own quotas.",
        operations=[{'method': 'PUT', 'path': _PATH}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description="Revert a project's quotas to the defaults.",
        operations=[{'method': 'DELETE', 'path': _PATH}]),
]


def list_rules():
    return rules
