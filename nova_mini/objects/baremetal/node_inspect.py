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

"""What an inspection writes on a node besides its state, as Ironic's
conductor does with fake-hardware, whose inspect interface finds nothing
new and is done at once (``manageable`` -> ``manageable``, the power
state as it was): objects.baremetal.node_provision applies it in the transaction
of the move.

* The ramdisk agent's token and URL (``driver_internal_info``) are
  forgotten, as Ironic's conductor wipes them before inspecting.
* ``no-inspect`` refuses, with Ironic's error, and nothing changes.
* A node in maintenance is inspected too: Ironic does not refuse it.

* ``inspection_started_at`` and ``inspection_finished_at`` are both the
  time of the move (the fake inspection takes no time); Ironic clears the
  finish time when an inspection starts and sets it when it ends.
"""

from oslo_utils import timeutils

from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_rescue
from nova_mini import states

# The inspect interface that inspects nothing.
NO_INSPECT = 'no-inspect'


def changes(row, action):
    """Return the column values ``action`` writes besides the move (see the
    module), or raise why it may not happen.

    :param row: the node's row after the move: ``driver``,
        ``inspect_interface``, ``driver_internal_info``.
    :param action: a states.TRANSITIONS key.
    :returns: a dict of column values (empty for another action).
    :raises nova_mini.exception_baremetal.UnsupportedDriverExtension: the node's
        inspect interface is ``no-inspect``.
    """
    if action != states.INSPECT:
        return {}
    if row.inspect_interface == NO_INSPECT:
        raise exception_baremetal.UnsupportedDriverExtension(driver=row.driver,
                                                             extension='inspect')
    info = {key: value
            for key, value in (row.driver_internal_info or {}).items()
            if key not in node_rescue.AGENT_KEYS}
    now = timeutils.utcnow()
    return {'driver_internal_info': info, 'inspection_started_at': now,
            'inspection_finished_at': now}
