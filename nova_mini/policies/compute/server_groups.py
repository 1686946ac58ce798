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

"""Policies of the server groups resource (os-server-groups)."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:os-server-groups:'
CREATE = PREFIX + 'create'
DELETE = PREFIX + 'delete'
INDEX = PREFIX + 'index'
# Not a route of its own: checked when an administrator lists with
# ``all_projects``.
INDEX_ALL_PROJECTS = PREFIX + 'index:all_projects'
SHOW = PREFIX + 'show'

rules = [
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create a server group.',
        operations=[{'method': 'POST', 'path': '/os-server-groups'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete a server group.',
        operations=[{'method': 'DELETE',
                     'path': '/os-server-groups/{server_group_id}'}]),
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the server groups of the project.',
        operations=[{'method': 'GET', 'path': '/os-server-groups'}]),
    policy.DocumentedRuleDefault(
        name=INDEX_ALL_PROJECTS, check_str=base.ADMIN,
        description='List the server groups of every project '
                    '(all_projects).',
        operations=[{'method': 'GET', 'path': '/os-server-groups'}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one server group.',
        operations=[{'method': 'GET',
                     'path': '/os-server-groups/{server_group_id}'}]),
]


def list_rules():
    return rules
