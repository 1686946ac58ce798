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

"""Request schemas of nodes: create, the document a patch must leave,
the patch itself and the list query.
"""

import copy

from nova_mini.api.baremetal import schemas
from nova_mini.api.baremetal.schemas import node_traits
from nova_mini.api import validation
from nova_mini.objects.baremetal import node_interfaces

# RFC 3986 unreserved characters (from 1.10); before, host names.
NAME_PATTERN = '^[a-zA-Z0-9-._~]+$'
HOSTNAME_PATTERN = ('^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?'
                    r'(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$')
# Names that are routes under /nodes.
RESERVED_NAMES = ('detail', 'validate')

_uuid = {'type': 'string', 'format': 'uuid'}
# cpus, memory_mb, local_gb: the scheduler's integer columns hold them.
_count = {'type': ['integer', 'string'], 'pattern': '^[0-9]+$',
          'minimum': 0, 'maximum': schemas.MAX_INT}

properties = {
    'type': 'object',
    'properties': {
        'cpus': _count,
        'memory_mb': _count,
        'local_gb': _count,
        'cpu_arch': {'type': 'string', 'maxLength': 255},
        'capabilities': {'type': ['string', 'object']},
    },
}

_project = {'type': ['string', 'null'], 'maxLength': 255}
_name = {'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255,
         'pattern': NAME_PATTERN}
_instance_info = {
    'type': 'object',
    'properties': {
        'traits': {'type': 'array', 'items': {'type': 'string'}},
    },
}

create = {
    'type': 'object',
    'properties': {
        'uuid': _uuid,
        'name': _name,
        'driver': {'type': 'string', 'minLength': 1, 'maxLength': 255},
        'driver_info': {'type': 'object'},
        'extra': {'type': 'object'},
        'properties': properties,
        'resource_class': {'type': ['string', 'null'], 'maxLength': 80},
        'instance_info': _instance_info,
        'owner': _project,
        'lessee': _project,
        'chassis_uuid': {'type': ['string', 'null'], 'format': 'uuid'},
        'automated_clean': {'type': ['boolean', 'null']},
        'conductor_group': {'type': ['string', 'null'], 'maxLength': 255,
                            'pattern': r'^[a-zA-Z0-9_\-\.]*$'},
        'description': {'type': ['string', 'null'], 'maxLength': 4096},
        'retired': {'type': 'boolean'},
        'retired_reason': {'type': ['string', 'null'], 'maxLength': 4096},
        **{name: {'type': ['string', 'null'], 'minLength': 1,
                  'maxLength': 255}
           for name in node_interfaces.FIELDS},
    },
    'required': ['driver'],
    'additionalProperties': False,
}

# Before 1.10 names are host names.
create_hostname = copy.deepcopy(create)
create_hostname['properties']['name']['pattern'] = HOSTNAME_PATTERN
create_hostname['properties']['name']['maxLength'] = 253

# What a node's document must look like after a patch.
patched = copy.deepcopy(create)
patched['properties'].update({
    'maintenance': {'type': 'boolean'},
    'instance_uuid': {'type': ['string', 'null'], 'format': 'uuid'},
    'protected': {'type': 'boolean'},
    'protected_reason': {'type': ['string', 'null'], 'maxLength': 4096},
})
patched['additionalProperties'] = True
patched_hostname = copy.deepcopy(patched)
patched_hostname['properties']['name'] = create_hostname['properties'][
    'name']

patch = {
    'type': 'array',
    'minItems': 1,
    'items': {
        'type': 'object',
        'properties': {
            'op': {'type': 'string', 'enum': ['add', 'replace', 'remove']},
            'path': {'type': 'string', 'pattern': r'^(/[\w~.-]+)+$'},
            'value': {},
        },
        'required': ['op', 'path'],
        'additionalProperties': False,
    },
}

# Comma-separated names, no empty item.
_trait_list = {'type': 'string',
               'pattern': r'^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$'}
_bool = {'type': 'string', 'enum': [
    'true', 'True', 'TRUE', 'false', 'False', 'FALSE', '1', '0', 'yes',
    'no', 'on', 'off', 'y', 'n', 't', 'f']}

list_query = {
    'type': 'object',
    'properties': {
        'limit': validation.single_param(
            {'type': 'string', 'pattern': '^-?[0-9]+$'}),
        'marker': validation.single_param({'type': 'string'}),
        'sort_key': validation.single_param({'type': 'string'}),
        'sort_dir': validation.single_param(
            {'type': 'string', 'enum': ['asc', 'desc']}),
        'fields': validation.single_param({'type': 'string'}),
        'provision_state': validation.single_param({'type': 'string'}),
        'maintenance': validation.single_param(_bool),
        'associated': validation.single_param(_bool),
        'resource_class': validation.single_param({'type': 'string'}),
        'driver': validation.single_param({'type': 'string'}),
        'instance_uuid': validation.single_param(_uuid),
        'owner': validation.single_param({'type': 'string'}),
        'lessee': validation.single_param({'type': 'string'}),
        'project': validation.single_param({'type': 'string'}),
        'chassis_uuid': validation.single_param(_uuid),
        'fault': validation.single_param({'type': 'string'}),
        'conductor_group': validation.single_param({'type': 'string'}),
        'conductor': validation.single_param({'type': 'string'}),
        'description_contains': validation.single_param({'type': 'string'}),
        'retired': validation.single_param(_bool),
        'detail': validation.single_param(_bool),
        'traits': validation.single_param(_trait_list),
        'not-traits': validation.single_param(_trait_list),
        'traits-any': validation.single_param(_trait_list),
        'not-traits-any': validation.single_param(_trait_list),
    },
    # As Ironic: a misspelt filter is an error, not an unfiltered list.
    'additionalProperties': False,
}

# The trait filters, query parameter -> filter name.
TRAIT_FILTERS = {'traits': 'traits', 'not-traits': 'not_traits',
                 'traits-any': 'traits_any',
                 'not-traits-any': 'not_traits_any'}

show_query = {
    'type': 'object',
    'properties': {
        'fields': validation.single_param({'type': 'string'}),
    },
    'additionalProperties': True,
}

trait = node_traits.trait
