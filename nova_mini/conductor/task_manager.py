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

"""Nodes' reservations: the exclusive hold a nova-mini-conductor takes on
a node while it works on it (Ironic's ``reservation``, its exclusive
lock).

A reservation is the conductor's host in ``nodes.reservation``, taken by
one conditional UPDATE (``WHERE reservation IS NULL``): the database
decides which of concurrent requests, on one conductor or several, gets
the node, and the others answer 409 NodeLocked after ``[conductor]
node_locked_retry_attempts`` tries ``node_locked_retry_interval`` seconds
apart. It is released by an UPDATE that only clears the host's own
reservation, so a conductor never releases what another one holds.

Reads (boot device, sensors, validation) take none, as Ironic's shared
locks block nobody.

What the hardware changes in the node's ``driver_internal_info`` while a
Task holds it (the redfish driver's ``redfish_boot_device``) is stored
with the Task's next write or release: only the keys it set or removed,
merged into the document as stored then, its row locked from the read to
the write, so that concurrent changes of other keys are kept.
"""

import contextlib
import copy
import time

from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node as node_obj

LOG = logging.getLogger(__name__)
_NODES = models.Node.__table__


def _ident_clause(node_ident):
    """The WHERE clause naming the node ``node_ident``: its id (an int),
    uuid or name.
    """
    if isinstance(node_ident, int):
        return _NODES.c.id == node_ident
    if uuidutils.is_uuid_like(node_ident):
        return _NODES.c.uuid == node_ident
    return _NODES.c.name == node_ident


@db_api.autocommit
@db_api.context_manager.writer
def reserve(context, node_ident, host):
    """Reserve the node for ``host`` if nobody holds it: one UPDATE.

    :param context: a RequestContext.
    :param node_ident: the node's id, uuid or name.
    :param host: the conductor's host.
    :returns: whether this call reserved it.
    """
    return bool(context.session.execute(
        _NODES.update().where(_ident_clause(node_ident),
                              _NODES.c.reservation.is_(None))
        .values(reservation=host)).rowcount)


@db_api.autocommit
@db_api.context_manager.writer
def release(context, node_id, host, values=None):
    """Clear the reservation of the node of id ``node_id`` if ``host``
    still holds it, writing ``values`` (other columns) in the same UPDATE.

    :param context: a RequestContext.
    :param values: columns to write with the release (None: none); with
        them, ``updated_at`` is set.
    :returns: whether the host held it (False: it was released already,
        by the takeover of a host thought dead, or the node is gone; then
        nothing is written).
    """
    values = dict(values or {})
    if values:
        values['updated_at'] = timeutils.utcnow()
    values['reservation'] = None
    return bool(context.session.execute(
        _NODES.update().where(_NODES.c.id == node_id,
                              _NODES.c.reservation == host)
        .values(**values)).rowcount)


@db_api.context_manager.writer
def release_merging(context, node_id, host, values, internal):
    """``release`` with the changes ``internal`` (``(set, removed)``: the
    keys to set and those to remove) merged into the node's
    driver_internal_info as stored now, in one transaction, the row
    locked from its read to the write.

    :returns: the driver_internal_info stored, or None if the host no
        longer held the node (nothing is written then).
    """
    merged = _merged_internal(context, node_id, host, internal)
    if merged is None or not release(
            context, node_id, host,
            dict(values or {}, driver_internal_info=merged)):
        return None
    return merged


@db_api.context_manager.writer
def write_merging(context, node_id, host, values, internal):
    """``write`` with ``internal`` merged as ``release_merging`` does;
    returns what it stored, or None.
    """
    merged = _merged_internal(context, node_id, host, internal)
    if merged is None or not write(
            context, node_id, host,
            dict(values, driver_internal_info=merged)):
        return None
    return merged


def _merged_internal(context, node_id, host, internal):
    row = context.session.execute(
        sa.select(_NODES.c.driver_internal_info)
        .where(_NODES.c.id == node_id, _NODES.c.reservation == host)
        .with_for_update()).first()
    if row is None:
        return None
    changed, removed = internal
    merged = dict(row.driver_internal_info or {})
    merged.update(changed)
    for key in removed:
        merged.pop(key, None)
    return merged


@db_api.autocommit
@db_api.context_manager.writer
def write(context, node_id, host, values):
    """Write ``values`` on the node of id ``node_id`` if ``host`` holds
    it (the reservation stays).

    :returns: whether it did.
    """
    values = dict(values, updated_at=timeutils.utcnow())
    return bool(context.session.execute(
        _NODES.update().where(_NODES.c.id == node_id,
                              _NODES.c.reservation == host)
        .values(**values)).rowcount)


@db_api.context_manager.reader
def holder(context, node_ident):
    """Return the host holding the node's reservation (None: nobody).

    :raises nova_mini.exception_baremetal.NodeNotFound: no such node.
    """
    row = context.session.execute(sa.select(_NODES.c.reservation).where(
        _ident_clause(node_ident))).first()
    if row is None:
        raise exception_baremetal.NodeNotFound(node=node_ident)
    return row.reservation


@db_api.context_manager.reader
def reserved_by(context, hosts):
    """Return ``[(node id, node uuid, reservation)]`` of the nodes
    reserved by any of ``hosts``, by id.
    """
    if not hosts:
        return []
    return [tuple(row) for row in context.session.execute(
        sa.select(_NODES.c.id, _NODES.c.uuid, _NODES.c.reservation)
        .where(_NODES.c.reservation.in_(sorted(hosts)))
        .order_by(_NODES.c.id))]


def load(context, node_ident):
    """Load the Node ``node_ident`` (id, uuid or name)."""
    if isinstance(node_ident, int):
        return node_obj.Node.get_by_id(context, node_ident)
    if uuidutils.is_uuid_like(node_ident):
        return node_obj.Node.get_by_uuid(context, node_ident)
    return node_obj.Node.get_by_name(context, node_ident)


def reserve_or_raise(context, node_ident, host, attempts=None,
                     interval=None):
    """Reserve the node for ``host``, retrying while another holds it.

    :param attempts: how many tries (None: ``[conductor]
        node_locked_retry_attempts``).
    :param interval: seconds between tries (None: ``[conductor]
        node_locked_retry_interval``).
    :raises nova_mini.exception_baremetal.NodeLocked: still held by
        another after the last try.
    :raises nova_mini.exception_baremetal.NodeNotFound: no such node.
    """
    options = conf.CONF.conductor
    attempts = options.node_locked_retry_attempts if attempts is None \
        else attempts
    interval = options.node_locked_retry_interval if interval is None \
        else interval
    for attempt in range(1, max(attempts, 1) + 1):
        if reserve(context, node_ident, host):
            return
        current = holder(context, node_ident)
        if attempt == max(attempts, 1):
            break
        if current is not None:
            LOG.debug('Node %s is reserved by %s; trying again in %ss',
                      node_ident, current, interval)
            time.sleep(interval)
    raise exception_baremetal.NodeLocked(node=node_ident,
                                         host=current or 'another host')


class Task(object):
    """A node reserved by this conductor: ``node`` (the Node, loaded once
    reserved), ``host``.

    ``release()`` gives it back; ``hand_over()`` tells ``acquire`` that a
    worker took the task and will release it itself.
    """

    def __init__(self, context, node, host):
        self.context = context
        self.node = node
        self.host = host
        self.handed_over = False
        self.released = False
        if node.driver_internal_info is None:
            # The hardware records its state in the document.
            node.driver_internal_info = {}
            node.obj_reset_changes(['driver_internal_info'])
        self._internal = copy.deepcopy(node.driver_internal_info)

    def internal_changes(self):
        """``(set, removed)``: the keys of the node's driver_internal_info
        the hardware set (with their values) and removed since the Task
        was made or last stored; None if none.
        """
        now = self.node.driver_internal_info or {}
        changed = {key: value for key, value in now.items()
                   if key not in self._internal or
                   self._internal[key] != value}
        removed = sorted(key for key in self._internal if key not in now)
        if not changed and not removed:
            return None
        return copy.deepcopy(changed), removed

    def _stored(self, values):
        if 'driver_internal_info' in values:
            self._internal = copy.deepcopy(values['driver_internal_info'])

    def hand_over(self):
        """The node stays reserved when ``acquire``'s block ends."""
        self.handed_over = True

    def write(self, **values):
        """Store ``values`` on the node (still reserved) and on ``node``,
        with the hardware's changes of its driver_internal_info.
        """
        internal = self.internal_changes()
        if internal is not None and 'driver_internal_info' not in values:
            merged = write_merging(self.context, self.node.id, self.host,
                                   values, internal)
            stored = merged is not None
            if stored:
                values = dict(values, driver_internal_info=merged)
        else:
            stored = write(self.context, self.node.id, self.host, values)
        if not stored:
            LOG.warning('Node %s is no longer reserved by %s; not storing '
                        '%s', self.node.uuid, self.host, sorted(values))
            return False
        _apply(self.node, values)
        self._stored(values)
        return True

    def release(self, **values):
        """Release the node, storing ``values`` in the same UPDATE; once
        only. A reservation another host took meanwhile stays.

        :returns: whether this host still held it.
        """
        if self.released:
            return False
        self.released = True
        internal = self.internal_changes()
        if internal is not None and 'driver_internal_info' not in values:
            merged = release_merging(self.context, self.node.id,
                                     self.host, values, internal)
            held = merged is not None
            if held:
                values = dict(values, driver_internal_info=merged)
        else:
            held = release(self.context, self.node.id, self.host, values)
        if held:
            _apply(self.node, dict(values, reservation=None))
            self._stored(values)
        else:
            LOG.warning('Node %s was no longer reserved by %s at the end '
                        'of its work%s', self.node.uuid, self.host,
                        '; not storing %s' % sorted(values) if values
                        else '')
        return held


def _apply(node, values):
    for name, value in values.items():
        setattr(node, name, value)
    node.obj_reset_changes(list(values))


@contextlib.contextmanager
def acquire(context, node_ident, host, attempts=None, interval=None):
    """Reserve the node ``node_ident`` for ``host`` for the block, as a
    Task; released when the block ends unless handed over.

    :raises nova_mini.exception_baremetal.NodeLocked: another holds it.
    :raises nova_mini.exception_baremetal.NodeNotFound: no such node.
    """
    reserve_or_raise(context, node_ident, host, attempts, interval)
    task = None
    try:
        node = load(context, node_ident)
        task = Task(context, node, host)
        yield task
    finally:
        if task is None:
            _release_ident(context, node_ident, host)
        elif not task.handed_over:
            task.release()


@db_api.autocommit
@db_api.context_manager.writer
def _release_ident(context, node_ident, host):
    context.session.execute(
        _NODES.update().where(_ident_clause(node_ident),
                              _NODES.c.reservation == host)
        .values(reservation=None))
