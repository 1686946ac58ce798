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

"""Portgroup and PortgroupList: ports of a node bonded together
(Ironic's port groups). Names and MAC addresses are unique (the unique
constraints decide between concurrent writes: 409). A port group holding
ports is not deleted: the delete removes the row only where no port
names it, in one statement (and the ports' foreign key refuses a delete
racing a port's insert).
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

_GROUPS = models.Portgroup.__table__
_PORTS = models.Port.__table__
COLUMNS = ('id', 'uuid', 'name', 'address', 'node_id', 'extra',
           'internal_info', 'standalone_ports_supported', 'mode',
           'properties', 'created_at', 'updated_at')
_DICTS = ('extra', 'internal_info', 'properties')
SORT_KEYS = ('id', 'uuid', 'name', 'address', 'created_at', 'updated_at')
# Ironic's default bonding mode ([DEFAULT] default_portgroup_mode).
DEFAULT_MODE = 'active-backup'


def _query(session):
    return session.query(models.Portgroup, models.Node.uuid,
                         models.Node.owner, models.Node.lessee).join(
        models.Node, models.Node.id == models.Portgroup.node_id)


@db_api.context_manager.writer
def _destroy(context, group_id, ident):
    has_ports = sa.exists().where(_PORTS.c.portgroup_id == group_id)
    try:
        deleted = context.session.execute(_GROUPS.delete().where(
            _GROUPS.c.id == group_id, ~has_ports)).rowcount
    except db_exc.DBReferenceError:
        raise exception_baremetal.PortgroupNotEmpty(portgroup=ident)
    if deleted:
        return
    if context.session.execute(sa.select(_GROUPS.c.id).where(
            _GROUPS.c.id == group_id)).first() is None:
        raise exception_baremetal.PortgroupNotFound(portgroup=ident)
    raise exception_baremetal.PortgroupNotEmpty(portgroup=ident)


@base.NovaMiniObjectRegistry.register
class Portgroup(db_row.DBRow, base.NovaMiniPersistentObject,
                base.NovaMiniObject):
    """A node's port group; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'
    MODEL = models.Portgroup
    COLUMNS = COLUMNS
    EMPTY = dict.fromkeys(_DICTS, {})
    JOINED = ('node_uuid', 'node_owner', 'node_lessee')

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'address': fields.StringField(nullable=True),
        'node_id': fields.IntegerField(),
        'node_uuid': fields.UUIDField(nullable=True),
        'node_owner': fields.StringField(nullable=True),
        'node_lessee': fields.StringField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
        'internal_info': fields.FlexibleDictField(nullable=True),
        'standalone_ports_supported': fields.BooleanField(default=True),
        'mode': fields.StringField(nullable=True),
        'properties': fields.FlexibleDictField(nullable=True),
    }

    _query = staticmethod(_query)

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.PortgroupNotFound(portgroup=ident)

    @classmethod
    def _duplicate(cls, exc, values, ident):
        if cls._duplicate_of(exc, 'address'):
            return exception_baremetal.PortgroupMACAlreadyExists(mac=values.get('address'))
        if cls._duplicate_of(exc, 'name'):
            return exception_baremetal.PortgroupDuplicateName(name=values.get('name'))
        return exception_baremetal.PortgroupExists(uuid=values.get('uuid'))

    _missing_reference = staticmethod(db_row.node_gone)

    @classmethod
    def get(cls, context, ident):
        """Load the port group of uuid (or name) ``ident``;
        PortgroupNotFound if none.
        """
        column = 'uuid' if uuidutils.is_uuid_like(ident) else 'name'
        return cls._get_by(context, column, ident)

    def create(self):
        """Insert the port group.

        :raises nova_mini.exception_baremetal.PortgroupMACAlreadyExists: its
            address is taken (PortgroupDuplicateName: its name,
            PortgroupExists: its uuid).
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('standalone_ports_supported', True)
        values.setdefault('mode', DEFAULT_MODE)
        self._insert_row(values)

    def save(self):
        """Store the changed fields (errors as create; PortgroupNotFound
        if it is gone).
        """
        values = self._column_changes()
        self._update_row(values)
        if values:
            self._reload()

    def destroy(self):
        """Delete the port group.

        :raises nova_mini.exception_baremetal.PortgroupNotEmpty: ports are in it.
        :raises nova_mini.exception_baremetal.PortgroupNotFound: it is gone.
        """
        _destroy(self._context, self.id, self.uuid)


@db_api.context_manager.reader
def _get_all(context, filters, sort_key, sort_dir, limit, marker):
    query = _query(context.session)
    if filters.get('node_id') is not None:
        query = query.filter(models.Portgroup.node_id == filters['node_id'])
    if filters.get('address') is not None:
        query = query.filter(models.Portgroup.address == filters['address'])
    if filters.get('project') is not None:
        project = filters['project']
        query = query.filter(sa.or_(models.Node.owner == project,
                                    models.Node.lessee == project))
    return paging.page(
        context.session, query, models.Portgroup, sort_key, sort_dir, limit,
        marker,
        not_found=lambda uuid: exception_baremetal.PortgroupNotFound(portgroup=uuid),
        visible=paging.of_nodes_of(filters.get('project'), models.Portgroup))


@base.NovaMiniObjectRegistry.register
class PortgroupList(db_row.DBRowList, base.ObjectListBase,
                    base.NovaMiniObject):
    """Pages of port groups (``get_all``); filters: ``node_id``,
    ``address`` (lower case), ``project`` (those of the nodes it owns or
    leases).
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = Portgroup
    SORT_KEYS = SORT_KEYS
    _rows = staticmethod(_get_all)

    fields = {
        'objects': fields.ListOfObjectsField('Portgroup'),
    }
