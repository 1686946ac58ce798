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

"""os-stop, os-start and reboot of a server whose node a
nova-mini-conductor drives (redfish), as Nova answers them: at once
(202), the server in the action's task state (powering-off,
powering-on, rebooting, rebooting_hard) while a scheduler has the node's
conductor tell the BMC and ends the task
(nova_mini.scheduler.conductor_power, scheduler RPC ``power_instance``).

- The request starts the task (Nova's 409 from another state or task)
  and records the action, in one transaction. A node another operation
  holds (its reservation) is Ironic's ``NodeLocked``, 409, the server
  left as it was and the action's event in error.
- No scheduler taking the cast (the broker down, none listening, the
  ``[upgrade_levels] scheduler`` pin below 1.4) is 503 in a power
  action's words; the task is ended, the server as it was, the event in
  error.
"""

from oslo_utils import excutils

from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task as task
from nova_mini.scheduler import rpcapi as scheduler_rpcapi

# How often the cast tries the broker (as a create's and a rebuild's).
CAST_RETRIES = 2


def _unlocked(context, node_uuid):
    """A step of the task's start: refuse a node another operation holds
    (the task rolled back with it).
    """
    def check():
        node = node_obj.Node.get_by_uuid(context, node_uuid)
        if node.reservation is not None:
            raise exception_baremetal.NodeLocked(node=node_uuid,
                                                 host=node.reservation)
    return check


def start(context, conf, instance, node, action, task_state, from_states,
          target, event, end):
    """Start the power action ``action`` (instance_action.STOP ...) of
    ``instance`` on its conductor-driven ``node`` and hand it to a
    scheduler: ``target`` (a key of states.POWER_TARGETS; a soft one falls
    back to its hard one), ``event`` the action's event, ``end`` the
    server's columns once the BMC reached the target.

    :raises nova_mini.exception.InstanceInvalidState: the server is not
        in ``from_states`` or runs another task (409).
    :raises nova_mini.exception_baremetal.NodeLocked: another operation
        holds the node (409); nothing was changed.
    :raises nova_mini.exception.ServiceUnavailable: no scheduler took it
        (503); the server as it was.
    """
    try:
        task.begin(instance, action, task_state, from_states,
                   _unlocked(context, node.uuid))
    except exception_baremetal.NodeLocked as exc:
        instance.task_state = None
        instance_action.record(
            context, instance.uuid, action, [(event, node.uuid)],
            result=instance_action.ERROR, details=exc.format_message())
        raise
    try:
        scheduler_rpcapi.SchedulerAPI(conf).power_instance(
            context, instance.uuid, node.uuid, action, task_state, target,
            event, end, retry=CAST_RETRIES)
    except Exception as exc:
        with excutils.save_and_reraise_exception():
            details = getattr(exc, 'format_message', exc.__str__)()
            ended = True
            try:
                task.finish(instance, task_state)
            except exception.InstanceNotFound:
                ended = False  # deleted meanwhile
            if ended:
                instance_action.event_finish(
                    context, instance.uuid, action, event, node.uuid,
                    result=instance_action.ERROR, details=details)
