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

"""Options of the [upgrade_levels] group: RPC version pins for upgrades."""

from oslo_config import cfg

upgrade_group = cfg.OptGroup('upgrade_levels', title='Upgrade levels',
                             help='Cap the RPC API versions clients send, so '
                                  'that services of the older release keep '
                                  'understanding them during a rolling '
                                  'upgrade.')

upgrade_opts = [
    cfg.StrOpt('scheduler',
               help='Highest scheduler RPC API version to send, such as '
                    '"1.0". Unset means the newest this code knows.'),
    cfg.StrOpt('conductor',
               help='Highest nova-mini-conductor RPC API version to send, '
                    'such as "1.0". Unset means the newest this code '
                    'knows.'),
]


def register_opts(conf):
    conf.register_group(upgrade_group)
    conf.register_opts(upgrade_opts, group=upgrade_group)


def list_opts():
    return {upgrade_group: upgrade_opts}
