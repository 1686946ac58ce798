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

"""Query schemas of drivers: a list takes ``type``, ``detail`` and
``fields`` (the latter refused as Ironic refuses it before 1.77), a show
``fields``, and nothing else.
"""

from nova_mini.api.baremetal.schemas import nodes
from nova_mini.api import validation

_fields = validation.single_param({'type': 'string'})

list_query = {
    'type': 'object',
    'properties': {
        'type': validation.single_param({'type': 'string'}),
        'detail': nodes.list_query['properties']['detail'],
        'fields': _fields,
    },
    'additionalProperties': False,
}

show_query = {
    'type': 'object',
    'properties': {'fields': _fields},
    'additionalProperties': False,
}

# The sub-resources of a driver take no query parameter.
no_query = {'type': 'object', 'additionalProperties': False}
