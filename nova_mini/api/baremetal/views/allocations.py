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

"""How allocations look in bare-metal API responses (from 1.52)."""

from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import base
from nova_mini import exception_baremetal
from nova_mini import objects


class AllocationView(base.ResourceView):
    COLLECTION = 'allocations'
    FIELDS = ('uuid', 'name', 'node_uuid', 'state', 'last_error',
              'resource_class', 'traits', 'candidate_nodes', 'extra',
              'owner', 'created_at', 'updated_at')
    BRIEF_FIELDS = FIELDS
    FIELD_VERSIONS = {'owner': versions.ALLOCATION_OWNER}

    def __init__(self, req):
        super().__init__(req)
        self._node_uuids = {}

    def value(self, item, name):
        if name == 'node_uuid':
            return self._node_uuid(item.node_id)
        return super().value(item, name)

    def _node_uuid(self, node_id):
        if node_id is None:
            return None
        if node_id not in self._node_uuids:
            try:
                self._node_uuids[node_id] = objects.Node.get_by_id(
                    self.context, node_id).uuid
            except exception_baremetal.NodeNotFound:
                self._node_uuids[node_id] = None
        return self._node_uuids[node_id]
