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

"""The power actions (os-stop, os-start, reboot) of servers whose node a
nova-mini-conductor drives (redfish), run by a scheduler after the API
answered 202 (scheduler RPC ``power_instance``, a cast): the API started
the server's task and recorded the action; this tells the BMC through
the node's conductor (``change_node_power_state``), follows the node and
ends the task, as Nova's compute manager ends os-stop / os-start /
reboot after its Ironic driver's power change.

- A soft power off (os-stop) or soft reboot is tried first, within
  ``[conductor] soft_power_off_timeout`` (at most
  ``power_state_change_timeout``); if the conductor refuses it or the
  node does not reach the state, the hard one follows, as Nova's Ironic
  driver does.
- Each change is followed by reading the node every ``[ironic]
  api_retry_interval`` seconds until the conductor ends it (its
  target_power_state cleared, its reservation released), at most twice
  ``power_state_change_timeout`` plus one interval.
- The server's task ends with its new vm_state and power_state once the
  BMC reached the state, and the action's event (Nova's
  ``compute_stop_instance`` ...) succeeds. Otherwise (the conductor
  refused the change: the node locked, no conductor; the BMC failed or
  did not end within the bound) the server keeps its vm_state, its
  power_state is the node's, its fault is recorded and the event is in
  error; a failed reboot leaving the node not powered on puts it in
  ERROR, as Nova's reboot does.
"""

import time

from oslo_log import log as logging
from oslo_utils import timeutils

from nova_mini.conductor import release
from nova_mini import exception
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_build
from nova_mini.objects.compute import instance_task as task
from nova_mini import states

LOG = logging.getLogger(__name__)

# A server's power_state for each node power state.
_POWER_STATE = {states.POWER_ON: task.RUNNING,
                states.POWER_OFF: task.SHUTDOWN}

# The hard change a soft one falls back to.
HARD = {states.SOFT_POWER_OFF: states.POWER_OFF,
        states.SOFT_REBOOT: states.REBOOT}


def _server_power(node):
    return _POWER_STATE.get(node.power_state, task.NOSTATE)


class PowerFailed(Exception):
    """The BMC did not reach the target (the reason in the message)."""


def _wait(context, conf, node_uuid, target, sleep):
    """Wait for the conductor to end the change of ``node_uuid`` (its
    target_power_state cleared and its reservation released); return the
    node. A change that does not end within the bound, or ends with a
    last_error or another power state, raises PowerFailed.
    """
    bound = 2 * conf.conductor.power_state_change_timeout + \
        conf.ironic.api_retry_interval
    deadline = time.monotonic() + bound
    reached = states.POWER_TARGETS[target]
    while True:
        sleep(conf.ironic.api_retry_interval)
        node = node_obj.Node.get_by_uuid(context, node_uuid)
        if node.target_power_state is None and node.reservation is None:
            break
        if time.monotonic() > deadline:
            raise PowerFailed(
                'Timeout reached while waiting for the node %s to reach '
                'power state %s: still %s after %d seconds.' % (
                    node_uuid, reached, node.power_state, bound))
    if node.last_error or node.power_state != reached:
        raise PowerFailed(node.last_error or (
            'The node %s is %s, not %s.' % (node_uuid, node.power_state,
                                            reached)))
    return node


def _change(context, conf, node_uuid, target, sleep):
    """Start the change through the node's conductor (its refusals raised
    as they are) and wait for its end (PowerFailed).
    """
    timeout = None
    if target in states.SOFT_POWER_TARGETS:
        timeout = min(conf.conductor.soft_power_off_timeout,
                      conf.conductor.power_state_change_timeout)
    node = node_obj.Node.get_by_uuid(context, node_uuid)
    release.conductor_api(conf).change_node_power_state(
        context, node, target, timeout=timeout)
    return _wait(context, conf, node_uuid, target, sleep)


def _power(context, conf, instance_uuid, node_uuid, target, sleep):
    """Run the change (a soft one falling back to its hard one); the
    reason it failed, or None.
    """
    try:
        _change(context, conf, node_uuid, target, sleep)
    except (PowerFailed, exception.Invalid) as exc:
        if target not in HARD:
            return str(exc) if isinstance(exc, PowerFailed) else \
                exc.format_message()
        # As Nova's Ironic driver: the soft way refused or not reaching
        # the state within its timeout, the hard way.
        LOG.info('Soft %s of node %s for instance %s failed (%s); trying '
                 '%s', target, node_uuid, instance_uuid, exc, HARD[target])
        try:
            _change(context, conf, node_uuid, HARD[target], sleep)
        except PowerFailed as exc:
            return str(exc)
    except Exception as exc:
        # Refused by the conductor (the node locked, no conductor) or not
        # sent: the BMC was not told.
        LOG.info('Power %s of node %s for instance %s not started: %s',
                 target, node_uuid, instance_uuid, exc)
        return getattr(exc, 'format_message', exc.__str__)()
    return None


def run(context, conf, instance_uuid, node_uuid, action, task_state,
        target, event, end, sleep=time.sleep):
    """Run the power action ``action`` (instance_action.STOP ...) the API
    started on the server (its task ``task_state``, the action recorded)
    on its conductor-driven node: ``target`` (a key of
    states.POWER_TARGETS), ``event`` the action's event, ``end`` the
    server's columns once the BMC reached it.

    :returns: why it failed, or None.
    """
    try:
        instance = instance_obj.Instance.get_by_uuid(context, instance_uuid)
    except exception.InstanceNotFound:
        return None
    if instance.task_state != task_state:
        LOG.info('Instance %s is no longer %s', instance_uuid, task_state)
        return None
    started = timeutils.utcnow()
    instance_action.event_start(context, instance_uuid, action, event,
                                node_uuid)
    failed = _power(context, conf, instance_uuid, node_uuid, target, sleep)
    values = {}
    try:
        node = node_obj.Node.get_by_uuid(context, node_uuid)
        values['power_state'] = _server_power(node)
    except exception.NotFound:
        node = None
        failed = failed or 'The node %s was deleted.' % node_uuid
    if failed is None:
        values.update(end, power_state=_server_power(node))
        LOG.info('Instance %s: %s done on node %s', instance_uuid, action,
                 node_uuid)
    else:
        LOG.warning('Instance %s: %s failed on node %s: %s', instance_uuid,
                    action, node_uuid, failed)
        values['fault'] = instance_build.make_fault(failed, 500)
        if action == instance_action.REBOOT and (
                node is None or node.power_state != states.POWER_ON):
            # As Nova's reboot: a server not running after a failed
            # reboot is in ERROR.
            values['vm_state'] = task.ERROR
    try:
        task.finish(instance, task_state, **values)
    except exception.InstanceNotFound:
        LOG.info('Instance %s was deleted during its %s', instance_uuid,
                 action)
        return failed
    instance_action.event_finish(
        context, instance_uuid, action, event, node_uuid,
        result=instance_action.ERROR if failed else instance_action.SUCCESS,
        details=failed)
    LOG.debug('Instance %s: %s took %s', instance_uuid, action,
              timeutils.utcnow() - started)
    return failed
