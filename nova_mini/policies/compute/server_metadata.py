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

"""Policies of a server's metadata: /servers/{server_id}/metadata[/{key}].

Nova's names and defaults: project readers read, project members write.
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:server-metadata:'
INDEX = PREFIX + 'index'
SHOW = PREFIX + 'show'
CREATE = PREFIX + 'create'
UPDATE_ALL = PREFIX + 'update_all'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_ALL = '/servers/{server_id}/metadata'
_ONE = '/servers/{server_id}/metadata/{key}'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description="List a server's metadata.",
        operations=[{'method': 'GET', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description="Show one item of a server's metadata.",
        operations=[{'method': 'GET', 'path': _ONE}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description="Add items to a server's metadata or change them.",
        operations=[{'method': 'POST', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        name=UPDATE_ALL, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description="Replace all of a server's metadata.",
        operations=[{'method': 'PUT', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description="Set one item of a server's metadata.",
        operations=[{'method': 'PUT', 'path': _ONE}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description="Delete one item of a server's metadata.",
        operations=[{'method': 'DELETE', 'path': _ONE}]),
]


def list_rules():
    return rules
