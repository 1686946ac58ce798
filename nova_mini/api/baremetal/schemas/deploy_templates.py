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

"""Request schemas of deploy templates (1.55): the name is a trait, the
steps those of Ironic's deploy step interfaces.
"""

import copy

from nova_mini.api.baremetal import schemas
from nova_mini.api.baremetal.schemas import lists
from nova_mini.api.baremetal.schemas import node_traits
from nova_mini.objects.baremetal import deploy_steps

step = {
    'type': 'object',
    'properties': {
        'interface': {'type': 'string',
                      'enum': list(deploy_steps.INTERFACE_PRIORITY)},
        'step': {'type': 'string', 'minLength': 1},
        'args': {'type': 'object'},
        # An integer or its digits (bounds apply to both, see
        # nova_mini.api.validation): Ironic's anyOf of the two.
        'priority': {'type': ['integer', 'string'], 'minLength': 1,
                     'pattern': '^[0-9]+$', 'minimum': 0,
                     'maximum': schemas.MAX_INT},
    },
    'required': ['interface', 'step', 'args', 'priority'],
    'additionalProperties': False,
}

create = {
    'type': 'object',
    'properties': {
        'name': node_traits.trait,
        'steps': {'type': 'array', 'items': step, 'minItems': 1},
        'uuid': {'type': ['string', 'null'], 'format': 'uuid'},
        'extra': {'type': ['object', 'null']},
        # Taken by Ironic's schema (and not kept); refused by the handler
        # unless null.
        'description': {'type': ['string', 'null'], 'maxLength': 255},
    },
    'required': ['name', 'steps'],
    'additionalProperties': False,
}

# What a template's patchable fields must look like after a patch.
patched = copy.deepcopy(create)
del patched['properties']['uuid']
del patched['properties']['description']

list_query = {
    'type': 'object',
    'properties': {
        'limit': lists.PAGE['limit'],
        'marker': lists.PAGE['marker'],
        'sort_key': lists.PAGE['sort_key'],
        'sort_dir': lists.PAGE['sort_dir'],
        'fields': lists.PAGE['fields'],
        'detail': lists.PAGE['detail'],
    },
    'additionalProperties': False,
}

show_query = {
    'type': 'object',
    'properties': {'fields': lists.PAGE['fields']},
    'additionalProperties': False,
}
