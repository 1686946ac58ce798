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

"""Request schemas of a ramdisk's lookup and heartbeat (Ironic's
parameters; those of later versions are refused by the handler, in
Ironic's words).
"""

from nova_mini.api import validation

# MAC addresses (comma-separated, or repeated) and/or the node's uuid;
# their values are checked by the handler as Ironic checks them.
lookup_query = {
    'type': 'object',
    'properties': {
        'addresses': validation.multi_params({'type': 'string'}),
        'node_uuid': validation.single_param({'type': 'string'}),
    },
    'additionalProperties': False,
}

_text = {'type': ['string', 'null']}

# The node may be named in the body rather than the path (POST
# /heartbeat), as Ironic's controller takes it (ironic-tempest-plugin's
# client does so).
heartbeat = {
    'type': 'object',
    'properties': {
        'node_ident': {'type': 'string'},
        'callback_url': {'type': 'string'},
        'agent_version': _text,
        'agent_token': _text,
        'agent_verify_ca': _text,
        'agent_status': _text,
        'agent_status_message': _text,
    },
    'required': ['callback_url'],
    'additionalProperties': False,
}
