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

"""Request schemas of port groups, and of their lists."""

import copy

from nova_mini.api.baremetal.schemas import lists
from nova_mini.api import validation

create = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string', 'format': 'uuid'},
        'name': {'type': ['string', 'null'], 'minLength': 1,
                 'maxLength': 255, 'pattern': '^[a-zA-Z0-9-._~]+$'},
        'address': {'type': ['string', 'null'], 'maxLength': 18},
        'node_uuid': {'type': 'string', 'minLength': 1},
        'extra': {'type': ['object', 'null']},
        'standalone_ports_supported': {'type': 'boolean'},
        'mode': {'type': ['string', 'null'], 'minLength': 1,
                 'maxLength': 255},
        'properties': {'type': ['object', 'null']},
    },
    'required': ['node_uuid'],
    'additionalProperties': False,
}

# What a port group must look like after a patch.
patched = copy.deepcopy(create)
for _name in ('extra', 'properties'):
    patched['properties'][_name] = {'type': 'object'}
patched['properties']['mode'] = {'type': 'string', 'minLength': 1,
                                 'maxLength': 255}

list_query = {
    'type': 'object',
    'properties': dict(lists.PAGE, **{
        'node': validation.single_param({'type': 'string'}),
        'address': validation.single_param({'type': 'string'}),
    }),
    'additionalProperties': False,
}

node_query = {
    'type': 'object',
    'properties': dict(lists.PAGE),
    'additionalProperties': False,
}
