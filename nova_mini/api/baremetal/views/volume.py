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

"""How volume connectors and targets look in bare-metal API responses
(from 1.32): links below ``/volume``, and the properties of a target
redacted for those ``baremetal:volume:view_target_properties`` refuses
(passwords masked for the others).
"""

from oslo_utils import strutils

from nova_mini.api.baremetal.views import base
from nova_mini.policies.baremetal import volumes as policies

REDACTED = {'redacted_contents': (
    '** Redacted: seeing the properties of volume targets needs the '
    'baremetal:volume:view_target_properties permission. **')}


class VolumeView(base.ResourceView):
    """A volume resource: its links are below ``/volume``, and
    ``fields=`` may name ``links`` (always shown), as Ironic's.
    """

    def links(self, path):
        return super().links('volume/%s' % path)

    def check_fields(self, fields):
        super().check_fields([name for name in fields if name != 'links'])

    def render(self, item, fields=None):
        if fields is None:
            return super().render(item)
        shown = [name for name in fields if name != 'links']
        body = {name: self.value(item, name) for name in shown}
        body['links'] = self.links('%s/%s' % (self.COLLECTION, item.uuid))
        return body


class VolumeConnectorView(VolumeView):
    COLLECTION = 'connectors'
    FIELDS = ('uuid', 'node_uuid', 'type', 'connector_id', 'extra',
              'created_at', 'updated_at')
    BRIEF_FIELDS = ('uuid', 'node_uuid', 'type', 'connector_id')


class VolumeTargetView(VolumeView):
    COLLECTION = 'targets'
    FIELDS = ('uuid', 'node_uuid', 'volume_type', 'properties',
              'boot_index', 'volume_id', 'extra', 'created_at',
              'updated_at')
    BRIEF_FIELDS = ('uuid', 'node_uuid', 'volume_type', 'boot_index',
                    'volume_id')

    def __init__(self, req):
        super().__init__(req)
        self.see_properties = req.ctxt.can(
            policies.VIEW_TARGET_PROPERTIES,
            {'project_id': req.ctxt.project_id}, fatal=False)

    def value(self, item, name):
        if name == 'properties':
            if not self.see_properties:
                return dict(REDACTED)
            return strutils.mask_dict_password(item.properties or {},
                                               '******')
        return super().value(item, name)
