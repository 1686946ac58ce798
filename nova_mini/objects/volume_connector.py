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

from oslo_utils import uuidutils

from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import db_row
from nova_mini.objects import fields
from nova_mini.objects import node_volume

_MODEL = models.VolumeConnector
COLUMNS = ('id', 'uuid', 'node_id', 'type', 'connector_id', 'extra',
           'created_at', 'updated_at')
SORT_KEYS = ('id', 'uuid', 'type', 'connector_id', 'created_at',
             'updated_at')
# Ironic's kinds of connector IDs.
TYPES = ('iqn', 'ip', 'mac', 'wwnn', 'wwpn', 'port', 'portgroup')


def _duplicate(exc, values):
    columns = set(exc.columns or ())
    if columns & {'connector_id', 'type',
                  'uniq_volumeconnectors0type0connector_id'}:
        return exception.VolumeConnectorTypeAndIdAlreadyExists(
            type=values.get('type'), connector_id=values.get('connector_id'))
    return exception.VolumeConnectorAlreadyExists(uuid=values.get('uuid'))


@base.NovaMiniObjectRegistry.register
class VolumeConnector(db_row.DBRow, base.NovaMiniPersistentObject,
                      base.NovaMiniObject):
    """A node's volume connector; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = _MODEL
    COLUMNS = COLUMNS
    EMPTY = {'extra': {}}
    JOINED = ('node_uuid', 'node_owner', 'node_lessee')

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

    @staticmethod
    def _query(session):
        return node_volume.query(session, _MODEL)

    @staticmethod
    def _not_found(ident):
        return exception.VolumeConnectorNotFound(connector=ident)

    @staticmethod
    def _write_error(exc, values, ident):
        return node_volume.write_error(exc, values, _duplicate)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the connector of uuid ``uuid``; VolumeConnectorNotFound
        if none.
        """
        return cls._get_by(context, 'uuid', uuid)

    def create(self):
        """Insert the connector (no node state check, as Ironic).

        :raises nova_mini.exception.VolumeConnectorTypeAndIdAlreadyExists:
            its type and connector_id are taken.
        :raises nova_mini.exception.VolumeConnectorAlreadyExists: its uuid
            is taken.
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._insert_row(values)

    def save(self):
        """Store the changed fields, if the (new) node is powered off.

        :raises nova_mini.exception.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.VolumeConnectorTypeAndIdAlreadyExists:
            the new type and connector_id are taken.
        :raises nova_mini.exception.VolumeConnectorNotFound: it is gone.
        """
        values = self._column_changes()
        result = node_volume.update(
            self._context, type(self), self.id, self.uuid, self.node_id,
            values, 'volume connector update')
        self._from_db_object(self._context, self, result)

    def destroy(self):
        """Delete the connector, if its node is powered off (or enrolled
        or manageable).

        :raises nova_mini.exception.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.VolumeConnectorNotFound: it is gone.
        """
        node_volume.destroy(self._context, type(self), self.id, self.uuid,
                            self.node_id, 'volume connector deletion')


@base.NovaMiniObjectRegistry.register
class VolumeConnectorList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('VolumeConnector'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='id', sort_dir='asc',
                limit=None, marker=None):
        """Load a page of connectors.

        :param filters: ``node_id`` (a node's), ``project`` (those of the
            nodes it owns or leases); None values are ignored.
        :param sort_key: one of SORT_KEYS (ties go by id).
        :param sort_dir: ``asc`` or ``desc``.
        :param limit: the most returned (None: all).
        :param marker: the uuid of the connector the page follows.
        :raises nova_mini.exception.VolumeConnectorNotFound: no connector
            has the marker's uuid (of ``filters['project']``, if given).
        :raises nova_mini.exception.InvalidSortKey: not a sort key.
        """
        if sort_key not in SORT_KEYS:
            raise exception.InvalidSortKey(sort_key=sort_key)
        rows = node_volume.get_all(context, VolumeConnector, filters or {}, sort_key,
                                   sort_dir, limit, marker)
        result = cls(context)
        result.objects = VolumeConnector._from_rows(context, rows)
        result.obj_reset_changes()
        return result
