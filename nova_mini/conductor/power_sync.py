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

"""The power state sync of a nova-mini-conductor (Ironic's
``_sync_power_states``): every ``[conductor] sync_power_state_interval``
seconds, each node the hash ring gives this conductor (not in
maintenance, not reserved, without a power change pending, past
``enroll`` and not deploying or tearing down) has its power state read
from its BMC and compared with the stored one.

- The stored state unknown: the BMC's is stored.
- They differ, and ``force_power_state_during_sync`` is false: the BMC's
  is stored (someone powered the machine out of band).
- They differ, and it is true (the default): the node is set back to the
  stored state, under a reservation.
- After more than ``power_state_sync_max_retries`` syncs in a row that
  could not read the state or set it back, the node goes to maintenance
  with Ironic's reason ("During sync_power_state, max retries exceeded
  for node ...") and the BMC's state is stored.

Every write is one UPDATE conditioned on the node being as read (not
reserved, not in maintenance, the same stored power state), so a power
change started meanwhile is never overwritten.
"""

import collections
from concurrent import futures
import threading

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_mini.conductor import drivers
from nova_mini.conductor import hash_ring
from nova_mini.conductor import periodic
from nova_mini.conductor import task_manager
from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.objects.baremetal import node as node_obj
from nova_mini import states

LOG = logging.getLogger(__name__)
_NODES = models.Node.__table__

# Ironic's maintenance reason (and last_error) once the retries are spent.
MAX_RETRIES_EXCEEDED = (
    "During sync_power_state, max retries exceeded for node %(node)s, "
    "node state %(actual)s does not match expected state '%(state)s'. "
    "Updating DB state to '%(actual)s' Switching node to maintenance "
    "mode.")
# The provision states whose nodes are not synced: not verified yet, or
# worked on (their reservation keeps them out too).
EXCLUDED = (states.ENROLL, states.VERIFYING, states.DEPLOYING,
            states.DELETING, states.ADOPTING)

# The outcomes of one node's sync.
IN_SYNC = 'in sync'
RECORDED = 'recorded'
FORCED = 'forced'
FAILED = 'failed'
MAINTENANCE = 'maintenance'
SKIPPED = 'skipped'


@db_api.context_manager.reader
def _candidates(context, hardware_types):
    rows = context.session.query(models.Node).filter(
        _NODES.c.driver.in_(sorted(hardware_types)),
        _NODES.c.maintenance.is_(False),
        _NODES.c.reservation.is_(None),
        _NODES.c.target_power_state.is_(None),
        _NODES.c.provision_state.not_in(EXCLUDED)).order_by(
            _NODES.c.id).all()
    return [node_obj.Node._from_db_object(context, node_obj.Node(), row)
            for row in rows]


@db_api.autocommit
@db_api.context_manager.writer
def _store(context, node, values):
    """Write ``values`` if the node is still as read; whether it was."""
    values = dict(values, updated_at=timeutils.utcnow())
    return bool(context.session.execute(_NODES.update().where(
        _NODES.c.id == node.id, _NODES.c.reservation.is_(None),
        _NODES.c.maintenance.is_(False),
        _NODES.c.power_state.is_not_distinct_from(node.power_state))
        .values(**values)).rowcount)


class PowerSync(periodic.Periodic):
    """The power state sync of the conductor ``host``: no node is begun
    once stop() is called, and stop waits for the nodes being synced.

    :param hardware_types: the hardware types it drives.
    :param hardware_for: node -> its hardware object.
    :param ring: the HashRingManager (None: this process's).
    """

    _THREAD_NAME = 'conductor-power-sync'
    _LOG = LOG
    _FAILED = 'Power state sync failed'

    def __init__(self, host, hardware_types, conf=conf.CONF,
                 hardware_for=drivers.hardware_for, ring=None):
        super(PowerSync, self).__init__()
        self.host = host
        self.hardware_types = list(hardware_types)
        self.conf = conf
        self.hardware_for = hardware_for
        self.ring = ring or hash_ring._MANAGER
        # Node uuid -> syncs in a row that failed (Ironic keeps them in
        # its conductor too: a restarted conductor starts again from 0).
        self.failures = {}
        self._lock = threading.Lock()

    def nodes(self, context):
        """The nodes this conductor syncs now."""
        return [node for node in _candidates(context, self.hardware_types)
                if self.ring.owns(context, node, self.host)]

    def _count(self, node, value=None):
        with self._lock:
            if value is None:
                return self.failures.get(node.uuid, 0)
            if value:
                self.failures[node.uuid] = value
            else:
                self.failures.pop(node.uuid, None)
            return value

    def _maintenance(self, context, node, actual, error=None):
        reason = MAX_RETRIES_EXCEEDED % {'node': node.uuid, 'actual': actual,
                                         'state': node.power_state}
        if error is not None:
            reason += ' Error: %s' % error
        if _store(context, node, {'maintenance': True,
                                  'maintenance_reason': reason,
                                  'last_error': reason,
                                  'power_state': actual}):
            LOG.error(reason)
        self._count(node, 0)
        return MAINTENANCE

    def sync_node(self, context, node):
        """Sync one node; returns its outcome (IN_SYNC, RECORDED, FORCED,
        FAILED, MAINTENANCE or SKIPPED).
        """
        max_retries = self.conf.conductor.power_state_sync_max_retries
        hardware = self.hardware_for(node)
        try:
            actual = hardware.get_power_state(node)
        except Exception as exc:
            count = self._count(node, self._count(node) + 1)
            if count > max_retries:
                return self._maintenance(context, node, None, exc)
            LOG.warning('During sync_power_state, could not get power state '
                        'for node %s, attempt %d of %d. Error: %s',
                        node.uuid, count, max_retries + 1, exc)
            return FAILED
        if actual == node.power_state:
            self._count(node, 0)
            return IN_SYNC
        if (node.power_state is None or
                not self.conf.conductor.force_power_state_during_sync):
            if _store(context, node, {'power_state': actual}):
                LOG.info("During sync_power_state, node %s state '%s' does "
                         "not match the BMC's; updated to '%s'", node.uuid,
                         node.power_state, actual)
            self._count(node, 0)
            return RECORDED
        count = self._count(node)
        if count > max_retries:
            return self._maintenance(context, node, actual)
        return self._force(context, node, hardware, actual, count)

    def _force(self, context, node, hardware, actual, count):
        if not task_manager.reserve(context, node.id, self.host):
            return SKIPPED
        self._count(node, count + 1)
        try:
            LOG.warning("During sync_power_state, node %s state '%s' does "
                        "not match expected state '%s'; setting it back",
                        node.uuid, actual, node.power_state)
            hardware.set_power_state(node, node.power_state)
            return FORCED
        except Exception as exc:
            LOG.warning('During sync_power_state, could not set node %s '
                        'to %s: %s', node.uuid, node.power_state, exc)
            return FAILED
        finally:
            task_manager.release(context, node.id, self.host)

    def run_once(self, context=None):
        """Sync every node of this conductor once.

        :returns: a Counter of the outcomes.
        """
        context = context or nm_context.get_admin_context()
        outcomes = collections.Counter()
        nodes = self.nodes(context)
        workers = self.conf.conductor.sync_power_state_workers
        with futures.ThreadPoolExecutor(
                max_workers=workers,
                thread_name_prefix='power-sync') as executor:
            for outcome in executor.map(
                    lambda node: self._safe(node), nodes):
                outcomes[outcome] += 1
        if outcomes.get(IN_SYNC) != len(nodes):
            LOG.info('Power state sync of %d node(s): %s', len(nodes),
                     dict(outcomes))
        return outcomes

    def _safe(self, node):
        if self._stopped.is_set():
            # Stopping: the nodes not begun are left for the next
            # conductor's pass.
            return SKIPPED
        try:
            return self.sync_node(nm_context.get_admin_context(), node)
        except Exception:
            LOG.exception('Power state sync of node %s failed', node.uuid)
            return FAILED

    def start(self):
        """Sync every ``sync_power_state_interval`` seconds on a daemon
        thread (0: never).
        """
        interval = self.conf.conductor.sync_power_state_interval
        if interval <= 0:
            return
        self._start(interval)
