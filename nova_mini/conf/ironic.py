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

"""Options of the [ironic] group: how a scheduler, which builds servers
as Nova's Ironic driver does, follows a node a nova-mini-conductor
deploys. Nova's option names and defaults."""

from oslo_config import cfg

ironic_group = cfg.OptGroup(
    'ironic', title='Bare-metal build options',
    help='How a scheduler follows the deploy of a node driven by a '
         'nova-mini-conductor (a redfish node), as Nova\'s Ironic driver '
         'follows Ironic.')

ironic_opts = [
    cfg.IntOpt('api_retry_interval', default=2, min=0, mutable=True,
               help='Seconds between two reads of a node a '
                    'nova-mini-conductor is deploying (until it is active '
                    'or its deploy failed) by the scheduler building its '
                    'server. The build as a whole stays bounded by '
                    '[DEFAULT] rpc_response_timeout.'),
]


def register_opts(conf):
    conf.register_group(ironic_group)
    conf.register_opts(ironic_opts, group=ironic_group)


def list_opts():
    return {ironic_group: ironic_opts}
