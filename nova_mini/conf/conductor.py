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
    cfg.IntOpt('power_state_change_timeout', default=60, min=2,
               mutable=True,
               help='Seconds a conductor waits for a node\'s BMC to report '
                    'the power state it was asked for (power on, power off, '
                    'reboot); the power action fails after that.'),
    cfg.IntOpt('soft_power_off_timeout', default=600, min=1, mutable=True,
               help='Seconds a conductor waits for a soft power off or a '
                    'soft reboot (the operating system shutting down) to '
                    'reach its power state.'),
    cfg.IntOpt('workers_pool_size', default=100, min=3,
               help='The most hardware operations (power changes, '
                    'deploys, tear downs, manage) a nova-mini-conductor '
                    'runs at once; a request for more while they all run '
                    'is refused with 503 NoFreeConductorWorker.'),
    cfg.IntOpt('node_locked_retry_attempts', default=3, min=1,
               help='How many times a nova-mini-conductor tries to reserve '
                    'a node another operation holds before answering 409 '
                    'NodeLocked.'),
    cfg.IntOpt('node_locked_retry_interval', default=1, min=0,
               help='Seconds between two attempts to reserve a node.'),
    cfg.IntOpt('check_provision_state_interval', default=60, min=0,
               help='Seconds between two look-ups, by each '
                    'nova-mini-conductor, of the nodes reserved by '
                    'conductors no longer alive: their reservation is '
                    'cleared, a deploy or tear down they left is failed '
                    'and a power change they left is aborted. 0 disables '
                    'it.'),
    cfg.IntOpt('sync_power_state_interval', default=60, min=0,
               help='Seconds between two power state syncs of a '
                    'nova-mini-conductor: each node it drives (not in '
                    'maintenance, not reserved, past enroll) has its power '
                    'state read from its BMC and compared with the stored '
                    'one. 0 disables the sync.'),
    cfg.BoolOpt('force_power_state_during_sync', default=True,
                help='When a BMC reports another power state than the '
                     'stored one: true sets the node back to the stored '
                     'state (after power_state_sync_max_retries failed '
                     'attempts the node goes to maintenance); false stores '
                     'the state the BMC reports.'),
    cfg.IntOpt('power_state_sync_max_retries', default=3, min=0,
               help='How many syncs in a row may fail to bring a node to '
                    'its stored power state (or to read it) before the node '
                    'is put in maintenance with the reason.'),
    cfg.IntOpt('sync_power_state_workers', default=8, min=1,
               help='How many BMCs a power state sync talks to at once.'),
    cfg.IntOpt('graceful_shutdown_timeout', default=60, min=0,
               help='Seconds a stopping nova-mini-conductor waits for the '
                    'hardware operations it runs to end before it fails '
                    'them and releases their nodes.'),
    cfg.IntOpt('tear_down_request_timeout', default=10, min=1,
               help='Seconds a server deletion, a failed build or the '
                    "schedulers' clean-up waits for a node's conductor to "
                    'take its tear down (not for the tear down itself). A '
                    'conductor not answering within it leaves the node '
                    "deployed for the gone instance: the schedulers' "
                    'orphan clean-up asks again ([scheduler] '
                    'cleanup_interval), so that a DELETE is answered at '
                    'once whatever the conductor.'),
]


def register_opts(conf):
    conf.register_group(conductor_group)
    conf.register_opts(conductor_opts, group=conductor_group)


def list_opts():
    return {conductor_group: conductor_opts}
