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

"""Request schemas of allocations (1.52; ``node`` 1.58, ``owner`` 1.60,
checked by the handler as Ironic checks it).
"""

from nova_mini.api.baremetal.schemas import lists
from nova_mini.api.baremetal.schemas import node_traits
from nova_mini.api.baremetal.schemas import nodes
from nova_mini.api import validation
from nova_mini.objects.baremetal import allocation
from nova_mini.objects.baremetal import node_trait

_nullable_string = {'type': ['string', 'null']}

create = {
    'type': 'object',
    'properties': {
        'candidate_nodes': {'type': ['array', 'null'],
                            'items': {'type': 'string'}},
        'extra': {'type': ['object', 'null']},
        'name': {'type': ['string', 'null'], 'maxLength': 255},
        'node': _nullable_string,
        'owner': {'type': ['string', 'null'], 'maxLength': 255},
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        # No node holds more traits: an allocation asking for more could
        # never be given one.
        'traits': {'type': ['array', 'null'], 'items': node_traits.trait,
                   'maxItems': node_trait.MAX_TRAITS_PER_NODE},
        'uuid': {'type': ['string', 'null'], 'format': 'uuid'},
    },
    'additionalProperties': False,
}

# What an allocation's patchable fields must look like after a patch.
patched = {
    'type': 'object',
    'properties': {
        'name': {'type': ['string', 'null'], 'maxLength': 255},
        'extra': {'type': 'object'},
    },
    'additionalProperties': False,
}

NAME_PATTERN = nodes.NAME_PATTERN

list_query = {
    'type': 'object',
    'properties': {
        'limit': lists.PAGE['limit'],
        'marker': lists.PAGE['marker'],
        'sort_key': lists.PAGE['sort_key'],
        'sort_dir': lists.PAGE['sort_dir'],
        'fields': lists.PAGE['fields'],
        'node': validation.single_param({'type': 'string'}),
        'resource_class': validation.single_param({'type': 'string'}),
        # No allocation is in another state: a typo is a 400, not an
        # empty list.
        'state': validation.single_param({'type': 'string', 'enum': [
            allocation.ALLOCATING, allocation.ACTIVE, allocation.ERROR]}),
        'owner': validation.single_param({'type': 'string'}),
    },
    'additionalProperties': False,
}

show_query = {
    'type': 'object',
    'properties': {'fields': lists.PAGE['fields']},
    'additionalProperties': False,
}
