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


def _not_found(ident):
    return lambda: exception.VolumeTargetNotFound(target=ident)


@base.NovaMiniObjectRegistry.register
class VolumeTarget(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A node's volume target; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

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

    @classmethod
    def _from_db_object(cls, context, target, result):
        row, node_uuid, owner, lessee = result
        for name in COLUMNS:
            value = getattr(row, name)
            if name in _DICTS and value is None:
                value = {}
            setattr(target, name, value)
        target.node_uuid = node_uuid
        target.node_owner = owner
        target.node_lessee = lessee
        target._context = context
        target.obj_reset_changes()
        return target

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the target of uuid ``uuid``; VolumeTargetNotFound if
        none.
        """
        return cls._from_db_object(context, cls(), node_volume.get(
            context, _MODEL, 'uuid', uuid, _not_found(uuid)))

    def create(self):
        """Insert the target (no node state check, as Ironic).

        :raises nova_mini.exception.VolumeTargetBootIndexAlreadyExists:
            its node has a target of its boot index.
        :raises nova_mini.exception.VolumeTargetAlreadyExists: its uuid is
            taken.
        """
        values = {name: value for name, value in self.obj_get_changes().items()
                  if name in COLUMNS}
        values.setdefault('uuid', uuidutils.generate_uuid())
        for name in _DICTS:
            values.setdefault(name, {})
        self._from_db_object(self._context, self, node_volume.create(
            self._context, _MODEL, values, _duplicate))

    def save(self):
        """Store the changed fields, if the (new) node is powered off.

        :raises nova_mini.exception.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.VolumeTargetBootIndexAlreadyExists:
            the node has a target of the new boot index.
        :raises nova_mini.exception.VolumeTargetNotFound: it is gone.
        """
        values = {name: value for name, value in self.obj_get_changes().items()
                  if name in COLUMNS}
        result = node_volume.update(
            self._context, _MODEL, self.id, self.node_id, values,
            'volume target update', _duplicate, _not_found(self.uuid))
        self._from_db_object(self._context, self, result)

    def destroy(self):
        """Delete the target, if its node is powered off (or enrolled or
        manageable).

        :raises nova_mini.exception.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.VolumeTargetNotFound: it is gone.
        """
        node_volume.destroy(self._context, _MODEL, self.id, self.node_id,
                            'volume target deletion', _not_found(self.uuid))


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
        rows = node_volume.get_all(
            context, _MODEL, filters or {}, sort_key, sort_dir, limit, marker,
            lambda uuid: exception.VolumeTargetNotFound(target=uuid))
        result = cls(context)
        result.objects = [
            VolumeTarget._from_db_object(context, VolumeTarget(), row)
            for row in rows]
        result.obj_reset_changes()
        return result
