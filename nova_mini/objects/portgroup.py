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
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import fields
from nova_mini.objects import paging

_GROUPS = models.Portgroup.__table__
_PORTS = models.Port.__table__
COLUMNS = ('id', 'uuid', 'name', 'address', 'node_id', 'extra',
           'internal_info', 'standalone_ports_supported', 'mode',
           'properties', 'created_at', 'updated_at')
_DICTS = ('extra', 'internal_info', 'properties')
SORT_KEYS = ('id', 'uuid', 'name', 'address', 'created_at', 'updated_at')
# Ironic's default bonding mode ([DEFAULT] default_portgroup_mode).
DEFAULT_MODE = 'active-backup'


def _duplicate(exc, values):
    columns = set(exc.columns or ())
    if 'address' in columns or 'uniq_portgroups0address' in columns:
        return exception.PortgroupMACAlreadyExists(mac=values.get('address'))
    if 'name' in columns or 'uniq_portgroups0name' in columns:
        return exception.PortgroupDuplicateName(name=values.get('name'))
    return exception.PortgroupExists(uuid=values.get('uuid'))


def _query(session):
    return session.query(models.Portgroup, models.Node.uuid,
                         models.Node.owner, models.Node.lessee).join(
        models.Node, models.Node.id == models.Portgroup.node_id)


@db_api.context_manager.writer
def _create(context, values):
    row = models.Portgroup(**values)
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    except db_exc.DBReferenceError:
        raise exception.NodeNotFound(node=values.get('node_id'))
    return _query(context.session).filter(
        models.Portgroup.id == row.id).one()


@db_api.context_manager.reader
def _get(context, column, value):
    result = _query(context.session).filter(
        getattr(models.Portgroup, column) == value).first()
    if result is None:
        raise exception.PortgroupNotFound(portgroup=value)
    return result


@db_api.context_manager.writer
def _update(context, group_id, ident, values):
    try:
        count = context.session.execute(_GROUPS.update().where(
            _GROUPS.c.id == group_id).values(**values)).rowcount
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values)
    except db_exc.DBReferenceError:
        raise exception.NodeNotFound(node=values.get('node_id'))
    if not count:
        raise exception.PortgroupNotFound(portgroup=ident)


@db_api.context_manager.writer
def _destroy(context, group_id, ident):
    has_ports = sa.exists().where(_PORTS.c.portgroup_id == group_id)
    try:
        deleted = context.session.execute(_GROUPS.delete().where(
            _GROUPS.c.id == group_id, ~has_ports)).rowcount
    except db_exc.DBReferenceError:
        raise exception.PortgroupNotEmpty(portgroup=ident)
    if deleted:
        return
    if context.session.execute(sa.select(_GROUPS.c.id).where(
            _GROUPS.c.id == group_id)).first() is None:
        raise exception.PortgroupNotFound(portgroup=ident)
    raise exception.PortgroupNotEmpty(portgroup=ident)


@base.NovaMiniObjectRegistry.register
class Portgroup(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A node's port group; ``node_uuid``, ``node_owner`` and
    ``node_lessee`` are its node's, read with it.
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

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

    @classmethod
    def _from_db_object(cls, context, group, result):
        row, node_uuid, owner, lessee = result
        for name in COLUMNS:
            value = getattr(row, name)
            if name in _DICTS and value is None:
                value = {}
            setattr(group, name, value)
        group.node_uuid = node_uuid
        group.node_owner = owner
        group.node_lessee = lessee
        group._context = context
        group.obj_reset_changes()
        return group

    @classmethod
    def get(cls, context, ident):
        """Load the port group of uuid (or name) ``ident``;
        PortgroupNotFound if none.
        """
        column = 'uuid' if uuidutils.is_uuid_like(ident) else 'name'
        return cls._from_db_object(context, cls(),
                                   _get(context, column, ident))

    def create(self):
        """Insert the port group.

        :raises nova_mini.exception.PortgroupMACAlreadyExists: its
            address is taken (PortgroupDuplicateName: its name,
            PortgroupExists: its uuid).
        """
        values = {name: value for name, value in self.obj_get_changes().items()
                  if name in COLUMNS}
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('standalone_ports_supported', True)
        values.setdefault('mode', DEFAULT_MODE)
        for name in _DICTS:
            values.setdefault(name, {})
        self._from_db_object(self._context, self,
                             _create(self._context, values))

    def save(self):
        """Store the changed fields (errors as create; PortgroupNotFound
        if it is gone).
        """
        values = {name: value for name, value in self.obj_get_changes().items()
                  if name in COLUMNS}
        if values:
            values['updated_at'] = timeutils.utcnow()
            _update(self._context, self.id, self.uuid, values)
            self._from_db_object(self._context, self,
                                 _get(self._context, 'id', self.id))
        self.obj_reset_changes()

    def destroy(self):
        """Delete the port group.

        :raises nova_mini.exception.PortgroupNotEmpty: ports are in it.
        :raises nova_mini.exception.PortgroupNotFound: it is gone.
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
        not_found=lambda uuid: exception.PortgroupNotFound(portgroup=uuid),
        visible=paging.of_nodes_of(filters.get('project'), models.Portgroup))


@base.NovaMiniObjectRegistry.register
class PortgroupList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Portgroup'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='id', sort_dir='asc',
                limit=None, marker=None):
        """Load a page of port groups.

        :param filters: ``node_id``, ``address`` (lower case),
            ``project`` (of the nodes it owns or leases); None ignored.
        :param sort_key: one of SORT_KEYS (ties go by id).
        :returns: a PortgroupList.
        :raises nova_mini.exception.PortgroupNotFound: no port group has
            the marker's uuid (of ``filters['project']``, if given).
        :raises nova_mini.exception.InvalidSortKey: not a sort key.
        """
        if sort_key not in SORT_KEYS:
            raise exception.InvalidSortKey(sort_key=sort_key)
        rows = _get_all(context, filters or {}, sort_key, sort_dir, limit,
                        marker)
        result = cls(context)
        result.objects = [Portgroup._from_db_object(context, Portgroup(), row)
                          for row in rows]
        result.obj_reset_changes()
        return result
