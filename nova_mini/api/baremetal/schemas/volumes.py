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

"""Request schemas of volume connectors and volume targets, and of their
lists. Strings are limited to what their columns hold.
"""

import copy

from nova_mini.api.baremetal.schemas import lists
from nova_mini.api import validation
from nova_mini.objects.baremetal import volume_connector

_uuid = {'type': ['string', 'null'], 'format': 'uuid'}
_dict = {'type': ['object', 'null']}

connector_create = {
    'type': 'object',
    'properties': {
        'uuid': _uuid,
        'node_uuid': {'type': 'string', 'format': 'uuid'},
        'type': {
            'type': 'string', 'enum': list(volume_connector.TYPES),
            'description': 'one of %s' % ', '.join(volume_connector.TYPES)},
        'connector_id': {'type': 'string', 'minLength': 1,
                         'maxLength': 255},
        'extra': _dict,
    },
    'required': ['node_uuid', 'type', 'connector_id'],
    'additionalProperties': False,
}

target_create = {
    'type': 'object',
    'properties': {
        'uuid': _uuid,
        'node_uuid': {'type': 'string', 'format': 'uuid'},
        'volume_type': {'type': 'string', 'minLength': 1, 'maxLength': 64},
        'properties': _dict,
        'boot_index': {'type': 'integer', 'minimum': -2 ** 31,
                       'maximum': 2 ** 31 - 1},
        'volume_id': {'type': 'string', 'minLength': 1, 'maxLength': 36},
        'extra': _dict,
    },
    'required': ['node_uuid', 'volume_type', 'boot_index', 'volume_id'],
    'additionalProperties': False,
}

# What a connector or target must look like after a patch.
connector_patched = copy.deepcopy(connector_create)
connector_patched['properties']['extra'] = {'type': 'object'}
target_patched = copy.deepcopy(target_create)
for _name in ('extra', 'properties'):
    target_patched['properties'][_name] = {'type': 'object'}

list_query = {
    'type': 'object',
    'properties': dict(lists.PAGE, **{
        'node': validation.single_param({'type': 'string'}),
    }),
    'additionalProperties': False,
}
