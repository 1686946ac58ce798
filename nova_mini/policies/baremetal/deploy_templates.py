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

"""Policies of deploy templates, with Ironic's names: the deploy steps
every matching deploy runs are the operator's (Ironic's system scope, an
administrator here).
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:deploy_template:'
GET = PREFIX + 'get'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'

_TEMPLATE = '/deploy_templates/{deploy_template_ident}'

rules = [
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.SYSTEM_READER,
        description='List and show deploy templates.',
        operations=[{'method': 'GET', 'path': '/deploy_templates'},
                    {'method': 'GET', 'path': _TEMPLATE}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.SYSTEM_ADMIN,
        description='Create a deploy template.',
        operations=[{'method': 'POST', 'path': '/deploy_templates'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.SYSTEM_ADMIN,
        description='Change a deploy template.',
        operations=[{'method': 'PATCH', 'path': _TEMPLATE}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.SYSTEM_ADMIN,
        description='Delete a deploy template.',
        operations=[{'method': 'DELETE', 'path': _TEMPLATE}]),
]


def list_rules():
    return rules
