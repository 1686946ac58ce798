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

"""Request schemas of server actions (POST /servers/{server_id}/action),
one per action and microversion range, with Nova's fields."""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api.compute.schemas import servers


def _action(name, properties=None, required=(), nullable=True):
    inner = {'type': 'object', 'properties': properties or {},
             'additionalProperties': False}
    if required:
        inner['required'] = list(required)
    if nullable:
        inner = {'oneOf': [{'type': 'null'}, inner]}
    return {'type': 'object', 'properties': {name: inner},
            'required': [name], 'additionalProperties': False}


stop = _action('os-stop')
start = _action('os-start')

reboot = _action('reboot', {
    'type': {'type': 'string',
             'enum': ['HARD', 'Hard', 'hard', 'SOFT', 'Soft', 'soft']},
}, required=['type'], nullable=False)

lock = _action('lock')
lock_v273 = _action('lock', {
    'locked_reason': {'type': 'string', 'minLength': 1, 'maxLength': 255},
})
unlock = _action('unlock')

create_image = _action('createImage', {
    'name': parameter_types.name,
    'metadata': servers.metadata,
}, required=['name'], nullable=False)

_server = servers.create['properties']['server']['properties']

rebuild = _action('rebuild', {
    'name': parameter_types.name,
    'imageRef': {'type': 'string', 'minLength': 1, 'maxLength': 255},
    'adminPass': {'type': 'string'},
    'metadata': servers.metadata,
    'preserve_ephemeral': parameter_types.boolean,
    'OS-DCF:diskConfig': _server['OS-DCF:diskConfig'],
    'accessIPv4': _server['accessIPv4'],
    'accessIPv6': _server['accessIPv6'],
    'personality': _server['personality'],
}, required=['imageRef'], nullable=False)


def _rebuild_properties(schema):
    return schema['properties']['rebuild']['properties']


rebuild_v219 = copy.deepcopy(rebuild)
_rebuild_properties(rebuild_v219)['description'] = servers.description

rebuild_v254 = copy.deepcopy(rebuild_v219)
_rebuild_properties(rebuild_v254)['key_name'] = {
    'type': ['string', 'null'], 'minLength': 1, 'maxLength': 255}

rebuild_v257 = copy.deepcopy(rebuild_v254)
del _rebuild_properties(rebuild_v257)['personality']
_rebuild_properties(rebuild_v257)['user_data'] = {
    'type': ['string', 'null'], 'maxLength': 65535}

rebuild_v263 = copy.deepcopy(rebuild_v257)
_rebuild_properties(rebuild_v263)['trusted_image_certificates'] = {
    'type': ['array', 'null'], 'items': {'type': 'string'}}
