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

"""VolumeTarget and VolumeTargetList: remote volumes attached to
bare-metal nodes (Ironic's volume targets). The target of boot index 0
is the node's boot volume; a node's boot indexes are unique: the unique
constraint decides between concurrent creates (the loser gets a 409). A
target is loaded with its node's uuid, owner and lessee.
"""

from oslo_utils import uuidutils

from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import db_row
from nova_mini.objects import fields
from nova_mini.objects import node_volume

_MODEL = models.VolumeTarget
COLUMNS = ('id', 'uuid', 'node_id', 'volume_type', 'properties',
           'boot_index', 'volume_id', 'extra', 'created_at', 'updated_at')
_DICTS = ('properties', 'extra')
SORT_KEYS = ('id', 'uuid', 'volume_type', 'boot_index', 'volume_id',
             'created_at', 'updated_at')


def _duplicate(exc, values):
    columns = set(exc.columns or ())
    if columns & {'boot_index', 'node_id',
                  'uniq_volumetargets0node_id0boot_index'}:
        return exception.VolumeTargetBootIndexAlreadyExists(
            boot_index=values.get('boot_index'))
    return exception.VolumeTargetAlreadyExists(uuid=values.get('uuid'))


@base.NovaMiniObjectRegistry.register
class VolumeTarget(db_row.DBRow, base.NovaMiniPersistentObject,
                   base.NovaMiniObject):
    """A node's volume target; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = _MODEL
    COLUMNS = COLUMNS
    EMPTY = dict.fromkeys(_DICTS, {})
    JOINED = ('node_uuid', 'node_owner', 'node_lessee')

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'node_id': fields.IntegerField(),
        'node_uuid': fields.UUIDField(nullable=True),
        'node_owner': fields.StringField(nullable=True),
        'node_lessee': fields.StringField(nullable=True),
        'volume_type': fields.StringField(),
        'properties': fields.FlexibleDictField(nullable=True),
        'boot_index': fields.IntegerField(),
        'volume_id': fields.StringField(),
        'extra': fields.FlexibleDictField(nullable=True),
    }

    @staticmethod
    def _query(session):
        return node_volume.query(session, _MODEL)

    @staticmethod
    def _not_found(ident):
        return exception.VolumeTargetNotFound(target=ident)

    @staticmethod
    def _write_error(exc, values, ident):
        return node_volume.write_error(exc, values, _duplicate)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the target of uuid ``uuid``; VolumeTargetNotFound if
        none.
        """
        return cls._get_by(context, 'uuid', uuid)

    def create(self):
        """Insert the target (no node state check, as Ironic).

        :raises nova_mini.exception.VolumeTargetBootIndexAlreadyExists:
            its node has a target of its boot index.
        :raises nova_mini.exception.VolumeTargetAlreadyExists: its uuid is
            taken.
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._insert_row(values)

    def save(self):
        """Store the changed fields, if the (new) node is powered off.

        :raises nova_mini.exception.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.VolumeTargetBootIndexAlreadyExists:
            the node has a target of the new boot index.
        :raises nova_mini.exception.VolumeTargetNotFound: it is gone.
        """
        values = self._column_changes()
        result = node_volume.update(
            self._context, type(self), self.id, self.uuid, self.node_id,
            values, 'volume target update')
        self._from_db_object(self._context, self, result)

    def destroy(self):
        """Delete the target, if its node is powered off (or enrolled or
        manageable).

        :raises nova_mini.exception.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.VolumeTargetNotFound: it is gone.
        """
        node_volume.destroy(self._context, type(self), self.id, self.uuid,
                            self.node_id, 'volume target deletion')


@base.NovaMiniObjectRegistry.register
class VolumeTargetList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('VolumeTarget'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='id', sort_dir='asc',
                limit=None, marker=None):
        """Load a page of targets.

        :param filters: ``node_id`` (a node's), ``project`` (those of the
            nodes it owns or leases); None values are ignored.
        :param sort_key: one of SORT_KEYS (ties go by id).
        :param sort_dir: ``asc`` or ``desc``.
        :param limit: the most returned (None: all).
        :param marker: the uuid of the target the page follows.
        :raises nova_mini.exception.VolumeTargetNotFound: no target has
            the marker's uuid (of ``filters['project']``, if given).
        :raises nova_mini.exception.InvalidSortKey: not a sort key.
        """
        if sort_key not in SORT_KEYS:
            raise exception.InvalidSortKey(sort_key=sort_key)
        rows = node_volume.get_all(context, VolumeTarget, filters or {}, sort_key,
                                   sort_dir, limit, marker)
        result = cls(context)
        result.objects = VolumeTarget._from_rows(context, rows)
        result.obj_reset_changes()
        return result
