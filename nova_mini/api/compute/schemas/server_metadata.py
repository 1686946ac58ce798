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

"""Request schemas of a server's metadata (/servers/{id}/metadata)."""

import copy

from nova_mini.api.compute.schemas import servers

# POST (merge) and PUT (replace all) of the whole metadata.
create = {
    'type': 'object',
    'properties': {'metadata': servers.metadata},
    'required': ['metadata'],
    'additionalProperties': False,
}
update_all = copy.deepcopy(create)

# PUT of one item: {"meta": {key: value}}, exactly one.
_one_item = copy.deepcopy(servers.metadata)
_one_item.update({'minProperties': 1, 'maxProperties': 1})
update = {
    'type': 'object',
    'properties': {'meta': _one_item},
    'required': ['meta'],
    'additionalProperties': False,
}
