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

"""Query schemas of a server's actions (os-instance-actions): nothing
read before 2.58, then limit, marker and changes-since (and from 2.66
changes-before), nothing else."""

import copy

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api import validation

index_query = {'type': 'object', 'properties': {},
               'additionalProperties': True}

index_query_v258 = {
    'type': 'object',
    'properties': {
        'limit': validation.single_param(
            parameter_types.query_non_negative_integer),
        'marker': validation.single_param({'type': 'string'}),
        'changes-since': validation.single_param({'type': 'string'}),
    },
    'additionalProperties': False,
}

index_query_v266 = copy.deepcopy(index_query_v258)
index_query_v266['properties']['changes-before'] = validation.single_param(
    {'type': 'string'})
