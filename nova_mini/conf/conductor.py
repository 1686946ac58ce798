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

"""Options of the [conductor] group: how each nova-mini-api service,
which does the bare-metal conductors' work, keeps its host in the
conductors registry (GET /baremetal/v1/conductors), with Ironic's names
and defaults."""

from oslo_config import cfg

conductor_group = cfg.OptGroup(
    'conductor', title='Conductor options',
    help='The registry of the services doing the bare-metal conductors\' '
         'work.')

conductor_opts = [
    cfg.IntOpt('heartbeat_interval', default=10, min=1,
               help='Seconds between two refreshes of this service\'s row '
                    'in the conductors registry.'),
    cfg.IntOpt('heartbeat_timeout', default=60, min=1, max=315576000,
               help='Seconds after its last refresh a conductor is shown '
                    'not alive (and stops being the conductor of nodes and '
                    'a host of drivers). Keep it several times '
                    'heartbeat_interval.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
