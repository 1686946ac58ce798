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

from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_volume
from nova_mini.objects import base
from nova_mini.objects import fields

_MODEL = models.VolumeTarget
COLUMNS = ('id', 'uuid', 'node_id', 'volume_type', 'properties',
           'boot_index', 'volume_id', 'extra', 'created_at', 'updated_at')
_DICTS = ('properties', 'extra')
SORT_KEYS = ('id', 'uuid', 'volume_type', 'boot_index', 'volume_id',
             'created_at', 'updated_at')


@base.NovaMiniObjectRegistry.register
class VolumeTarget(node_volume.VolumeRow, base.NovaMiniPersistentObject,
                   base.NovaMiniObject):
    """A node's volume target; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = _MODEL
    COLUMNS = COLUMNS
    EMPTY = dict.fromkeys(_DICTS, {})
    ACTION = 'volume target'

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
    def _duplicate(cls, exc, values, ident):
        if cls._duplicate_of(exc, 'node_id', 'boot_index'):
            return exception_baremetal.VolumeTargetBootIndexAlreadyExists(
                boot_index=values.get('boot_index'))
        return exception_baremetal.VolumeTargetAlreadyExists(
            uuid=values.get('uuid'))

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.VolumeTargetNotFound(target=ident)

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the target of uuid ``uuid``; VolumeTargetNotFound if
        none.
        """
        return cls._get_by(context, 'uuid', uuid)


@base.NovaMiniObjectRegistry.register
class VolumeTargetList(node_volume.VolumeRowList, base.ObjectListBase,
                       base.NovaMiniObject):
    """Pages of targets (``get_all``); filters: ``node_id`` (a
    node's), ``project`` (those of the nodes it owns or leases).
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = VolumeTarget
    SORT_KEYS = SORT_KEYS

    fields = {
        'objects': fields.ListOfObjectsField('VolumeTarget'),
    }
