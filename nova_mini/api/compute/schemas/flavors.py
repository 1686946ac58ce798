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

"""Request schemas of the flavors resource."""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation
from nova_mini.objects.compute import flavor as flavor_obj

_flavor_properties = {
    'name': parameter_types.name,
    # The id may be omitted or null: the API then makes up a UUID.
    'id': {
        'type': ['string', 'number', 'null'],
        'minLength': 1, 'maxLength': 255,
        'pattern': r'^(?! )[a-zA-Z0-9. _-]+(?<! )$',
    },
    'ram': parameter_types.positive_integer,
    'vcpus': parameter_types.positive_integer,
    'disk': parameter_types.non_negative_integer,
    'OS-FLV-EXT-DATA:ephemeral': parameter_types.non_negative_integer,
    'swap': parameter_types.non_negative_integer,
    'rxtx_factor': {
        'type': ['number', 'string'],
        'pattern': r'^[0-9]+(\.[0-9]+)?$',
        'minimum': 0, 'exclusiveMinimum': True,
        'maximum': parameter_types.MAX_FLOAT,
    },
    'os-flavor-access:is_public': parameter_types.boolean,
}

create = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': _flavor_properties,
            'required': ['name', 'ram', 'vcpus', 'disk'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

create_v255 = copy.deepcopy(create)
create_v255['properties']['flavor']['properties']['description'] = (
    parameter_types.description)

update_v255 = {
    'type': 'object',
    'properties': {
        'flavor': {
            'type': 'object',
            'properties': {'description': parameter_types.description},
            'required': ['description'],
            'additionalProperties': False,
        },
    },
    'required': ['flavor'],
    'additionalProperties': False,
}

index_query = {
    'type': 'object',
    'properties': {
        'limit': validation.multi_params(
            parameter_types.query_non_negative_integer),
        'marker': validation.multi_params({'type': 'string'}),
        'is_public': validation.multi_params({'type': 'string'}),
        'minRam': validation.multi_params({'type': 'string'}),
        'minDisk': validation.multi_params({'type': 'string'}),
        'sort_key': validation.multi_params(
            {'type': 'string', 'enum': list(flavor_obj.SORT_KEYS)}),
        'sort_dir': validation.multi_params(
            {'type': 'string', 'enum': ['asc', 'desc']}),
    },
    # Unknown parameters were ignored until 2.75.
    'additionalProperties': True,
}

index_query_v275 = copy.deepcopy(index_query)
index_query_v275['additionalProperties'] = False
