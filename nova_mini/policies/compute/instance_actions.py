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

"""Policies of a server's actions (os-instance-actions): Nova's names and
defaults. Project readers list and show them; the events' tracebacks
(below 2.51 the events at all) and details, administrators.
"""

from oslo_policy import policy

from nova_mini.policies import base

PREFIX = 'os_compute_api:os-instance-actions:'
LIST = PREFIX + 'list'
SHOW = PREFIX + 'show'
EVENTS = PREFIX + 'events'
EVENTS_DETAILS = PREFIX + 'events:details'

_ALL = '/servers/{server_id}/os-instance-actions'
_ONE = '/servers/{server_id}/os-instance-actions/{request_id}'

rules = [
    policy.DocumentedRuleDefault(
        name=LIST, check_str=base.PROJECT_READER_OR_ADMIN,
        description="List a server's actions.",
        operations=[{'method': 'GET', 'path': _ALL}]),
    policy.DocumentedRuleDefault(
        name=SHOW, check_str=base.PROJECT_READER_OR_ADMIN,
        description="Show a server's action.",
        operations=[{'method': 'GET', 'path': _ONE}]),
    policy.DocumentedRuleDefault(
        name=EVENTS, check_str=base.ADMIN,
        description="Show an action's events with their tracebacks "
                    "(below 2.51, the events at all).",
        operations=[{'method': 'GET', 'path': _ONE}]),
    policy.DocumentedRuleDefault(
        name=EVENTS_DETAILS, check_str=base.ADMIN,
        description="Show the details of an action's events (2.84).",
        operations=[{'method': 'GET', 'path': _ONE}]),
]


def list_rules():
    return rules
