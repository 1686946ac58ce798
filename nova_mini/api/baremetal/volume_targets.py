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

"""The volume targets resource (from API 1.32): /volume/targets,
/volume/targets/{uuid}, and a node's, /nodes/{node}/volume/targets (read
only). A node's boot indexes are unique (else 409); boot index 0 is its
boot volume.

The properties of a target (connection details, maybe credentials) are
shown to those ``baremetal:volume:view_target_properties`` allows, with
passwords masked; the others see them redacted.
"""

from nova_mini.api.baremetal.schemas import volumes as schema
from nova_mini.api.baremetal.views import volume as volume_views
from nova_mini.api.baremetal import volume_resources
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import volume_target


class VolumeTargetsController(volume_resources.VolumeResourcesController):
    VIEW = volume_views.VolumeTargetView
    OBJECT = 'VolumeTarget'
    LIST = 'VolumeTargetList'
    SORT_KEYS = volume_target.SORT_KEYS
    NOT_FOUND = (exception_baremetal.VolumeTargetNotFound, 'target')
    CHECK_PATCHED = staticmethod(validation.value_checker(
        schema.target_patched, 'volume target'))
    PATCHABLE = ('boot_index', 'extra', 'node_uuid', 'properties',
                 'volume_id', 'volume_type')
    DICTS = ('extra', 'properties')

    def _masked(self, req, item):
        # The properties the caller read (masked, or redacted whole) and
        # sent back are the stored ones.
        view = self._view(req)
        return {'properties': lambda stored: view.value(item, 'properties')}

    @wsgi.expose(status=201)
    @volume_resources.since_volume
    @validation.body(schema.target_create)
    def post(self):
        return self._post()
