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

"""How ports look in bare-metal API responses: the fields of each
version (versions.PORT_FIELDS).
"""

from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import base


class PortView(base.ResourceView):
    COLLECTION = 'ports'
    FIELDS = ('uuid', 'address', 'node_uuid', 'portgroup_uuid', 'extra',
              'internal_info', 'local_link_connection', 'pxe_enabled',
              'physical_network', 'is_smartnic', 'created_at', 'updated_at')
    BRIEF_FIELDS = ('uuid', 'address')
    FIELD_VERSIONS = versions.PORT_FIELDS

    def value(self, item, name):
        # nova_mini has no smart NIC ports (they are refused).
        if name == 'is_smartnic':
            return False
        return super().value(item, name)
