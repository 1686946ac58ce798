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

"""VolumeConnector and VolumeConnectorList: how bare-metal nodes reach
remote volumes (Ironic's volume connectors): an iSCSI initiator, an IP or
MAC address, a Fibre Channel WWNN or WWPN, a port or a port group.

A (type, connector_id) pair is one node's: the unique constraint decides
between concurrent creates (the loser gets a 409). A connector is loaded
with its node's uuid, owner and lessee, which its body and policy checks
need.
"""

from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_volume
from nova_mini.objects import base
from nova_mini.objects import fields

_MODEL = models.VolumeConnector
COLUMNS = ('id', 'uuid', 'node_id', 'type', 'connector_id', 'extra',
           'created_at', 'updated_at')
SORT_KEYS = ('id', 'uuid', 'type', 'connector_id', 'created_at',
             'updated_at')
# Ironic's kinds of connector IDs.
TYPES = ('iqn', 'ip', 'mac', 'wwnn', 'wwpn', 'port', 'portgroup')


@base.NovaMiniObjectRegistry.register
class VolumeConnector(node_volume.VolumeRow, base.NovaMiniPersistentObject,
                      base.NovaMiniObject):
    """A node's volume connector; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = _MODEL
    COLUMNS = COLUMNS
    EMPTY = {'extra': {}}
    ACTION = 'volume connector'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'node_id': fields.IntegerField(),
        'node_uuid': fields.UUIDField(nullable=True),
        'node_owner': fields.StringField(nullable=True),
        'node_lessee': fields.StringField(nullable=True),
        'type': fields.StringField(),
        'connector_id': fields.StringField(),
        'extra': fields.FlexibleDictField(nullable=True),
    }

    @classmethod
    def _duplicate(cls, exc, values, ident):
        if cls._duplicate_of(exc, 'type', 'connector_id'):
            return exception_baremetal.VolumeConnectorTypeAndIdAlreadyExists(
                type=values.get('type'),
                connector_id=values.get('connector_id'))
        return exception_baremetal.VolumeConnectorAlreadyExists(
            uuid=values.get('uuid'))

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.VolumeConnectorNotFound(connector=ident)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the connector of uuid ``uuid``; VolumeConnectorNotFound
        if none.
        """
        return cls._get_by(context, 'uuid', uuid)


@base.NovaMiniObjectRegistry.register
class VolumeConnectorList(node_volume.VolumeRowList, base.ObjectListBase,
                          base.NovaMiniObject):
    """Pages of connectors (``get_all``); filters: ``node_id`` (a
    node's), ``project`` (those of the nodes it owns or leases).
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = VolumeConnector
    SORT_KEYS = SORT_KEYS

    fields = {
        'objects': fields.ListOfObjectsField('VolumeConnector'),
    }
