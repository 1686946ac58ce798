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

"""Allocation and AllocationList: requests for a bare-metal node, and the
node each got (Ironic's allocations).

An allocation holds its node the way the scheduler holds one for a
server: the node's ``instance_uuid`` is the allocation's uuid, written by
Node.claim's conditional UPDATE (see node_provision.claim), so a node is
never given to two allocations, nor to an allocation and a server. The
claim and the allocation's ``node_id`` and ``state`` are written in one
transaction (nova_mini.objects.baremetal.node_allocation picks the node).
"""

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import paging
from nova_mini.objects import base
from nova_mini.objects import fields

_ALLOCATIONS = models.Allocation.__table__
_NODES = models.Node.__table__
COLUMNS = ('id', 'uuid', 'name', 'node_id', 'state', 'owner', 'last_error',
           'resource_class', 'traits', 'candidate_nodes', 'extra',
           'created_at', 'updated_at')
SORT_KEYS = ('id', 'uuid', 'name', 'node_id', 'state', 'owner',
             'last_error', 'resource_class', 'created_at', 'updated_at')
_LISTS = ('traits', 'candidate_nodes')

# Ironic's allocation states.
ALLOCATING = 'allocating'
ACTIVE = 'active'
ERROR = 'error'


@db_api.context_manager.writer
def _destroy(context, allocation_id, ident):
    row = context.session.execute(_ALLOCATIONS.select().where(
        _ALLOCATIONS.c.id == allocation_id)).first()
    if row is None:
        raise exception_baremetal.AllocationNotFound(allocation=ident)
    if row.node_id is not None:
        # The update comes first: it locks the node's row, so that no
        # deploy moves it between the check and the release.
        context.session.execute(_NODES.update().where(
            _NODES.c.id == row.node_id,
            _NODES.c.instance_uuid == row.uuid).values(
                instance_uuid=None, updated_at=timeutils.utcnow()))
        node = context.session.execute(_NODES.select().with_only_columns(
            _NODES.c.uuid, _NODES.c.maintenance, _NODES.c.provision_state,
            _NODES.c.target_provision_state).where(
                _NODES.c.id == row.node_id)).first()
        if node is not None and not node.maintenance:
            _check_removable(row.uuid, node)
    context.session.execute(_ALLOCATIONS.delete().where(
        _ALLOCATIONS.c.id == allocation_id))


def _check_removable(uuid, node):
    # As Ironic: the allocation of a deployed node, or of one moving
    # between states, stays (unless the node is in maintenance).
    if node.provision_state == 'active':
        raise exception_baremetal.InvalidState(reason=(
            'Cannot remove allocation %s for node %s, because the node is '
            'active (and maintenance mode is off)' % (uuid, node.uuid)))
    if node.target_provision_state is not None:
        raise exception_baremetal.InvalidState(reason=(
            'Cannot remove allocation %s for node %s, because the node is '
            'in state %s where updates are not allowed (and maintenance '
            'mode is off)' % (uuid, node.uuid, node.provision_state)))


def destroy_of_node(context, node_id):
    """Delete the allocations of node ``node_id``, in the caller's
    transaction (a node torn down or deleted loses its allocation, as in
    Ironic).
    """
    context.session.execute(_ALLOCATIONS.delete().where(
        _ALLOCATIONS.c.node_id == node_id))


@db_api.context_manager.reader
def count_of_owner(context, owner):
    """How many allocations project ``owner`` owns (any state)."""
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_ALLOCATIONS).where(
            _ALLOCATIONS.c.owner == owner)).scalar()


@base.NovaMiniObjectRegistry.register
class Allocation(db_row.DBRow, base.NovaMiniPersistentObject,
                 base.NovaMiniObject):
    """An allocation: what node it asks for, and the node it got."""

    # Version 1.0: Initial version
    VERSION = '1.0'
    JSON_DOCUMENT_FIELDS = _LISTS
    MODEL = models.Allocation
    COLUMNS = COLUMNS
    EMPTY = dict(dict.fromkeys(_LISTS, []), extra={})

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'node_id': fields.IntegerField(nullable=True),
        'state': fields.StringField(),
        'owner': fields.StringField(nullable=True),
        'last_error': fields.StringField(nullable=True),
        'resource_class': fields.StringField(nullable=True),
        'traits': fields.ListOfStringsField(nullable=True),
        'candidate_nodes': fields.ListOfStringsField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
    }

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.AllocationNotFound(allocation=ident)

    @classmethod
    def _duplicate(cls, exc, values, ident):
        if 'uuid' in values and not cls._duplicate_of(exc, 'name'):
            return exception_baremetal.AllocationAlreadyExists(uuid=values['uuid'])
        return exception_baremetal.AllocationDuplicateName(name=values.get('name'))

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the allocation of uuid ``uuid``; AllocationNotFound if none.
        """
        return cls._get_by(context, 'uuid', uuid)

    @classmethod
    def get_by_name(cls, context, name):
        """Load the allocation named ``name``; AllocationNotFound if none.
        """
        return cls._get_by(context, 'name', name)

    @classmethod
    def get_by_node_id(cls, context, node_id):
        """Load the allocation of node ``node_id``; AllocationNotFound if
        none.
        """
        return cls._get_by(context, 'node_id', node_id)

    def create(self):
        """Insert the allocation (state ``allocating`` unless set).

        :raises nova_mini.exception_baremetal.AllocationAlreadyExists: the uuid is
            taken.
        :raises nova_mini.exception_baremetal.AllocationDuplicateName: the name is.
        """
        values = self._column_changes()
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('state', ALLOCATING)
        self._insert_row(values)

    def save(self):
        """Store the changed fields; AllocationNotFound if it is gone."""
        self._update_row(self._column_changes())

    def destroy(self):
        """Delete the allocation and free its node.

        :raises nova_mini.exception_baremetal.InvalidState: the node is deployed or
            moving, and not in maintenance.
        :raises nova_mini.exception_baremetal.AllocationNotFound: it is gone.
        """
        _destroy(self._context, self.id, self.uuid)


@db_api.context_manager.reader
def _get_all(context, filters, sort_key, sort_dir, limit, marker):
    filters = dict(filters)
    project = filters.pop('project', None)
    if project is not None:
        filters['owner'] = project
    query = context.session.query(models.Allocation)
    for name, value in filters.items():
        query = query.filter(getattr(models.Allocation, name) == value)

    def visible(marker_query):
        return marker_query.filter(models.Allocation.owner == project)
    return paging.page(
        context.session, query, models.Allocation, sort_key, sort_dir, limit,
        marker,
        not_found=lambda uuid: exception_baremetal.AllocationNotFound(allocation=uuid),
        visible=None if project is None else visible)


@db_api.context_manager.reader
def node_allocation_uuids(context, node_ids):
    """Return ``{node id: allocation uuid}`` of the nodes ``node_ids``
    that have an allocation holding them.
    """
    if not node_ids:
        return {}
    rows = context.session.execute(
        _ALLOCATIONS.select().with_only_columns(
            _ALLOCATIONS.c.node_id, _ALLOCATIONS.c.uuid).where(
                _ALLOCATIONS.c.node_id.in_(list(node_ids)),
                _ALLOCATIONS.c.state == ACTIVE))
    return {row.node_id: row.uuid for row in rows}


@base.NovaMiniObjectRegistry.register
class AllocationList(db_row.DBRowList, base.ObjectListBase,
                     base.NovaMiniObject):
    """Pages of allocations (``get_all``); filters: ``{column:
    value}`` (node_id, resource_class, state, owner) the allocations
    equal; ``project``: those it owns (a caller's scope).
    """

    # Version 1.0: Initial version
    VERSION = '1.0'

    ITEM = Allocation
    SORT_KEYS = SORT_KEYS
    _rows = staticmethod(_get_all)

    fields = {
        'objects': fields.ListOfObjectsField('Allocation'),
    }
