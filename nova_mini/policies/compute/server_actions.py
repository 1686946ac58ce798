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

"""Policies of server actions (POST /servers/{server_id}/action): Nova's
names and defaults, project members act on their servers; only an
administrator unlocks a server an administrator locked.
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:servers:'
STOP = PREFIX + 'stop'
START = PREFIX + 'start'
REBOOT = PREFIX + 'reboot'
REBUILD = PREFIX + 'rebuild'
CREATE_IMAGE = PREFIX + 'create_image'
LOCK = 'os_compute_api:os-lock-server:lock'
UNLOCK = 'os_compute_api:os-lock-server:unlock'
UNLOCK_OVERRIDE = 'os_compute_api:os-lock-server:unlock:unlock_override'

_ACTION = '/servers/{server_id}/action (%s)'


def _rule(name, check_str, description, action):
    return policy.DocumentedRuleDefault(
        name=name, check_str=check_str, description=description,
        operations=[{'method': 'POST', 'path': _ACTION % action}])


rules = [
    _rule(STOP, base.PROJECT_MEMBER_OR_ADMIN, 'Stop a server.', 'os-stop'),
    _rule(START, base.PROJECT_MEMBER_OR_ADMIN, 'Start a server.',
          'os-start'),
    _rule(REBOOT, base.PROJECT_MEMBER_OR_ADMIN, 'Reboot a server.',
          'reboot'),
    _rule(REBUILD, base.PROJECT_MEMBER_OR_ADMIN, 'Rebuild a server.',
          'rebuild'),
    _rule(CREATE_IMAGE, base.PROJECT_MEMBER_OR_ADMIN,
          'Create an image from a server.', 'createImage'),
    _rule(LOCK, base.PROJECT_MEMBER_OR_ADMIN, 'Lock a server.', 'lock'),
    _rule(UNLOCK, base.PROJECT_MEMBER_OR_ADMIN, 'Unlock a server.',
          'unlock'),
    _rule(UNLOCK_OVERRIDE, base.ADMIN,
          'Unlock a server an administrator locked.', 'unlock'),
]


def list_rules():
    return rules
