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

"""Giving a node to an allocation, as Ironic's conductor does.

A new allocation gets an available node, not in maintenance, without
an instance and with a known power state, of its resource class, having every trait it asks for,
among its candidate nodes if it names some and, if it has an owner,
owned or leased by that project. The candidates are tried in a random
order (so concurrent allocations rarely race for the same node) with the
scheduler's claim (Node.claim, one conditional UPDATE): a node another
allocation or a server took meanwhile is skipped. The claim, the traits
written into the node's ``instance_info`` and the allocation's
``node_id`` and ``active`` state are one transaction.

A backfilled allocation (1.58) records the node an operator deployed by
hand: the node must be ``active`` and match the allocation.
"""

import contextlib
import random

import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini.objects.baremetal import node_filters
from nova_mini.objects.baremetal import node_provision
from nova_mini.objects.baremetal import node_trait
from nova_mini import states

_ALLOCATIONS = models.Allocation.__table__
_NODES = models.Node.__table__


class AllocationFailed(Exception):
    """No node could be given; str() is Ironic's ``last_error``."""

    def __init__(self, uuid, error):
        super().__init__('Failed to process allocation %s: %s.'
                         % (uuid, error))


@db_api.context_manager.reader
def _candidates(context, allocation, with_traits):
    filters = {'resource_class': allocation.resource_class,
               'provision_state': states.AVAILABLE,
               'maintenance': False, 'associated': False,
               'project': allocation.owner or None}
    if with_traits:
        filters['traits'] = allocation.traits
    found = node_filters.conditions(filters,
                                    dialect=context.session.get_bind().dialect.name)
    # As Ironic: a node whose power state is not known yet is not given.
    found.append(_NODES.c.power_state.isnot(None))
    if allocation.candidate_nodes:
        found.append(_NODES.c.uuid.in_(list(allocation.candidate_nodes)))
    return [(row.id, row.uuid, row.instance_info) for row in
            context.session.execute(sa.select(
                _NODES.c.id, _NODES.c.uuid, _NODES.c.instance_info).where(
                    *found))]


@db_api.context_manager.writer
def _take(context, allocation, node_id, node_uuid, instance_info):
    """Claim the node for the allocation and record it; whether it did."""
    if allocation.traits:
        instance_info = dict(instance_info or {}, traits=allocation.traits)
    else:
        instance_info = None
    # A claim refused by the unique instance_uuid (the allocation's uuid is
    # another node's instance) must leave the transaction usable, for the
    # failure to be recorded in it (see create). PostgreSQL aborts a
    # transaction at a failed statement: a savepoint there. (Not on
    # MariaDB: a deadlock there ends the whole transaction, savepoint
    # included, and the rollback to it would hide the deadlock from the
    # retry.)
    postgresql = context.session.get_bind().dialect.name == 'postgresql'
    with (context.session.begin_nested() if postgresql
          else contextlib.nullcontext()):
        claimed = node_provision.claim(context, node_uuid, allocation.uuid,
                                       instance_info)
    if not claimed:
        return False
    return bool(context.session.execute(_ALLOCATIONS.update().where(
        _ALLOCATIONS.c.id == allocation.id).values(
            node_id=node_id, state=allocation_obj.ACTIVE,
            last_error=None)).rowcount)


def _fail(allocation, error):
    allocation.state = allocation_obj.ERROR
    allocation.last_error = str(error)
    allocation.node_id = None
    try:
        allocation.save()
    except exception_baremetal.AllocationNotFound:
        # Deleted meanwhile: nothing to record.
        pass


def allocate(allocation):
    """Give the stored allocation ``allocation`` a node, or mark it failed.

    :param allocation: an Allocation in state ``allocating``.
    :returns: the Allocation, ``active`` with its node_id, or ``error``
        with its last_error.
    """
    context = allocation._context
    try:
        nodes = _candidates(context, allocation, with_traits=False)
        if not nodes:
            if allocation.candidate_nodes:
                raise AllocationFailed(
                    allocation.uuid, 'none of the requested nodes are '
                    'available and match the resource class %s'
                    % allocation.resource_class)
            raise AllocationFailed(
                allocation.uuid, 'no available nodes match the resource '
                'class %s' % allocation.resource_class)
        if allocation.traits:
            nodes = _candidates(context, allocation, with_traits=True)
            if not nodes:
                raise AllocationFailed(
                    allocation.uuid, 'no suitable nodes have the requested '
                    'traits %s' % ', '.join(allocation.traits))
        random.shuffle(nodes)
        for node_id, node_uuid, instance_info in nodes:
            try:
                taken = _take(context, allocation, node_id, node_uuid,
                              instance_info)
            except exception_baremetal.InstanceAssociated:
                # The uuid given to the allocation is another node's
                # instance.
                raise AllocationFailed(
                    allocation.uuid, 'another node is associated with '
                    'instance %s' % allocation.uuid)
            if taken:
                return allocation_obj.Allocation.get_by_uuid(
                    context, allocation.uuid)
        raise AllocationFailed(
            allocation.uuid,
            'could not reserve any of %d suitable nodes' % len(nodes))
    except AllocationFailed as error:
        _fail(allocation, error)
    return allocation


@db_api.context_manager.writer
def _backfill(context, allocation, node):
    errors = []
    row = context.session.execute(sa.select(
        _NODES.c.provision_state, _NODES.c.resource_class,
        _NODES.c.instance_uuid).where(_NODES.c.id == node.id)).first()
    if row is None:
        raise exception_baremetal.NodeNotFound(node=node.uuid)
    if row.provision_state != states.ACTIVE:
        errors.append('Node must be in the "active" state, but the current '
                      'state is "%s"' % row.provision_state)
    if (allocation.resource_class
            and row.resource_class != allocation.resource_class):
        errors.append('Resource class %s does not match the requested '
                      'resource class %s' % (row.resource_class,
                                             allocation.resource_class))
    if allocation.traits:
        has = set(node_trait._names(context, node.id))
        if not has.issuperset(allocation.traits):
            errors.append('List of traits %s does not match the requested '
                          'traits %s' % (sorted(has), allocation.traits))
    if (allocation.candidate_nodes
            and node.uuid not in allocation.candidate_nodes):
        errors.append('Candidate nodes must be empty or contain the target '
                      'node, but got %s' % allocation.candidate_nodes)
    if not errors and row.instance_uuid not in (None, allocation.uuid):
        errors.append('Node is associated with instance %s'
                      % row.instance_uuid)
    if errors:
        raise AllocationFailed(
            allocation.uuid, 'Cannot backfill an allocation for node %s: %s'
            % (node.uuid, '; '.join(errors)))
    # The conditional update settles a race with a server's claim.
    free = sa.or_(_NODES.c.instance_uuid.is_(None),
                  _NODES.c.instance_uuid == allocation.uuid)
    if not context.session.execute(_NODES.update().where(
            _NODES.c.id == node.id, free).values(
                instance_uuid=allocation.uuid)).rowcount:
        raise AllocationFailed(allocation.uuid, 'node %s was taken by '
                               'another instance' % node.uuid)
    context.session.execute(_ALLOCATIONS.update().where(
        _ALLOCATIONS.c.id == allocation.id).values(
            node_id=node.id, state=allocation_obj.ACTIVE, last_error=None))


def backfill(allocation, node):
    """Record the deployed node ``node`` as ``allocation``'s (1.58), or
    mark the allocation failed.

    :param allocation: a stored Allocation in state ``allocating``.
    :param node: the Node named by the request.
    :returns: the Allocation, ``active`` or ``error``.
    """
    context = allocation._context
    try:
        _backfill(context, allocation, node)
    except AllocationFailed as error:
        _fail(allocation, error)
        return allocation
    return allocation_obj.Allocation.get_by_uuid(context, allocation.uuid)


@db_api.context_manager.writer
def _create(context, allocation, node):
    allocation.create()
    created = allocation.obj_clone()
    if node is not None:
        return created, backfill(allocation, node)
    return created, allocate(allocation)


def create(allocation, node=None):
    """Store a new allocation and give it a node (``allocate``), or the
    deployed ``node`` (``backfill``), in one transaction: a request that
    fails (the database gone) leaves no allocation behind, and one that
    is answered has its outcome stored (``active`` or ``error``).

    :param allocation: an Allocation not yet created.
    :param node: the Node of a backfill (1.58), or None.
    :returns: ``(the allocation as created, allocating; the allocation
        as given, active or error)``.
    :raises nova_mini.exception_baremetal.AllocationAlreadyExists: the uuid is
        taken.
    :raises nova_mini.exception_baremetal.AllocationDuplicateName: the name is.
    """
    return _create(allocation._context, allocation, node)
