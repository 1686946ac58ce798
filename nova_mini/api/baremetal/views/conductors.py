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

"""How conductors look in bare-metal API responses (from 1.49): Ironic's
fields, of the registry rows of nova_mini.objects.baremetal.conductor.
"""

from nova_mini.api.baremetal.views import base
from nova_mini.objects.baremetal import conductor


class ConductorView(base.ResourceView):
    COLLECTION = 'conductors'
    FIELDS = ('hostname', 'conductor_group', 'alive', 'drivers',
              'created_at', 'updated_at', 'links')
    BRIEF_FIELDS = ('hostname', 'conductor_group', 'alive')

    def render(self, row, fields=None):
        """Return a conductor body; ``fields`` None: every field. The
        links are always shown, as Ironic's.
        """
        body = {
            'hostname': row.hostname,
            'conductor_group': row.conductor_group,
            'alive': conductor.is_alive(row),
            'drivers': list(row.drivers or []),
            'created_at': base.timestamp(row.created_at),
            'updated_at': base.timestamp(row.updated_at),
            'links': self.links('conductors/%s' % row.hostname),
        }
        if fields is not None:
            body = {name: value for name, value in body.items()
                    if name in fields or name == 'links'}
        return body
