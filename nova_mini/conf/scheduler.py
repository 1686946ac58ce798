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

"""Options of the [scheduler] group (the nova-mini-scheduler service) and
of the [filter_scheduler] group (how nodes are chosen)."""

from oslo_config import cfg

scheduler_group = cfg.OptGroup(
    'scheduler', title='Scheduler service options',
    help='How nova-mini-scheduler runs.')

scheduler_opts = [
    cfg.IntOpt('workers', default=1, min=1,
               help='Processes of nova-mini-scheduler, each consuming the '
                    'scheduler topic with its own connections (RabbitMQ '
                    'hands each request to one of them). Selections are '
                    'CPU work in Python, so one process uses one core: set '
                    'it to the number of cores the scheduler may use (Nova '
                    'runs one per CPU). With more than one, a parent '
                    'process starts them, starts a new one when one dies, '
                    'and passes SIGTERM on to them.'),
]

filter_scheduler_group = cfg.OptGroup(
    'filter_scheduler', title='Filter scheduler options',
    help='How nova-mini-scheduler filters and weighs the candidate nodes '
         'the database returns for a request.')

# Nova's defaults include the two server group filters, not SameHost or
# DifferentHost.
DEFAULT_FILTERS = ['ComputeCapabilitiesFilter', 'RamFilter', 'DiskFilter',
                   'CoreFilter', 'ImagePropertiesFilter', 'TraitsFilter',
                   'ServerGroupAntiAffinityFilter',
                   'ServerGroupAffinityFilter']

filter_scheduler_opts = [
    cfg.ListOpt('enabled_filters', default=DEFAULT_FILTERS,
                help='Filters a candidate node must pass, in this order: '
                     'names in the nova_mini.scheduler.filters entry point '
                     'group.'),
    cfg.ListOpt('weighers', default=['RAMWeigher'],
                help='Weighers that order the nodes that passed the '
                     'filters: names in the nova_mini.scheduler.weighers '
                     'entry point group.'),
    cfg.FloatOpt('ram_weight_multiplier', default=1.0,
                 help='Multiplier of the RAMWeigher: positive prefers '
                      'nodes with more memory, negative less.'),
    cfg.FloatOpt('random_weight_multiplier', default=1.0,
                 help='Multiplier of the RandomWeigher, which spreads '
                      'instances over equally good nodes.'),
    cfg.IntOpt('host_subset_size', default=1, min=1,
               help='Choose at random among this many best nodes rather '
                    'than always the best one: several schedulers then '
                    'race less for the same node.'),
    cfg.IntOpt('max_attempts', default=3, min=1,
               help='Nodes selected per instance: the chosen one plus '
                    'max_attempts - 1 alternates, tried in order when a '
                    'claim is lost to another scheduler.'),
    cfg.IntOpt('cleanup_interval', default=60, min=0,
               help='Seconds between two runs of the clean-up each '
                    'scheduler does: builds still unfinished after '
                    '[DEFAULT] rpc_response_timeout (their scheduler '
                    'died) are moved to ERROR with a fault, and nodes '
                    'claimed by an instance that is gone, failed or on '
                    'another node are freed. Several schedulers may run '
                    'it at once. 0 disables it.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=60, min=0,
               help='Seconds nova-mini-scheduler waits, after SIGTERM, '
                    'for the builds it has started to finish before it '
                    'exits anyway (status 1); it takes no new request '
                    'meanwhile. 0 waits without a bound.'),
]


def register_opts(conf):
    conf.register_group(scheduler_group)
    conf.register_opts(scheduler_opts, group=scheduler_group)
    conf.register_group(filter_scheduler_group)
    conf.register_opts(filter_scheduler_opts, group=filter_scheduler_group)


def list_opts():
    return {scheduler_group: scheduler_opts,
            filter_scheduler_group: filter_scheduler_opts}
