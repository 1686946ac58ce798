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

"""Provision and power states of bare-metal nodes, with Ironic's names.

nova_mini has no conductor: a provision action completes within its
request, so a node passes through no transitional state (deploying,
cleaning, rescuing, ...) on its way to the target. Those Ironic states
are still known (a node list filters by them) and ``rescue wait``, the
state where a rescue waits for its ramdisk, is handled as Ironic
handles it if a node is found in it (fake-hardware's rescue interface
never waits).

Manual cleaning runs its steps within the request too: a manageable node
is manageable again, or ``clean failed`` when a step is refused or fails
(see objects/baremetal/node_clean.py). ``clean wait`` is handled as Ironic handles
it (abort) if a node is found in it.
"""

ENROLL = 'enroll'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
ACTIVE = 'active'
DEPLOYFAIL = 'deploy failed'
ERROR = 'error'
# A deployed node booted into a rescue ramdisk, and the states on the way
# there and back.
RESCUING = 'rescuing'
RESCUEWAIT = 'rescue wait'
RESCUE = 'rescue'
RESCUEFAIL = 'rescue failed'
UNRESCUING = 'unrescuing'
UNRESCUEFAIL = 'unrescue failed'
# A manageable node whose hardware is being inspected, waiting for an
# inspection ramdisk, or whose inspection failed. fake-hardware's inspect
# interface is done at once, so nodes never stay in the first two and
# never fail; a node found in ``inspect failed`` may be inspected again,
# as in Ironic.
INSPECTING = 'inspecting'
INSPECTWAIT = 'inspect wait'
INSPECTFAIL = 'inspect failed'
# A manageable node being adopted (taken over as deployed, without a
# deploy), or whose adoption failed. fake-hardware's deploy interface
# takes a node over at once and never fails, so nodes never reach them.
ADOPTING = 'adopting'
ADOPTFAIL = 'adopt failed'
# A manageable node being cleaned (manual cleaning, API 1.15), waiting for
# a step, or whose cleaning failed. Steps run within the request here, so
# nodes never stay in the first two; a node in ``clean failed`` may be
# managed again, as in Ironic.
CLEANING = 'cleaning'
CLEANWAIT = 'clean wait'
CLEANFAIL = 'clean failed'
# The states a nova-mini-conductor passes a node of real hardware through
# while it works on it (Ironic's): checking its BMC on ``manage`` (back to
# ``enroll`` if it fails), deploying it, tearing it down.
VERIFYING = 'verifying'
DEPLOYING = 'deploying'
DELETING = 'deleting'
# Ironic's name for "available" before API 1.2 (shown as null).
NOSTATE = None

POWER_ON = 'power on'
POWER_OFF = 'power off'
REBOOT = 'rebooting'
SOFT_REBOOT = 'soft rebooting'
SOFT_POWER_OFF = 'soft power off'
# The power targets (Ironic's names), and the power state each ends in.
POWER_TARGETS = {
    POWER_ON: POWER_ON,
    POWER_OFF: POWER_OFF,
    REBOOT: POWER_ON,
    SOFT_REBOOT: POWER_ON,
    SOFT_POWER_OFF: POWER_OFF,
}
# The targets that came with soft power off (bare-metal API 1.27).
SOFT_POWER_TARGETS = (SOFT_REBOOT, SOFT_POWER_OFF)

# Every provision state a node can be in here: the valid values of the
# provision_state filter.
ALL = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, DEPLOYFAIL, ERROR, RESCUING,
       RESCUEWAIT, RESCUE, RESCUEFAIL, UNRESCUING, UNRESCUEFAIL,
       INSPECTING, INSPECTWAIT, INSPECTFAIL, ADOPTING, ADOPTFAIL,
       CLEANING, CLEANWAIT, CLEANFAIL, VERIFYING, DEPLOYING, DELETING)

# The states of a node rescued, or on its way in or out of rescue: it
# holds its instance, and cannot be rebuilt (unrescue it first).
RESCUE_STATES = (RESCUING, RESCUEWAIT, RESCUE, RESCUEFAIL, UNRESCUING,
                 UNRESCUEFAIL)

# The states in which a ramdisk may look its node up (Ironic's, less
# those of deploying, cleaning, inspecting and servicing, which nodes
# never reach here).
LOOKUP_ALLOWED = (RESCUING, RESCUEWAIT)

# The targets of PUT /nodes/{node}/states/provision that nova_mini knows.
MANAGE = 'manage'
PROVIDE = 'provide'
DEPLOY = 'active'
UNDEPLOY = 'deleted'
# Deploy again an active node (or one whose deploy failed), as it was.
REBUILD = 'rebuild'
# Boot a deployed node into the rescue ramdisk (1.38), and back.
RESCUE_TARGET = RESCUE
UNRESCUE = 'unrescue'
# Stop a rescue waiting for its ramdisk, or a cleaning waiting for a
# step (1.13).
ABORT = 'abort'
# Inspect a manageable node's hardware (1.6).
INSPECT = 'inspect'
# Take a manageable node over as deployed, as it is (1.17).
ADOPT = 'adopt'
# Run clean steps on a manageable node (1.15).
CLEAN = 'clean'

# target -> (states it may start from, state it ends in, power after:
# None leaves it as it is). Ironic's state machine, without the
# transitional states a conductor passes through. The state an abort ends
# in depends on the state it starts from: ABORTED maps one to the other.
# A manage from clean failed leaves the power (and last_error) as they
# are, as Ironic's (objects/baremetal/node_provision.py).
TRANSITIONS = {
    MANAGE: ((ENROLL, AVAILABLE, CLEANFAIL), MANAGEABLE, POWER_OFF),
    PROVIDE: ((MANAGEABLE,), AVAILABLE, POWER_OFF),
    DEPLOY: ((AVAILABLE, DEPLOYFAIL), ACTIVE, POWER_ON),
    UNDEPLOY: ((ACTIVE, DEPLOYFAIL, ERROR, RESCUE, RESCUEWAIT, RESCUEFAIL,
                UNRESCUEFAIL), AVAILABLE, POWER_OFF),
    REBUILD: ((ACTIVE, DEPLOYFAIL), ACTIVE, POWER_ON),
    RESCUE_TARGET: ((ACTIVE, RESCUE, RESCUEFAIL, UNRESCUEFAIL), RESCUE,
                    None),
    UNRESCUE: ((RESCUE, RESCUEFAIL, UNRESCUEFAIL), ACTIVE, None),
    ABORT: ((RESCUEWAIT, CLEANWAIT), RESCUEFAIL, None),
    INSPECT: ((MANAGEABLE, INSPECTFAIL), MANAGEABLE, None),
    ADOPT: ((MANAGEABLE, ADOPTFAIL), ACTIVE, None),
    CLEAN: ((MANAGEABLE,), MANAGEABLE, None),
}

# The state an abort leaves a node in, by the state it was in.
ABORTED = {RESCUEWAIT: RESCUEFAIL, CLEANWAIT: CLEANFAIL}

# A node may be deleted only in these states (or in maintenance);
# Ironic allows available nodes too unless configured otherwise.
DELETE_ALLOWED = (AVAILABLE, MANAGEABLE, ENROLL)
