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

"""How port groups look in bare-metal API responses (from 1.23)."""

from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import base


class PortgroupView(base.ResourceView):
    COLLECTION = 'portgroups'
    FIELDS = ('uuid', 'name', 'address', 'node_uuid', 'extra',
              'internal_info', 'standalone_ports_supported', 'mode',
              'properties', 'created_at', 'updated_at')
    BRIEF_FIELDS = ('uuid', 'address', 'name')
    FIELD_VERSIONS = {'mode': versions.PORTGROUP_MODE,
                      'properties': versions.PORTGROUP_MODE}

    def extra_links(self, item):
        return {'ports': self.links('portgroups/%s/ports' % item.uuid)}
