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

"""Power of a node over Redfish (Ironic's ``redfish`` power interface).

A power action is the ComputerSystem's Reset action, then a wait until the
BMC reports the state the action leads to: ``[conductor]
power_state_change_timeout`` seconds for power on, power off and reboot,
``soft_power_off_timeout`` for the soft ones (unless the caller gives a
timeout). A BMC that does not get there raises PowerStateFailure. A
reboot of a node that is on is a power off then a power on, each waited
for, as in Ironic.

The wait reads the power state 1 s after the action, then at growing
pauses of at most ``POLL_MAX`` (2 s): a wait ends at most about 2 s after
the BMC got there. Ironic's wait (a back-off from 1 s) lets its pauses
grow further; a longer pause saves a few reads of the BMC and adds
seconds to every deploy. The timeout bounds the wait as before.
"""

import time

from oslo_log import log as logging
import sushy

from nova_mini import conf
from nova_mini.drivers.redfish import connection
from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import management
from nova_mini import states

LOG = logging.getLogger(__name__)

GET_POWER_STATE_MAP = {
    sushy.SYSTEM_POWER_STATE_ON: states.POWER_ON,
    sushy.SYSTEM_POWER_STATE_POWERING_ON: states.POWER_ON,
    sushy.SYSTEM_POWER_STATE_OFF: states.POWER_OFF,
    sushy.SYSTEM_POWER_STATE_POWERING_OFF: states.POWER_OFF,
}

SET_POWER_STATE_MAP = {
    states.POWER_ON: sushy.RESET_ON,
    states.POWER_OFF: sushy.RESET_FORCE_OFF,
    states.REBOOT: sushy.RESET_FORCE_RESTART,
    states.SOFT_REBOOT: sushy.RESET_GRACEFUL_RESTART,
    states.SOFT_POWER_OFF: sushy.RESET_GRACEFUL_SHUTDOWN,
}

SUPPORTED_POWER_STATES = tuple(SET_POWER_STATE_MAP)

# The first pause before reading the power state back, the growth of the
# pause and its cap (seconds): a BMC's power changes take seconds, and the
# wait should end soon after one.
POLL_INITIAL = 1.0
POLL_FACTOR = 1.5
POLL_MAX = 2.0


def poll_pauses():
    """The pauses (seconds) of a wait for a power state, endless."""
    pause = POLL_INITIAL
    while True:
        yield pause
        pause = min(pause * POLL_FACTOR, POLL_MAX)


def _state(system):
    return GET_POWER_STATE_MAP.get(system.power_state)


def get_power_state(info, handle=None):
    """``states.POWER_ON`` / ``POWER_OFF`` as the BMC reports it (None
    when it reports neither).

    :param handle: a connection.SystemHandle of the operation: its System
        as last read (the state the operation last saw); without one, the
        BMC is asked.
    """
    if handle is None:
        return connection.call_system(info, _state)
    return handle.call(_state)


def _default_timeout(target):
    if target in states.SOFT_POWER_TARGETS:
        return conf.CONF.conductor.soft_power_off_timeout
    return conf.CONF.conductor.power_state_change_timeout


def wait_for_power_state(info, new_state, timeout, handle=None):
    """Poll the BMC until it reports ``new_state``, ``timeout`` seconds
    (pauses of poll_pauses, the last one cut to the timeout).

    :raises: PowerStateFailure when it does not.
    """
    handle = handle or connection.SystemHandle(info)
    deadline = time.monotonic() + timeout
    for pause in poll_pauses():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        time.sleep(min(pause, remaining))
        if handle.call(_state, fresh=True) == new_state:
            return new_state
    LOG.error('Timed out after %(retry_timeout)s secs waiting for %(state)s '
              'on node %(node_id)s.', {'retry_timeout': timeout,
                                       'state': new_state,
                                       'node_id': info.node_uuid})
    raise errors.PowerStateFailure(pstate=new_state)


def _reset(info, power_state, handle):
    """Send the Reset action; True when it was sent, False when the BMC
    refused it (400/409) because the node is already where it leads.
    """
    target_state = states.POWER_TARGETS[power_state]

    def _do(system):
        try:
            system.reset_system(SET_POWER_STATE_MAP[power_state])
            return True
        except sushy.exceptions.HTTPError as exc:
            if exc.status_code not in (400, 409):
                raise
            system.refresh()
            if GET_POWER_STATE_MAP.get(system.power_state) != target_state:
                raise
            LOG.info('Node %(node)s power operation (%(requested)s) failed '
                     'with HTTP %(code)s, but node is already in the '
                     'expected final state (%(final)s). Treating as '
                     'successful. Error was: %(error)s',
                     {'node': info.node_uuid, 'requested': power_state,
                      'code': exc.status_code, 'final': target_state,
                      'error': exc})
            return False

    return handle.call(_do)


def _set_and_wait(info, power_state, timeout, handle):
    if _reset(info, power_state, handle):
        wait_for_power_state(info, states.POWER_TARGETS[power_state], timeout,
                             handle=handle)


def set_power_state(info, power_state, timeout=None, node=None,
                    handle=None):
    """Bring the node to ``power_state`` (one of SUPPORTED_POWER_STATES)
    and wait until the BMC reports it.

    ``node`` (optional) lets a power on or reboot restore a one-time boot
    device the BMC could not keep persistently (management). ``handle``
    (a connection.SystemHandle) makes it a step of a longer operation:
    whether the node is already there is judged from the power state the
    operation last saw (a Reset the BMC refuses because the node is
    already there is still taken as done).

    :raises: InvalidParameterValue for an unknown power state.
    :raises: PowerStateFailure when the BMC does not get there in time.
    :raises: RedfishError, RedfishConnectionError.
    """
    if power_state not in SET_POWER_STATE_MAP:
        raise errors.InvalidParameterValue(
            err='The requested power state %(state)s is not supported by '
                'the redfish power interface of node %(node)s. Supported: '
                '%(supported)s' % {'state': power_state,
                                   'node': info.node_uuid,
                                   'supported': ', '.join(
                                       SUPPORTED_POWER_STATES)})
    timeout = timeout or _default_timeout(power_state)
    handle = handle or connection.SystemHandle(info)
    try:
        if power_state == states.REBOOT:
            _reboot(info, timeout, node, handle)
            return
        if power_state in (states.POWER_ON, states.POWER_OFF):
            if get_power_state(info, handle=handle) == power_state:
                LOG.debug('Node %(node)s is already %(state)s.',
                          {'node': info.node_uuid, 'state': power_state})
                return
        if (power_state in (states.POWER_ON, states.SOFT_REBOOT)
                and node is not None):
            management.restore_boot_device(info, node, handle=handle)
        _set_and_wait(info, power_state, timeout, handle)
    except sushy.exceptions.SushyError as exc:
        message = ('Setting power state to %(state)s failed for node '
                   '%(node)s. Error: %(error)s'
                   % {'node': info.node_uuid, 'state': power_state,
                      'error': exc})
        LOG.error(message)
        raise errors.RedfishError(error=message)


def _reboot(info, timeout, node, handle):
    next_state = states.POWER_ON
    try:
        if get_power_state(info, handle=handle) == states.POWER_ON:
            next_state = states.POWER_OFF
            _set_and_wait(info, states.POWER_OFF, timeout, handle)
            next_state = states.POWER_ON
        if node is not None:
            management.restore_boot_device(info, node, handle=handle)
        _set_and_wait(info, states.POWER_ON, timeout, handle)
    except sushy.exceptions.SushyError as exc:
        message = ('Reboot failed for node %(node)s when setting power '
                   'state to %(state)s. Error: %(error)s'
                   % {'node': info.node_uuid, 'state': next_state,
                      'error': exc})
        LOG.error(message)
        raise errors.RedfishError(error=message)
