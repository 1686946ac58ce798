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

"""What volume connectors and volume targets share: reading them with
their node, and the node states in which they may change.

As Ironic's conductor does, a volume resource is changed only while its
node is powered off, and deleted only then or while the node is enrolled
or manageable. The node's row is read (and on PostgreSQL and MariaDB
locked) in the transaction that writes the volume resource, so a power
change cannot slip between the check and the write. Unique constraints
decide between concurrent creates: the loser gets a Conflict (409).
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import paging
from nova_mini import states

# Provision states in which a volume resource of a powered-on node may
# still be deleted (Ironic's states that allow deleting a node).
DELETE_ALLOWED = (states.ENROLL, states.MANAGEABLE, 'adopt failed')


def query(session, model):
    """Rows of ``model`` with their node's uuid, owner and lessee."""
    return session.query(
        model, models.Node.uuid, models.Node.owner,
        models.Node.lessee).join(models.Node,
                                 models.Node.id == model.node_id)


def _check_node(session, node_id, action, deleting):
    node = session.query(
        models.Node.uuid, models.Node.power_state,
        models.Node.provision_state).filter(
        models.Node.id == node_id).with_for_update().first()
    if node is None:
        raise exception_baremetal.NodeNotFound(node=node_id)
    if node.power_state == states.POWER_OFF:
        return
    if deleting and node.provision_state in DELETE_ALLOWED:
        return
    raise exception_baremetal.VolumeNodeStateInvalid(
        action=action, node=node.uuid, state=node.power_state)


@db_api.context_manager.writer
def update(context, cls, row_id, ident, node_id, values, action):
    """Change the row of id ``row_id`` of ``cls`` (a db_row.DBRow class),
    whose node (after the change) is ``node_id`` and must be powered off;
    return the row as ``cls._query`` reads it.
    """
    _check_node(context.session, node_id, action, deleting=False)
    if values:
        values = dict(values, updated_at=timeutils.utcnow())
        table = cls.MODEL.__table__
        try:
            context.session.execute(table.update().where(
                table.c.id == row_id).values(**values))
        except (db_exc.DBDuplicateEntry, db_exc.DBReferenceError) as exc:
            raise cls._write_error(exc, dict(values, node_id=node_id), ident)
    result = cls._query(context.session).filter(
        cls.MODEL.id == row_id).first()
    if result is None:
        raise cls._not_found(ident)
    return result


@db_api.context_manager.writer
def destroy(context, cls, row_id, ident, node_id, action):
    """Delete the row of id ``row_id`` of ``cls`` of node ``node_id``, if
    the node's state allows it.
    """
    _check_node(context.session, node_id, action, deleting=True)
    table = cls.MODEL.__table__
    if not context.session.execute(table.delete().where(
            table.c.id == row_id)).rowcount:
        raise cls._not_found(ident)


def destroy_of_node(context, node_id):
    """Delete every volume resource of node ``node_id``, in the caller's
    writer transaction (the node is being deleted).
    """
    for model in (models.VolumeConnector, models.VolumeTarget):
        table = model.__table__
        context.session.execute(table.delete().where(
            table.c.node_id == node_id))


@db_api.context_manager.reader
def get_all(context, cls, filters, sort_key, sort_dir, limit, marker):
    """A page of rows of ``cls`` (a db_row.DBRow class): ``filters``
    ``node_id``, ``project`` (the nodes it owns or leases: the marker
    too); see paging.page for the rest.
    """
    model = cls.MODEL
    result = cls._query(context.session)
    if filters.get('node_id') is not None:
        result = result.filter(model.node_id == filters['node_id'])
    if filters.get('project') is not None:
        project = filters['project']
        result = result.filter(sa.or_(models.Node.owner == project,
                                      models.Node.lessee == project))
    return paging.page(
        context.session, result, model, sort_key, sort_dir, limit, marker,
        not_found=cls._not_found,
        visible=paging.of_nodes_of(filters.get('project'), model))


class VolumeRow(db_row.DBRow):
    """DBRow of a node's volume resource: read with its node's uuid,
    owner and lessee, created in any node state (as Ironic), changed and
    deleted only in the states above.

    A class sets ``ACTION`` (``volume connector``: the words of
    VolumeNodeStateInvalid) and ``_duplicate(exc, values, ident)``, the
    exception of a unique constraint a write breaks (see DBRow).
    """

    JOINED = ('node_uuid', 'node_owner', 'node_lessee')
    ACTION = None

    @classmethod
    def _query(cls, session):
        return query(session, cls.MODEL)

    _missing_reference = staticmethod(db_row.node_gone)

    def create(self):
        """Insert the resource.

        :raises nova_mini.exception.Conflict: a unique constraint (its
            uuid, its class's own) refuses it (see ``_duplicate``).
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        self._insert_row(values)

    def save(self):
        """Store the changed fields, if the (new) node is powered off.

        :raises nova_mini.exception_baremetal.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.Conflict: a unique constraint refuses
            the change.
        :raises nova_mini.exception.NotFound: it is gone (``_not_found``).
        """
        result = update(self._context, type(self), self.id, self.uuid,
                        self.node_id, self._column_changes(),
                        '%s update' % self.ACTION)
        self._from_db_object(self._context, self, result)

    def destroy(self):
        """Delete the resource, if its node is powered off (or enrolled or
        manageable).

        :raises nova_mini.exception_baremetal.VolumeNodeStateInvalid: it is not.
        :raises nova_mini.exception.NotFound: it is gone (``_not_found``).
        """
        destroy(self._context, type(self), self.id, self.uuid, self.node_id,
                '%s deletion' % self.ACTION)


class VolumeRowList(db_row.DBRowList):
    """DBRowList of a VolumeRow class: its pages read by ``get_all``
    above.
    """

    @classmethod
    def _rows(cls, context, filters, sort_key, sort_dir, limit, marker):
        return get_all(context, cls.ITEM, filters, sort_key, sort_dir, limit,
                       marker)
