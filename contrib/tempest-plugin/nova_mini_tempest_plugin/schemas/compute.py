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

"""Response schemas of the compute calls (tempest.lib's format: the
status codes and a JSON schema of the body).
"""

import copy

from tempest.lib.common import api_version_request

_links = {
    'type': 'array',
    'items': {
        'type': 'object',
        'properties': {'href': {'type': 'string', 'format': 'uri'},
                       'rel': {'type': 'string'}},
        'required': ['href', 'rel'],
    },
}

_string_map = {'type': 'object', 'additionalProperties': {'type': 'string'}}

flavor = {
    'status_code': [200],
    'response_body': {
        'type': 'object',
        'properties': {'flavor': {
            'type': 'object',
            'properties': {
                'id': {'type': 'string'},
                'name': {'type': 'string'},
                'ram': {'type': 'integer'},
                'vcpus': {'type': 'integer'},
                'disk': {'type': 'integer'},
                'links': _links,
            },
            'required': ['id', 'name', 'ram', 'vcpus', 'disk', 'links'],
        }},
        'required': ['flavor'],
        'additionalProperties': False,
    },
}

extra_specs = {
    'status_code': [200],
    'response_body': {
        'type': 'object',
        'properties': {'extra_specs': _string_map},
        'required': ['extra_specs'],
        'additionalProperties': False,
    },
}

create_server = {
    'status_code': [202],
    'response_body': {
        'type': 'object',
        'properties': {'server': {
            'type': 'object',
            'properties': {'id': {'type': 'string', 'format': 'uuid'},
                           'links': _links},
            'required': ['id', 'links'],
        }},
        'required': ['server'],
    },
}

# The server's flavor before 2.47: a reference to the flavor.
_flavor_reference = {
    'type': 'object',
    'properties': {'id': {'type': 'string'}, 'links': _links},
    'required': ['id', 'links'],
    'additionalProperties': False,
}

# From 2.47: the server's own copy of the flavor it was built with.
_embedded_flavor = {
    'type': 'object',
    'properties': {
        'original_name': {'type': 'string'},
        'vcpus': {'type': 'integer'},
        'ram': {'type': 'integer'},
        'disk': {'type': 'integer'},
        'ephemeral': {'type': 'integer'},
        'swap': {'type': 'integer'},
        'extra_specs': _string_map,
    },
    'required': ['original_name', 'vcpus', 'ram', 'disk', 'ephemeral',
                 'swap'],
    'additionalProperties': False,
}

_server = {
    'status_code': [200],
    'response_body': {
        'type': 'object',
        'properties': {'server': {
            'type': 'object',
            'properties': {
                'id': {'type': 'string', 'format': 'uuid'},
                'name': {'type': 'string'},
                'status': {'type': 'string'},
                'tenant_id': {'type': 'string'},
                'user_id': {'type': 'string'},
                'flavor': _flavor_reference,
                'links': _links,
            },
            'required': ['id', 'name', 'status', 'tenant_id', 'user_id',
                         'flavor', 'links'],
        }},
        'required': ['server'],
    },
}

_server_247 = copy.deepcopy(_server)
_server_247['response_body']['properties']['server']['properties'][
    'flavor'] = _embedded_flavor


def server_at(version):
    """The schema of GET /servers/{id} at microversion ``version``."""
    if version and (api_version_request.APIVersionRequest(version) >=
                    api_version_request.APIVersionRequest('2.47')):
        return _server_247
    return _server
