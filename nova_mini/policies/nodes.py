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

"""Policies of bare-metal nodes, with Ironic's names: readers of the
project may look, administrators may change.
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'baremetal:node:'
LIST = PREFIX + 'list'
GET = PREFIX + 'get'
CREATE = PREFIX + 'create'
UPDATE = PREFIX + 'update'
DELETE = PREFIX + 'delete'
VALIDATE = PREFIX + 'validate'
GET_STATES = PREFIX + 'get_states'
SET_PROVISION_STATE = PREFIX + 'set_provision_state'

_NODE = '/nodes/{node_ident}'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.PROJECT_READER_OR_ADMIN,
        description='List nodes, briefly or in detail.',
        operations=[{'method': 'GET', 'path': '/nodes'},
                    {'method': 'GET', 'path': '/nodes/detail'}]),
    policy.DocumentedRuleDefault(
        name=GET, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show one node.',
        operations=[{'method': 'GET', 'path': _NODE}]),
    policy.DocumentedRuleDefault(
        name=CREATE, check_str=base.ADMIN,
        description='Create a node.',
        operations=[{'method': 'POST', 'path': '/nodes'}]),
    policy.DocumentedRuleDefault(
        name=UPDATE, check_str=base.ADMIN,
        description='Change a node (JSON patch).',
        operations=[{'method': 'PATCH', 'path': _NODE}]),
    policy.DocumentedRuleDefault(
        name=DELETE, check_str=base.ADMIN,
        description='Delete a node.',
        operations=[{'method': 'DELETE', 'path': _NODE}]),
    policy.DocumentedRuleDefault(
        name=VALIDATE, check_str=base.ADMIN,
        description='Validate the interfaces of a node (and the traits its '
                    'instance asks for).',
        operations=[{'method': 'GET', 'path': _NODE + '/validate'}]),
    policy.DocumentedRuleDefault(
        name=GET_STATES, check_str=base.PROJECT_READER_OR_ADMIN,
        description='Show the states of a node.',
        operations=[{'method': 'GET', 'path': _NODE + '/states'}]),
    policy.DocumentedRuleDefault(
        name=SET_PROVISION_STATE, check_str=base.ADMIN,
        description='Change the provision state of a node (deploy, '
                    'undeploy, manage, provide).',
        operations=[{'method': 'PUT',
                     'path': _NODE + '/states/provision'}]),
]


def list_rules():
    return rules
