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

"""The sensor data of a nova-mini-conductor (Ironic's ``[sensor_data]``
periodic task): every ``[sensor_data] interval`` seconds, when
``send_sensor_data`` is true, the sensors of each node the hash ring
gives this conductor (deployed, unless ``enable_for_undeployed_nodes``;
not in maintenance) are read from its BMC, ``workers`` at a time, and
sent as one notification per node through the notifier of
``[oslo_messaging_notifications]``: priority ``info``, event type
``hardware.<hardware type>.metrics``, and as payload Ironic's message::

    {"message_id": ..., "event_type": "hardware.redfish.metrics",
     "node_uuid": ..., "node_name": ..., "instance_uuid": ...,
     "timestamp": ..., "payload": {"Temperature": {...}, "Fan": {...}}}

whose ``payload`` keeps the sensor types of ``data_types`` (``ALL``:
every one). A node whose BMC cannot be read is logged and left out; the
others are sent. A pass waits ``wait_timeout`` seconds at most: the nodes
not read by then are left for the next pass (and a reading coming back
later is dropped). Nothing is read while the notification driver sends
nothing (``noop``, or none configured).
"""

import collections
from concurrent import futures
import threading
import time

from oslo_log import log as logging
from oslo_utils import timeutils
from oslo_utils import uuidutils

from nova_mini.conductor import drivers
from nova_mini.conductor import hash_ring
from nova_mini.conductor import periodic
from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.objects.baremetal import node as node_obj
from nova_mini import rpc
from nova_mini import states

LOG = logging.getLogger(__name__)
_NODES = models.Node.__table__

EVENT_TYPE = 'hardware.%s.metrics'
PUBLISHER = 'nova-mini-conductor.%s'

# The outcomes of one node.
SENT = 'sent'
EMPTY = 'empty'
FAILED = 'failed'
TIMED_OUT = 'timed out'
SKIPPED = 'skipped'


def filter_types(sensors, data_types):
    """The sensor types of ``sensors`` named in ``data_types`` (without
    case; ``ALL`` keeps them all).
    """
    wanted = {name.strip().lower() for name in data_types}
    if 'all' in wanted:
        return dict(sensors)
    return {kind: values for kind, values in sensors.items()
            if kind.lower() in wanted}


@db_api.context_manager.reader
def _candidates(context, hardware_types, undeployed):
    query = context.session.query(models.Node).filter(
        _NODES.c.driver.in_(sorted(hardware_types)),
        _NODES.c.maintenance.is_(False))
    if not undeployed:
        query = query.filter(_NODES.c.provision_state == states.ACTIVE)
    return [node_obj.Node._from_db_object(context, node_obj.Node(), row)
            for row in query.order_by(_NODES.c.id).all()]


class SensorData(periodic.Periodic):
    """The sensor data notifications of the conductor ``host``.

    :param hardware_types: the hardware types it drives.
    :param hardware_for: node -> its hardware object.
    :param ring: the HashRingManager (None: this process's).
    :param notifier: the oslo.messaging Notifier (None: one of
        ``[oslo_messaging_notifications]``, made when first needed and
        closed by stop).
    """

    _THREAD_NAME = 'conductor-sensor-data'
    _LOG = LOG
    _FAILED = 'Sensor data pass failed'

    def __init__(self, host, hardware_types, conf=conf.CONF,
                 hardware_for=drivers.hardware_for, ring=None,
                 notifier=None):
        super(SensorData, self).__init__()
        self.host = host
        self.hardware_types = list(hardware_types)
        self.conf = conf
        self.hardware_for = hardware_for
        self.ring = ring or hash_ring._MANAGER
        self._notifier = notifier
        self._own_notifier = notifier is None
        self._lock = threading.Lock()
        # The readings still running, of this pass or of a pass that
        # stopped waiting for them.
        self._running = set()

    @property
    def notifier(self):
        with self._lock:
            if self._notifier is None:
                self._notifier = rpc.get_notifier(
                    self.conf, PUBLISHER % self.host)
            return self._notifier

    def enabled(self):
        """Whether passes run: send_sensor_data and enable_for_nodes on,
        and a notification driver that sends.
        """
        options = self.conf.sensor_data
        return bool(options.send_sensor_data and options.enable_for_nodes
                    and self.notifier.is_enabled())

    def nodes(self, context):
        """The nodes whose sensor data this conductor sends now."""
        undeployed = self.conf.sensor_data.enable_for_undeployed_nodes
        return [node for node in _candidates(context, self.hardware_types,
                                             undeployed)
                if self.ring.owns(context, node, self.host)]

    def message(self, node, sensors):
        """Ironic's notification of ``node``'s ``sensors`` (a dict)."""
        return {'message_id': uuidutils.generate_uuid(),
                'event_type': EVENT_TYPE % node.driver,
                'node_uuid': node.uuid,
                'node_name': node.name,
                'instance_uuid': node.instance_uuid,
                'timestamp': timeutils.utcnow(),
                'payload': sensors}

    def send_node(self, context, node, expired=None):
        """Read ``node``'s sensors and send them; its outcome (SENT,
        EMPTY: no type of data_types, FAILED, TIMED_OUT: read after the
        pass stopped waiting, SKIPPED: stopping).
        """
        if self._stopped.is_set() or (expired and expired.is_set()):
            return SKIPPED
        hardware = self.hardware_for(node)
        try:
            hardware.validate_interface(node, 'management')
            sensors = hardware.get_sensors_data(node)
        except Exception as exc:
            # The drivers' errors name the node and the BMC's answer,
            # never the credentials.
            LOG.warning('Failed to get sensor data for node %(node)s. '
                        'Error: %(error)s', {'node': node.uuid,
                                             'error': exc})
            return FAILED
        if self._stopped.is_set() or (expired and expired.is_set()):
            LOG.info('Sensor data of node %s read after the pass ended: '
                     'not sent', node.uuid)
            return TIMED_OUT
        payload = filter_types(sensors or {},
                               self.conf.sensor_data.data_types)
        if not payload:
            return EMPTY
        message = self.message(node, payload)
        self.notifier.info(context, message['event_type'], message)
        return SENT

    def run_once(self, context=None):
        """Send the sensor data of this conductor's nodes once, waiting at
        most ``[sensor_data] wait_timeout`` seconds.

        :returns: a Counter of the outcomes (the nodes not read in time
            are TIMED_OUT).
        """
        context = context or nm_context.get_admin_context()
        outcomes = collections.Counter()
        if not self.enabled():
            return outcomes
        nodes = self.nodes(context)
        if not nodes:
            return outcomes
        options = self.conf.sensor_data
        expired = threading.Event()
        executor = futures.ThreadPoolExecutor(
            max_workers=min(options.workers, len(nodes)),
            thread_name_prefix='sensor-data')
        submitted = []
        try:
            for node in nodes:
                future = executor.submit(self._safe, context, node, expired)
                self._track(future)
                submitted.append(future)
        finally:
            # Its threads end with their reading; nothing waits on them.
            executor.shutdown(wait=False)
        done, not_done = futures.wait(submitted,
                                      timeout=options.wait_timeout)
        expired.set()
        for future in done:
            outcomes[SKIPPED if future.cancelled() else future.result()] += 1
        if not_done:
            for future in not_done:
                future.cancel()
            outcomes[TIMED_OUT] += len(not_done)
            LOG.warning('Sensor data of %d node(s) not read within '
                        '[sensor_data] wait_timeout (%ds): left for the '
                        'next pass', len(not_done), options.wait_timeout)
        LOG.debug('Sensor data pass of %d node(s): %s', len(nodes),
                  dict(outcomes))
        return outcomes

    def _track(self, future):
        with self._lock:
            self._running.add(future)
        future.add_done_callback(self._untrack)

    def _untrack(self, future):
        with self._lock:
            self._running.discard(future)

    def _safe(self, context, node, expired):
        try:
            return self.send_node(context, node, expired)
        except Exception:
            LOG.exception('Sensor data of node %s could not be sent',
                          node.uuid)
            return FAILED

    def start(self):
        """Send every ``[sensor_data] interval`` seconds on a daemon
        thread, when enabled (see enabled()).

        :returns: whether it started.
        """
        options = self.conf.sensor_data
        if not (options.send_sensor_data and options.enable_for_nodes):
            return False
        if not self.notifier.is_enabled():
            LOG.warning('[sensor_data] send_sensor_data is true but the '
                        '[oslo_messaging_notifications] driver sends '
                        'nothing: no sensor data is read')
            return False
        self._start(options.interval)
        LOG.info('Sending the sensor data of this conductor\'s nodes every '
                 '%ds', options.interval)
        return True

    def stop(self, timeout=None):
        """Stop: nothing is read or sent after this (the readings not begun
        are cancelled); the readings in progress are waited for at most
        ``timeout`` seconds (None: no bound), and the notifier this object
        made is closed.

        :returns: whether they all ended.
        """
        self._stopped.set()
        deadline = None if timeout is None else time.monotonic() + timeout

        def left():
            if deadline is None:
                return None
            return max(0.0, deadline - time.monotonic())

        with self._lock:
            running = list(self._running)
        for future in running:
            future.cancel()
        ended = self._join(left())
        with self._lock:
            running = list(self._running)
        if running:
            ended = not futures.wait(running, timeout=left())[1] and ended
        if ended and self._own_notifier and self._notifier is not None:
            self._notifier.transport.cleanup()
        return ended
