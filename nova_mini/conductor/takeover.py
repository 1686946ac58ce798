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

"""No reservation outlives its conductor.

- At start, a conductor clears the reservations its host still holds
  (left by a previous run that was killed), failing the work they stood
  for (``clear_own``); it does the same for the work still running when
  it stops and its graceful shutdown timeout has passed.
- Every ``[conductor] check_provision_state_interval`` seconds, each
  conductor clears the reservations of the conductors no longer alive
  (``clear_dead``): their nodes are free again, and the work they left
  fails cleanly (a deploy in ``deploying`` goes to ``deploy failed``, a
  tear down in ``deleting`` to ``error``, a manage in ``verifying`` back
  to ``enroll``, a power change loses its target), each with a
  last_error saying why, in Ironic's words. Nodes in maintenance are
  only released, as Ironic's.

Each node is cleared by one UPDATE conditioned on the reservation being
the one found, so conductors doing this at once (or a conductor thought
dead coming back) clear it once.
"""

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_mini.conductor import periodic
from nova_mini.conductor import task_manager
from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini import states

LOG = logging.getLogger(__name__)

# Ironic's last_error of work aborted by a takeover, and of a power change
# a restarted conductor abandons.
TAKEN_OVER = 'Operation was aborted due to conductor take over'
POWER_TAKEN_OVER = ('Pending power operation was aborted due to conductor '
                    'take over')
POWER_RESTARTED = ('Pending power operation was aborted due to conductor '
                   'restart')
# Ironic's last_error of a transient state a restarted conductor fails.
DEPLOY_NOT_RESUMED = ("The deployment can't be resumed by conductor "
                      "%(host)s. Moving to fail state.")
STATE_NOT_RESUMED = ("The %(state)s state can't be resumed by conductor "
                     "%(host)s. Moving to fail state.")

# Transient provision state -> (the state it fails to, its target after).
FAILED = {
    states.DEPLOYING: (states.DEPLOYFAIL, states.ACTIVE),
    states.DELETING: (states.ERROR, None),
    states.VERIFYING: (states.ENROLL, None),
    states.ADOPTING: (states.ADOPTFAIL, None),
}


def _cleanup(node, error, power_error):
    """The values that fail the work a reservation stood for."""
    values = {}
    if node.maintenance:
        return values
    if node.target_power_state is not None:
        values.update(target_power_state=None, last_error=power_error)
    if node.provision_state in FAILED:
        state, target = FAILED[node.provision_state]
        values.update(provision_state=state, target_provision_state=target,
                      provision_updated_at=timeutils.utcnow(),
                      last_error=error(node))
    return values


@db_api.context_manager.reader
def _dead_hosts(context, host):
    return sorted(row.hostname for row in conductor_obj.get_all(context)
                  if row.hostname != host and
                  not conductor_obj.is_alive(row))


def _clear(context, found, error, power_error):
    """Clear the reservations found (reserved_by rows); returns the
    uuids of the nodes this call cleared.
    """
    cleared = []
    for node_id, node_uuid, holder in found:
        try:
            node = task_manager.load(context, node_id)
        except Exception as exc:
            LOG.warning('Node %s not cleared: %s', node_uuid, exc)
            continue
        if node.reservation != holder:
            continue
        values = _cleanup(node, error, power_error)
        if task_manager.release(context, node_id, holder, values):
            cleared.append(node_uuid)
            LOG.warning('Released node %s from conductor %s%s', node_uuid,
                        holder, ': %s' % values['last_error']
                        if values.get('last_error') else '')
    return cleared


def clear_own(context, host):
    """Clear the reservations host holds, failing their work as a
    conductor that cannot resume it (at start, and at the end of a stop
    that could not wait for it).

    :returns: the uuids of the nodes released.
    """
    def error(node):
        if node.provision_state == states.DEPLOYING:
            return DEPLOY_NOT_RESUMED % {'host': host}
        return STATE_NOT_RESUMED % {'state': node.provision_state,
                                    'host': host}

    return _clear(context, task_manager.reserved_by(context, [host]),
                  error, POWER_RESTARTED)


def clear_dead(context, host):
    """Clear the reservations of the conductors no longer alive (but
    host's own), failing the work they left.

    :returns: the uuids of the nodes released.
    """
    dead = _dead_hosts(context, host)
    found = task_manager.reserved_by(context, dead)
    if not found:
        return []
    return _clear(context, found, lambda node: TAKEN_OVER, POWER_TAKEN_OVER)


class Periodic(periodic.Periodic):
    """Run clear_dead for host every interval seconds on a
    daemon thread (0: never).
    """

    _THREAD_NAME = 'conductor-takeover'

    def __init__(self, host, interval):
        super().__init__()
        self.host = host
        self.interval = interval

    def start(self):
        if self.interval > 0:
            self._start(self.interval)

    def run_once(self):
        """One look-up; a failure is logged (the next one tries again)."""
        try:
            return clear_dead(nm_context.get_admin_context(), self.host)
        except Exception:
            LOG.exception('Could not clear the reservations of dead '
                          'conductors')
            return []


def periodic(host, conf=conf.CONF):
    """The takeover periodic of a conductor of host."""
    return Periodic(host, conf.conductor.check_provision_state_interval)
