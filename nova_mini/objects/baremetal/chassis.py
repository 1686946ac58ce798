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

"""Chassis and ChassisList: groups of bare-metal nodes (Ironic's chassis).

A chassis holding nodes is not deleted: the delete removes the row only
where no node names it, in one statement, and the foreign key of nodes
refuses a delete racing a node's insert (ChassisNotEmpty); a node whose
chassis went meanwhile is refused on the same key where the database
enforces it (PostgreSQL, MySQL).
"""

from oslo_db import exception as db_exc
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import paging
from nova_mini.objects import base
from nova_mini.objects import fields

_CHASSIS = models.Chassis.__table__
_NODES = models.Node.__table__
COLUMNS = ('id', 'uuid', 'description', 'extra', 'created_at', 'updated_at')
SORT_KEYS = ('id', 'uuid', 'description', 'created_at', 'updated_at')


@db_api.context_manager.writer
def _destroy(context, chassis_id, ident):
    holds_nodes = sa.exists().where(_NODES.c.chassis_id == chassis_id)
    try:
        deleted = context.session.execute(_CHASSIS.delete().where(
            _CHASSIS.c.id == chassis_id, ~holds_nodes)).rowcount
    except db_exc.DBReferenceError:
        # A node joining the chassis committed while this delete waited
        # for its row: the foreign key keeps the chassis.
        raise exception_baremetal.ChassisNotEmpty(chassis=ident)
    if deleted:
        return
    if context.session.execute(sa.select(_CHASSIS.c.id).where(
            _CHASSIS.c.id == chassis_id)).first() is None:
        raise exception_baremetal.ChassisNotFound(chassis=ident)
    raise exception_baremetal.ChassisNotEmpty(chassis=ident)


@base.NovaMiniObjectRegistry.register
class Chassis(db_row.DBRow, base.NovaMiniPersistentObject,
              base.NovaMiniObject):
    """A chassis: a description and ``extra`` data, and nodes naming it."""

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = models.Chassis
    COLUMNS = COLUMNS
    EMPTY = {'extra': {}}

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'description': fields.StringField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
    }

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.ChassisNotFound(chassis=ident)

    @staticmethod
    def _duplicate(exc, values, ident):
        return exception_baremetal.ChassisExists(uuid=values.get('uuid'))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the chassis of uuid ``uuid``; ChassisNotFound if none."""
        return cls._get_by(context, 'uuid', uuid)

    @classmethod
    def get_by_id(cls, context, chassis_id):
        """Load the chassis of id ``chassis_id``; ChassisNotFound if none."""
        return cls._get_by(context, 'id', chassis_id)

    def create(self):
        """Insert the chassis; ChassisExists if its uuid is taken."""
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._insert_row(values)

    def save(self):
        """Store the changed fields; ChassisNotFound if it is gone."""
        self._update_row(self._column_changes())

    def destroy(self):
        """Delete the chassis.

        :raises nova_mini.exception_baremetal.ChassisNotEmpty: nodes name it.
        :raises nova_mini.exception_baremetal.ChassisNotFound: it is gone.
        """
        _destroy(self._context, self.id, self.uuid)


@db_api.context_manager.reader
def _get_all(context, sort_key, sort_dir, limit, marker):
    # Ironic's answer to a marker naming no chassis.
    return paging.page(
        context.session, context.session.query(models.Chassis),
        models.Chassis, sort_key, sort_dir, limit, marker,
        not_found=lambda uuid: exception_baremetal.ChassisNotFound(chassis=uuid))


@base.NovaMiniObjectRegistry.register
class ChassisList(db_row.DBRowList, base.ObjectListBase,
                  base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = Chassis
    SORT_KEYS = SORT_KEYS

    fields = {
        'objects': fields.ListOfObjectsField('Chassis'),
    }

    @classmethod
    def _rows(cls, context, filters, sort_key, sort_dir, limit, marker):
        return _get_all(context, sort_key, sort_dir, limit, marker)

    @classmethod
    def get_all(cls, context, sort_key='id', sort_dir='asc', limit=None,
                marker=None):
        """Load a page of chassis (no filters); see DBRowList.get_all."""
        return super().get_all(context, None, sort_key, sort_dir, limit,
                               marker)
