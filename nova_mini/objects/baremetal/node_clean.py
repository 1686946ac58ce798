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

"""What a manual cleaning (the ``clean`` target, API 1.15) and an abort
of ``clean wait`` write on a node besides its state, as Ironic's
conductor does with fake-hardware: objects.baremetal.node_provision applies it in
the transaction of the move, which holds the node's row locked.

Ironic checks the steps and runs them after answering 202; here they run
within the request, and the node ends where Ironic's would:

* a node in maintenance is refused (400), and nothing changes, as
  Ironic's conductor refuses it before answering;
* steps the node does not have, or with wrong arguments
  (objects/baremetal/clean_steps.py): ``clean failed`` (target ``manageable``),
  ``last_error`` ``Cannot clean node <uuid>: <errors>``, and no step runs;
* a step that fails (wrong ``settings`` for
  ``bios.apply_configuration``): ``clean failed``, ``last_error``
  ``Node <uuid> failed step <step>: <why>``, and the node is put in
  maintenance with that reason (unless it has one), as Ironic does when a
  step fails; the steps before it keep their effects;
* otherwise every step runs, in the order given, and the node is
  ``manageable`` again, its power as it was (the fake steps do not power
  it).

``driver_internal_info`` loses a ramdisk agent's token and URL (Ironic
wipes them for a new ramdisk) and keeps ``clean_steps``: null after a
cleaning, the steps given after a failure (those the node has with their
``abortable`` and ``priority``; with ``cleaning_disable_ramdisk`` and
``declarative_cleaning``), as Ironic leaves them.

An abort of ``clean wait`` ends in ``clean failed``, its target
``manageable`` for a manual cleaning (else ``available``), with Ironic's
``last_error``; nodes reach ``clean wait`` here only when written so in
the database.
"""

from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import clean_steps as steps_obj
from nova_mini.objects.baremetal import node_rescue
from nova_mini import states

# driver_internal_info keys of a cleaning in progress, which Ironic wipes
# when one ends or is aborted.
CLEANING_KEYS = ('clean_steps', 'agent_cached_clean_steps',
                 'clean_step_index', 'cleaning_disable_ramdisk',
                 'steps_validated', 'declarative_cleaning',
                 'agent_start_attempted')


def _info(row, **keys):
    info = {key: value
            for key, value in (row.driver_internal_info or {}).items()
            if key not in node_rescue.AGENT_KEYS + CLEANING_KEYS}
    info.update(keys)
    return info


def _failed(row, steps, last_error):
    return {'provision_state': states.CLEANFAIL,
            'target_provision_state': states.MANAGEABLE,
            'last_error': last_error,
            'driver_internal_info': _info(
                row, clean_steps=steps, cleaning_disable_ramdisk=False,
                declarative_cleaning=True)}


def _clean(context, row, node_id, node_uuid, user_steps):
    if row.maintenance:
        raise exception_baremetal.NodeInMaintenance(action=states.CLEAN,
                                                    node=node_uuid)
    steps, errors, recorded = steps_obj.validate(row, user_steps)
    if errors:
        return _failed(row, recorded, 'Cannot clean node %s: %s'
                       % (node_uuid, '; '.join(errors)))
    for step in steps:
        try:
            steps_obj.run(context, node_id, step)
        except steps_obj.StepFailed as e:
            reason = 'Node %s failed step %s: %s' % (node_uuid, step, e)
            result = _failed(row, steps, reason)
            result['maintenance'] = True
            result['maintenance_reason'] = row.maintenance_reason or reason
            return result
    return {'driver_internal_info': _info(row, clean_steps=None)}


def changes(context, row, prior, node_id, node_uuid, action,
            user_steps=None):
    """Return the column values ``action`` writes besides the move (see the
    module), running the clean steps, or raise why it may not happen.

    :param context: the request context, in the move's transaction.
    :param row: the node's row after the move: ``provision_state``,
        ``maintenance``, ``maintenance_reason``, ``driver``, the interface
        fields, ``driver_internal_info``.
    :param prior: the node's ``provision_state`` and
        ``target_provision_state`` before an abort (else None).
    :param node_id: the node's id.
    :param node_uuid: its uuid, for messages.
    :param action: a states.TRANSITIONS key.
    :param user_steps: the clean steps of a cleaning.
    :returns: a dict of column values (empty for another action).
    :raises nova_mini.exception_baremetal.NodeInMaintenance: a cleaning of a node
        in maintenance.
    """
    if action == states.CLEAN:
        return _clean(context, row, node_id, node_uuid, user_steps)
    if action == states.ABORT and row.provision_state == states.CLEANFAIL:
        # Ironic names the step aborted; steps never wait here, so there
        # is none to name.
        target = (states.MANAGEABLE
                  if prior.target_provision_state == states.MANAGEABLE
                  else states.AVAILABLE)
        return {'target_provision_state': target,
                'last_error': 'By request, the clean operation was aborted',
                'driver_internal_info': _info(row, clean_steps=None)}
    return {}
