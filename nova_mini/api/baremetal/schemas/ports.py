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

"""Request schemas of ports, and of their lists."""

import copy

from nova_mini.api.baremetal.schemas import lists
from nova_mini.api import validation

_text = {'type': 'string', 'maxLength': 255}
# Ironic's shapes of local_link_connection: a switch port (port_id and
# switch_id), a smart NIC's host port (port_id and hostname), a link of
# an unmanaged network (network_type only), or nothing.
_LINK_PROPERTIES = {
    'port_id': _text,
    'switch_id': _text,
    'switch_info': _text,
    'hostname': _text,
    'network_type': {'type': 'string', 'enum': ['managed', 'unmanaged']},
}


def _link(required, network_type=('managed', 'unmanaged')):
    properties = copy.deepcopy(_LINK_PROPERTIES)
    properties['network_type']['enum'] = list(network_type)
    return {'type': 'object', 'properties': properties,
            'required': required, 'additionalProperties': False}


local_link_connection = {
    'description': (
        'an object with port_id and switch_id (a switch port, switch_info '
        'optional), port_id and hostname (a smart NIC\'s host port), '
        'network_type "unmanaged" alone, or nothing at all'),
    'anyOf': [
        _link(['port_id', 'switch_id']),
        _link(['port_id', 'hostname']),
        _link(['network_type'], ['unmanaged']),
        {'type': 'object', 'additionalProperties': False},
    ],
}

create = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string', 'format': 'uuid'},
        'address': {'type': 'string', 'minLength': 1, 'maxLength': 18},
        'node_uuid': {'type': 'string', 'minLength': 1},
        'extra': {'type': ['object', 'null']},
        'local_link_connection': {'anyOf': [
            local_link_connection, {'type': 'null'}]},
        'pxe_enabled': {'type': 'boolean'},
        'physical_network': {'type': ['string', 'null'], 'maxLength': 64},
        'portgroup_uuid': {'type': ['string', 'null']},
        'is_smartnic': {'type': 'boolean'},
    },
    'required': ['address', 'node_uuid'],
    'additionalProperties': False,
}

# What a port must look like after a patch.
patched = copy.deepcopy(create)
patched['properties']['extra'] = {'type': 'object'}
patched['properties']['local_link_connection'] = local_link_connection

list_query = {
    'type': 'object',
    'properties': dict(lists.PAGE, **{
        'node': validation.single_param({'type': 'string'}),
        'node_uuid': validation.single_param({'type': 'string'}),
        'address': validation.single_param({'type': 'string'}),
        'portgroup': validation.single_param({'type': 'string'}),
    }),
    'additionalProperties': False,
}

node_ports_query = {
    'type': 'object',
    'properties': dict(lists.PAGE),
    'additionalProperties': False,
}
