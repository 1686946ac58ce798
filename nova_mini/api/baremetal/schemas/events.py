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

"""Request schema of POST /events: Ironic's (its network port events)."""

from nova_mini.api.validation import messages

EVENT_TYPES = ('network.bind_port', 'network.unbind_port',
               'network.delete_port')

_uuid = {'type': 'string', 'format': 'uuid'}
_nullable_uuid = {'type': ['string', 'null'], 'format': 'uuid'}
# What oslo.utils' is_valid_mac accepts, as Ironic's mac-address format.
MAC_PATTERN = '^([0-9a-fA-F]{2}[-:]){5}[0-9a-fA-F]{2}$'
messages.add_pattern(MAC_PATTERN, 'a MAC address (six pairs of hexadecimal '
                     'digits separated by ":" or "-")')

create = {
    'type': 'object',
    'properties': {
        'events': {
            'type': 'array',
            'minItems': 1,
            'items': {
                'type': 'object',
                'properties': {
                    'event': {'type': 'string', 'enum': list(EVENT_TYPES)},
                    'port_id': _uuid,
                    'mac_address': {'type': 'string',
                                    'pattern': MAC_PATTERN},
                    'status': {'type': 'string'},
                    'device_id': _nullable_uuid,
                    # A uuid, as Ironic's schema has it.
                    'binding:host_id': _nullable_uuid,
                    'binding:vnic_type': {'type': ['string', 'null']},
                },
                'required': ['event', 'port_id', 'mac_address', 'status'],
                'additionalProperties': False,
            },
        },
    },
    'required': ['events'],
    'additionalProperties': False,
}
