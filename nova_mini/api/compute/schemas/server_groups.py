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

"""Request schemas of the server groups resource (os-server-groups)."""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation


def _policies(choices):
    # One policy, as a list of one (Nova's form until 2.64).
    return {
        'type': 'array',
        'items': [{'type': 'string', 'enum': list(choices)}],
        'uniqueItems': True,
        'minItems': 1,
        'maxItems': 1,
        'additionalItems': False,
    }


create = {
    'type': 'object',
    'properties': {
        'server_group': {
            'type': 'object',
            'properties': {
                'name': parameter_types.name,
                'policies': _policies(['anti-affinity', 'affinity']),
            },
            'required': ['name', 'policies'],
            'additionalProperties': False,
        },
    },
    'required': ['server_group'],
    'additionalProperties': False,
}

# 2.15: the soft policies.
create_v215 = copy.deepcopy(create)
create_v215['properties']['server_group']['properties']['policies'] = (
    _policies(['anti-affinity', 'affinity', 'soft-anti-affinity',
               'soft-affinity']))

# 2.64: one ``policy`` and its ``rules`` replace ``policies``.
create_v264 = copy.deepcopy(create_v215)
_group = create_v264['properties']['server_group']
del _group['properties']['policies']
_group['required'] = ['name', 'policy']
_group['properties']['policy'] = {
    'type': 'string',
    'enum': ['anti-affinity', 'affinity', 'soft-anti-affinity',
             'soft-affinity'],
}
_group['properties']['rules'] = {
    'type': 'object',
    'properties': {
        'max_server_per_host': parameter_types.positive_integer,
    },
    'additionalProperties': False,
}
del _group

index_query = {
    'type': 'object',
    'properties': {
        'all_projects': validation.multi_params({'type': 'string'}),
        'limit': validation.multi_params(
            parameter_types.query_non_negative_integer),
        'offset': validation.multi_params(
            parameter_types.query_non_negative_integer),
    },
    # Unknown parameters were ignored until 2.75.
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
