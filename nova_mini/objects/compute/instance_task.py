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

"""Server actions mapped onto the node: the task and power states they
move through, the status the compute API shows for them, and the
conditional UPDATEs that start and end a task.

A task starts with one UPDATE that sets ``task_state`` only where the
server is in a state the action is allowed from and no other task runs
(``WHERE vm_state IN (...) AND task_state IS NULL``): of two concurrent
actions, one wins and the other gets Nova's 409. It ends with one UPDATE
that writes the resulting vm_state and power state and clears the task
(``WHERE task_state = <its own>``). Nova's names: vm states ``active``,
``stopped``, ``error``; task states ``powering-off``, ``powering-on``,
``rebooting``/``rebooting_hard``, ``rebuilding``; power states 1
(running) and 4 (shutdown).
"""

from oslo_utils import timeutils

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_build

BUILDING = instance_build.BUILDING
ACTIVE = instance_build.ACTIVE
ERROR = instance_build.ERROR
STOPPED = 'stopped'

POWERING_OFF = 'powering-off'
POWERING_ON = 'powering-on'
REBOOTING = 'rebooting'
REBOOTING_HARD = 'rebooting_hard'
REBUILDING = 'rebuilding'

# Nova's power states.
NOSTATE = 0
RUNNING = 1
SHUTDOWN = 4

# vm_state -> the status shown when no task changes it.
STATUS = {BUILDING: 'BUILD', ACTIVE: 'ACTIVE', ERROR: 'ERROR',
          STOPPED: 'SHUTOFF'}
# (vm_state, task_state) -> the status shown while the task runs.
_TASK_STATUS = {
    (ACTIVE, REBOOTING): 'REBOOT',
    (ACTIVE, REBOOTING_HARD): 'HARD_REBOOT',
    (ACTIVE, REBUILDING): 'REBUILD',
    (STOPPED, REBUILDING): 'REBUILD',
    (ERROR, REBUILDING): 'REBUILD',
}

_INSTANCES = models.Instance.__table__


def status_of(vm_state, task_state):
    """The compute API's status of a server, as Nova derives it."""
    return _TASK_STATUS.get((vm_state, task_state)) or STATUS.get(
        vm_state, 'UNKNOWN')


def power_state_of(vm_state, power_state):
    """The power state shown: the one stored by the last action, else
    running for a built server and no state before.
    """
    if power_state is not None:
        return power_state
    return RUNNING if vm_state == ACTIVE else NOSTATE


@db_api.context_manager.writer
def _start(context, uuid, task_state, vm_states):
    return context.session.execute(_INSTANCES.update().where(
        _INSTANCES.c.uuid == uuid,
        _INSTANCES.c.vm_state.in_(list(vm_states)),
        _INSTANCES.c.task_state.is_(None)).values(
        task_state=task_state, updated_at=timeutils.utcnow())).rowcount


@db_api.context_manager.writer
def _finish(context, uuid, task_state, values):
    values = dict(values, task_state=None, updated_at=timeutils.utcnow())
    return context.session.execute(_INSTANCES.update().where(
        _INSTANCES.c.uuid == uuid,
        _INSTANCES.c.task_state == task_state).values(**values)).rowcount


def start(instance, action, task_state, vm_states):
    """Set ``task_state`` on the instance if it is in one of
    ``vm_states`` with no task running.

    :param instance: the Instance (its fields are updated).
    :param action: the action's name, for the error.
    :raises nova_mini.exception.InstanceInvalidState: it is not (Nova's
        409 and words).
    """
    if not _start(instance._context, instance.uuid, task_state, vm_states):
        current = type(instance).get_by_uuid(instance._context,
                                             instance.uuid)
        if current.task_state is not None:
            attr, state = 'task_state', current.task_state
        else:
            attr, state = 'vm_state', current.vm_state
        raise exception.InstanceInvalidState(
            action=action, instance_uuid=instance.uuid, attr=attr,
            state=state)
    instance.task_state = task_state


def finish(instance, task_state, **values):
    """End the task: write ``values`` (vm_state, power_state ...) and
    clear it.

    :raises nova_mini.exception.InstanceNotFound: the server was deleted
        meanwhile.
    """
    if not _finish(instance._context, instance.uuid, task_state, values):
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    for name, value in dict(values, task_state=None).items():
        setattr(instance, name, value)


@db_api.context_manager.writer
def _run(context, instance, action, task_state, vm_states, step, values):
    start(instance, action, task_state, vm_states)
    events = step()
    finish(instance, task_state, **values)
    instance_action.record(context, instance.uuid, action, events)


def run(instance, action, task_state, vm_states, step, **values):
    """Run a whole task in one transaction: start it (as ``start``), call
    ``step()`` (its changes elsewhere, such as the node's power; it returns
    the events of the action, as instance_action.record takes them), end
    it with ``values`` and record ``action``. A task that fails at any
    point has changed nothing; a concurrent task on the server waits for
    it, then finds the state it left.

    :param instance: the Instance (its fields are updated).
    :param action: the action's name (instance_action.STOP ...).
    :raises nova_mini.exception.InstanceInvalidState: as ``start``.
    """
    _run(instance._context, instance, action, task_state, vm_states, step,
         values)


@db_api.context_manager.writer
def _begin(context, instance, action, task_state, vm_states, step, values):
    start(instance, action, task_state, vm_states)
    events = step() or ()
    if values and not context.session.execute(_INSTANCES.update().where(
            _INSTANCES.c.uuid == instance.uuid).values(
                dict(values, updated_at=timeutils.utcnow()))).rowcount:
        raise exception.InstanceNotFound(instance_id=instance.uuid)
    instance_action.record(context, instance.uuid, action, events)


def begin(instance, action, task_state, vm_states, step, **values):
    """Start a task another process ends later (a conductor's work on
    the server's node, followed by a scheduler that calls ``finish``), in
    one transaction: start it (as ``start``), call ``step()`` (its checks
    and changes elsewhere; it returns the action's events, or None), write
    ``values`` (columns of the server) and record ``action``. A failure at
    any point has changed nothing.

    :param instance: the Instance (its fields are updated).
    :raises nova_mini.exception.InstanceInvalidState: as ``start``.
    :raises nova_mini.exception.InstanceNotFound: deleted meanwhile.
    """
    _begin(instance._context, instance, action, task_state, vm_states, step,
           values)


@db_api.context_manager.writer
def _set(context, uuid, values, action):
    values = dict(values, updated_at=timeutils.utcnow())
    if not context.session.execute(_INSTANCES.update().where(
            _INSTANCES.c.uuid == uuid).values(**values)).rowcount:
        raise exception.InstanceNotFound(instance_id=uuid)
    instance_action.record(context, uuid, action)


def set_lock(instance, locked_by, reason=None):
    """Lock (``locked_by`` 'owner' or 'admin') or unlock (None), and
    record the lock or unlock action in the same transaction.
    """
    _set(instance._context, instance.uuid,
         {'locked_by': locked_by, 'locked_reason': reason},
         instance_action.LOCK if locked_by else instance_action.UNLOCK)
    instance.locked_by = locked_by
    instance.locked_reason = reason


def vm_states_with_status(statuses):
    """The vm_states whose default status is one of ``statuses``."""
    return {state for state, status in STATUS.items() if status in statuses}


def check_lock(context, instance):
    """Nova's 409 for a non-administrator acting on a locked server."""
    if instance.locked_by is not None and not context.is_admin:
        raise exception.InstanceIsLocked(instance_uuid=instance.uuid)
