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

"""Request schemas of chassis."""

from nova_mini.api.baremetal.schemas import lists
from nova_mini.api.baremetal.schemas import nodes

create = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string', 'format': 'uuid'},
        'description': {'type': ['string', 'null'], 'maxLength': 255},
        'extra': {'type': ['object', 'null']},
    },
    'additionalProperties': False,
}

# What a chassis must look like after a patch.
patched = {
    'type': 'object',
    'properties': {
        'description': {'type': ['string', 'null'], 'maxLength': 255},
        'extra': {'type': 'object'},
    },
    'additionalProperties': False,
}

list_query = {
    'type': 'object',
    'properties': dict(lists.PAGE),
    'additionalProperties': False,
}

show_query = nodes.show_query
