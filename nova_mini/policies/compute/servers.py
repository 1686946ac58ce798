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

"""Policies of the servers resource."""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:servers:'
INDEX = PREFIX + 'index'
SHOW = PREFIX + 'show'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'
# Not routes of their own: checked by the list routes for what a query
# asks (every project; the filters of administrators).
INDEX_ALL_TENANTS = PREFIX + 'index:get_all_tenants'
DETAIL_ALL_TENANTS = PREFIX + 'detail:get_all_tenants'
ALLOW_ALL_FILTERS = PREFIX + 'allow_all_filters'
CREATE_FORCED_HOST = PREFIX + 'create:forced_host'
# Not a route of its own: decides what GET /servers/{server_id} shows.
EXTENDED_ATTRIBUTES = 'os_compute_api:os-extended-server-attributes'

rules = [
    policy.DocumentedRuleDefault(
        name=INDEX, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List the servers of the project, briefly or in '
                    'detail.',
        operations=[{'method': 'GET', 'path': '/servers'},
                    {'method': 'GET', 'path': '/servers/detail'}]),
    policy.DocumentedRuleDefault(
        name=INDEX_ALL_TENANTS, check_str=base.ADMIN,
        description='List the servers of every project (all_tenants).',
        operations=[{'method': 'GET', 'path': '/servers'}]),
    policy.DocumentedRuleDefault(
        name=DETAIL_ALL_TENANTS, check_str=base.ADMIN,
        description='List the servers of every project in detail '
                    '(all_tenants).',
        operations=[{'method': 'GET', 'path': '/servers/detail'}]),
    policy.DocumentedRuleDefault(
        name=ALLOW_ALL_FILTERS, check_str=base.ADMIN,
        description='Filter server lists by every filter; others may use '
                    'only those Nova allows them at the microversion (the '
                    'others are ignored).',
        operations=[{'method': 'GET', 'path': '/servers'},
                    {'method': 'GET', 'path': '/servers/detail'}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one server.',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Create (boot) servers.',
        operations=[{'method': 'POST', 'path': '/servers'}]),
    policy.DocumentedRuleDefault(
        name=CREATE_FORCED_HOST, check_str=base.ADMIN,
        description='Create servers on a node named in the availability '
                    'zone ("<zone>::<node>"); the node must still meet '
                    "the flavor's requirements.",
        operations=[{'method': 'POST', 'path': '/servers'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Update a server: its name, description and access '
                    'addresses.',
        operations=[{'method': 'PUT', 'path': '/servers/{server_id}'}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.PROJECT_MEMBER_OR_ADMIN,
        description='Delete a server (its node is freed).',
        operations=[{'method': 'DELETE', 'path': '/servers/{server_id}'}]),
    policy.DocumentedRuleDefault(
        name=EXTENDED_ATTRIBUTES, check_str=base.ADMIN,
        description='Show the OS-EXT-SRV-ATTR:* attributes of a server '
                    '(the node it runs on); checked without failing the '
                    'request, it only filters the body.',
        operations=[{'method': 'GET', 'path': '/servers/{server_id}'}]),
]


def list_rules():
    return rules
