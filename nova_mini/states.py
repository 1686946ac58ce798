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
cleaning, ...) on its way to the target.
"""

ENROLL = 'enroll'
MANAGEABLE = 'manageable'
AVAILABLE = 'available'
ACTIVE = 'active'
DEPLOYFAIL = 'deploy failed'
ERROR = 'error'
# Ironic's name for "available" before API 1.2 (shown as null).
NOSTATE = None

POWER_ON = 'power on'
POWER_OFF = 'power off'

# Every provision state a node can be in here: the valid values of the
# provision_state filter.
ALL = (ENROLL, MANAGEABLE, AVAILABLE, ACTIVE, DEPLOYFAIL, ERROR)

# The targets of PUT /nodes/{node}/states/provision that nova_mini knows.
MANAGE = 'manage'
PROVIDE = 'provide'
DEPLOY = 'active'
UNDEPLOY = 'deleted'
# Deploy again an active node (or one whose deploy failed), as it was.
REBUILD = 'rebuild'

# target -> (states it may start from, state it ends in, power after)
TRANSITIONS = {
    MANAGE: ((ENROLL, AVAILABLE), MANAGEABLE, POWER_OFF),
    PROVIDE: ((MANAGEABLE,), AVAILABLE, POWER_OFF),
    DEPLOY: ((AVAILABLE, DEPLOYFAIL), ACTIVE, POWER_ON),
    UNDEPLOY: ((ACTIVE, DEPLOYFAIL, ERROR), AVAILABLE, POWER_OFF),
    REBUILD: ((ACTIVE, DEPLOYFAIL), ACTIVE, POWER_ON),
}

# A node may be deleted only in these states (or in maintenance);
# Ironic allows available nodes too unless configured otherwise.
DELETE_ALLOWED = (AVAILABLE, MANAGEABLE, ENROLL)
