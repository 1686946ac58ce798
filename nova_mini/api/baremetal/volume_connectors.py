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

"""The volume connectors resource (from API 1.32): /volume/connectors,
/volume/connectors/{uuid}, and a node's, /nodes/{node}/volume/connectors
(read only). A (type, connector_id) pair is one node's (else 409).
"""

from nova_mini.api.baremetal.schemas import volumes as schema
from nova_mini.api.baremetal.views import volume as volume_views
from nova_mini.api.baremetal import volume_resources
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import volume_connector


class VolumeConnectorsController(
        volume_resources.VolumeResourcesController):
    VIEW = volume_views.VolumeConnectorView
    OBJECT = 'VolumeConnector'
    LIST = 'VolumeConnectorList'
    SORT_KEYS = volume_connector.SORT_KEYS
    NOT_FOUND = (exception_baremetal.VolumeConnectorNotFound, 'connector')
    CHECK_PATCHED = staticmethod(validation.value_checker(
        schema.connector_patched, 'volume connector'))
    PATCHABLE = ('connector_id', 'extra', 'node_uuid', 'type')

    @wsgi.expose(status=201)
    @volume_resources.since_volume
    @validation.body(schema.connector_create)
    def post(self):
        return self._post()
