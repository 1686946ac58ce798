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

"""Response schemas of the bare-metal calls (tempest.lib's format)."""

_trait = {'type': 'string', 'pattern': '^[A-Z][A-Z0-9_]*$',
          'maxLength': 255}

_node = {
    'type': 'object',
    'properties': {
        'uuid': {'type': 'string', 'format': 'uuid'},
        'name': {'type': ['string', 'null']},
        'driver': {'type': 'string'},
        'provision_state': {'type': 'string'},
        'resource_class': {'type': ['string', 'null']},
        'traits': {'type': 'array', 'items': _trait},
        'links': {'type': 'array'},
    },
    'required': ['uuid', 'provision_state', 'links'],
}

node = {'status_code': [200, 201], 'response_body': _node}

node_list = {
    'status_code': [200],
    'response_body': {
        'type': 'object',
        'properties': {'nodes': {'type': 'array', 'items': _node}},
        'required': ['nodes'],
    },
}

traits = {
    'status_code': [200],
    'response_body': {
        'type': 'object',
        'properties': {'traits': {'type': 'array', 'items': _trait,
                                  'maxItems': 50}},
        'required': ['traits'],
        'additionalProperties': False,
    },
}
