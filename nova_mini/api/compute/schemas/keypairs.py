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

"""Request schemas of the key pairs resource (os-keypairs), by
microversion: ``type`` from 2.2, ``user_id`` from 2.10, paging from 2.35,
unknown query parameters refused from 2.75."""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation

# Nova's key pair names: letters, digits, spaces, '_' and '-'.
name = {
    'allOf': [
        parameter_types.name,
        {'type': 'string', 'pattern': r'^[_\- a-zA-Z0-9]+$',
         'minLength': 1, 'maxLength': 255,
         'description': "1 to 255 letters, digits, spaces, '_' and '-'"},
    ],
}

create = {
    'type': 'object',
    'properties': {
        'keypair': {
            'type': 'object',
            'properties': {
                'name': name,
                'public_key': {'type': 'string'},
            },
            'required': ['name'],
            'additionalProperties': False,
        },
    },
    'required': ['keypair'],
    'additionalProperties': False,
}

create_v22 = copy.deepcopy(create)
create_v22['properties']['keypair']['properties']['type'] = {
    'type': 'string', 'enum': ['ssh', 'x509']}

create_v210 = copy.deepcopy(create_v22)
create_v210['properties']['keypair']['properties']['user_id'] = {
    'type': 'string'}

# Before 2.10 the query is not read at all.
query = {'type': 'object', 'properties': {}, 'additionalProperties': True}

query_v210 = {
    'type': 'object',
    'properties': {
        'user_id': validation.multi_params({'type': 'string'}),
    },
    'additionalProperties': True,
}

index_query_v235 = copy.deepcopy(query_v210)
index_query_v235['properties'].update({
    'limit': validation.multi_params(
        parameter_types.query_non_negative_integer),
    'marker': validation.multi_params({'type': 'string'}),
})

index_query_v275 = copy.deepcopy(index_query_v235)
index_query_v275['additionalProperties'] = False

query_v275 = copy.deepcopy(query_v210)
query_v275['additionalProperties'] = False
