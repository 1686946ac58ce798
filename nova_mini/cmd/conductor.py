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

"""nova-mini-conductor: drives the nodes of real hardware types (redfish)
through their BMCs; RPC server on topic "nova-mini-conductor" as
``[DEFAULT] host``.

At start it registers in the conductors registry for the real hardware
types of ``[DEFAULT] enabled_hardware_types`` and keeps its row alive
(it refuses to start, exit status 1, while a nova-mini-api holds the row
of its host alive: they need a host each), clears the reservations its
host still holds (a previous run killed mid-work: that work is failed),
consumes its topic,
every ``[conductor] check_provision_state_interval`` seconds clears the
reservations of conductors no longer alive (conductor/takeover.py), and
every ``sync_power_state_interval`` seconds syncs the power state of its
nodes with their BMCs (conductor/power_sync.py), and, with ``[sensor_data]
send_sensor_data``, every ``[sensor_data] interval`` seconds sends their
sensor data as notifications (conductor/sensor_data.py).

On SIGTERM (or SIGINT) it stops consuming and taking work, waits up to
``[conductor] graceful_shutdown_timeout`` seconds for the hardware
operations in progress, fails and releases those still running, leaves
the registry, and exits (1 if it had to fail some).
"""

import sys
import time

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini.cmd import common
from nova_mini.conductor import deploy_images
from nova_mini.conductor import drivers
from nova_mini.conductor import manager
from nova_mini.conductor import power_sync
from nova_mini.conductor import rpcapi
from nova_mini.conductor import sensor_data
from nova_mini.conductor import takeover
from nova_mini import conductor_heartbeat
from nova_mini import conf
from nova_mini import config
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini.objects.baremetal import node_interfaces
from nova_mini import rpc
from nova_mini import service

CONF = conf.CONF
LOG = logging.getLogger(__name__)


def main(argv=None):
    config.parse_args(argv or sys.argv)
    config.log_options()
    hardware_types = drivers.enabled(CONF.enabled_hardware_types)
    if not hardware_types:
        service.fail('[DEFAULT] enabled_hardware_types (%s) names no '
                     'hardware type nova-mini-conductor drives (%s)',
                     ', '.join(CONF.enabled_hardware_types),
                     ', '.join(drivers.REAL_HARDWARE_TYPES))
    try:
        node_interfaces.check_config(hardware_types)
    except exception.Invalid as exc:
        # As Ironic's conductor, which does not start with them either.
        service.fail('%s', exc.format_message())
    common.require_database(CONF)
    common.require_broker(CONF)
    sys.exit(serve(hardware_types))


def serve(hardware_types):
    """Run the conductor until SIGTERM; return the exit status."""
    db_api.configure(CONF)
    stopping = common.stop_event()

    admin = nm_context.get_admin_context()
    heartbeat = conductor_heartbeat.Heartbeat(
        CONF.database.connection, CONF.host,
        CONF.conductor.heartbeat_interval, drivers=hardware_types)
    refused = None
    try:
        # First: a host nova-mini-api holds alive is refused (its
        # heartbeat would keep this conductor alive once killed) before
        # anything is touched.
        heartbeat.start()
    except Exception as exc:
        refused = exc
    if refused is not None:
        # Out of the except block: one line, without the exception again.
        service.fail('Could not register conductor %s: %s', CONF.host,
                     refused)
    left = takeover.clear_own(admin, CONF.host)
    if left:
        LOG.warning('Released %d node(s) a previous run of %s left '
                    'reserved: %s', len(left), CONF.host, ', '.join(left))
    endpoint = make_endpoint(CONF.host)
    server = rpc.get_server(
        CONF, messaging.Target(topic=rpcapi.TOPIC, server=CONF.host),
        [endpoint])
    periodic = takeover.periodic(CONF.host)
    syncing = power_sync.PowerSync(CONF.host, hardware_types)
    sensors = sensor_data.SensorData(CONF.host, hardware_types)
    server.start()
    periodic.start()
    syncing.start()
    sensors.start()
    LOG.info('nova-mini-conductor %s drives %s; consuming topic %s',
             CONF.host, ', '.join(hardware_types), rpcapi.TOPIC)
    service.sd_notify('READY=1')
    stopping.wait()

    service.sd_notify('STOPPING=1')
    bound = CONF.conductor.graceful_shutdown_timeout
    LOG.info('Taking no more requests; waiting up to %ds for %d hardware '
             'operation(s) in progress', bound, endpoint.pool.in_progress)
    # Calls not yet taken go back to the queue when the connection
    # closes; calls being answered finish (they only start work).
    endpoint.stop()
    server.stop()
    # One bound for the whole wind-down (0: none).
    deadline = time.monotonic() + bound

    def left():
        return max(0.0, deadline - time.monotonic()) if bound else None

    periodic.stop(left())
    # A sync pass still asking a BMC (one that does not answer takes
    # [redfish] connection_attempts tries) only read: it is abandoned.
    synced = syncing.stop(left())
    if not synced:
        LOG.warning('Power state sync still waiting for a BMC after %ds: '
                    'abandoned', bound)
    # The same for the sensor data: nothing is sent after this.
    read = sensors.stop(left())
    if not read:
        LOG.warning('Sensor data still waiting for a BMC after %ds: '
                    'abandoned', bound)
    finished = endpoint.wait(left())
    status = 0
    if not finished:
        failed = takeover.clear_own(admin, CONF.host)
        LOG.error('%d hardware operation(s) still running after %ds: '
                  'failed and released %s', endpoint.pool.in_progress,
                  bound, ', '.join(failed) or 'nothing')
        status = 1
    else:
        takeover.clear_own(admin, CONF.host)
    heartbeat.stop()
    if not (finished and synced and read):
        # The workers (or the sync's threads) still in a BMC.
        common.hard_exit(status)
    common.wait_rpc_server(server, bound or None)
    rpc.cleanup()
    LOG.info('nova-mini-conductor stopped')
    return status


def make_endpoint(host, hardware_for=drivers.hardware_for):
    """The conductor's RPC endpoint: its deploys publish the node's boot
    ISO and config drive under ``[deploy] http_root`` for the BMC
    (deploy_images.prepare), withdrawn when the node is torn down or its
    deploy fails (deploy_images.clean_up).
    """
    return manager.ConductorManager(
        host, CONF, hardware_for=hardware_for,
        deploy_images=deploy_images.prepare,
        clean_up_images=deploy_images.clean_up)
