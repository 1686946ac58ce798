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

"""The conductor's sensor data notifications end to end: the real
RedfishHardware reads sushy-tools' emulator, the notifications go through
oslo.messaging's messagingv2 driver to the machine's RabbitMQ (a virtual
host of this module) and are received by an oslo.messaging notification
listener, as a consumer (Ceilometer, ironic-prometheus-exporter) would.
"""

import socket
import threading
import time
import uuid

import pytest

from nova_mini.conductor import hash_ring
from nova_mini.conductor import sensor_data
from nova_mini import context as nm_context
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.live.redfish import redfish_emulators  # noqa: F401

HOST = 'conductor-sensors-1'
TOPIC = 'nova_mini_sensors'
USER, PASSWORD = 'bmc-admin', 'bmc-sensor-secret-4c1e'
# Seconds a check that nothing (more) is sent listens: what a pass sends
# arrives before it returns, and the periodic tests' interval is 1 s.
QUIET = 1.5


@pytest.fixture(scope='module')
def backend():
    """SQLite only: the BMC and the broker are what this tests."""
    return 'sqlite'


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_sensor_data')


@pytest.fixture(scope='module')
def bmc(redfish_emulators):  # noqa: F811
    return redfish_emulators(systems=3, auth=(USER, PASSWORD))


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def received(conf, db, vhost):
    with conductor_fixture.notification_listener(conf, vhost,
                                                 TOPIC) as endpoint:
        conf.config(driver=['messagingv2'], topics=[TOPIC],
                    group='oslo_messaging_notifications')
        conf.config(connection_attempts=1, group='redfish')
        conf.config(send_sensor_data=True, group='sensor_data')
        yield endpoint


@pytest.fixture
def sensors(conf, admin, received):
    conductor_obj.register_host(admin, HOST, ['redfish'])
    hash_ring.reset()
    sensors = sensor_data.SensorData(HOST, ['redfish'], conf=conf.conf,
                                     ring=hash_ring.HashRingManager())
    yield sensors
    assert sensors.stop(30)
    hash_ring.reset()


def _node(admin, bmc, index, name, state=states.ACTIVE, **values):
    info = conductor_fixture.redfish_driver_info(
        bmc, index, redfish_username=USER, redfish_password=PASSWORD)
    info.update(values.pop('driver_info', {}))
    return builders.create_node(
        admin, name, driver='redfish', provision_state=state,
        driver_info=info, **values)


def _by_node(messages):
    found = {}
    for publisher, event_type, payload in messages:
        assert publisher == 'nova-mini-conductor.' + HOST
        assert event_type == 'hardware.redfish.metrics'
        found[payload['node_uuid']] = payload
    return found


def test_one_pass_sends_the_deployed_nodes(admin, bmc, received, sensors,
                                           caplog):
    instance = str(uuid.uuid4())
    deployed = _node(admin, bmc, 0, 'deployed', instance_uuid=instance)
    other = _node(admin, bmc, 1, 'other')
    undeployed = _node(admin, bmc, 2, 'undeployed', states.AVAILABLE)
    _node(admin, bmc, 1, 'in-maintenance', maintenance=True)
    broken = _node(admin, bmc, 0, 'broken', driver_info={
        'redfish_system_id': '/redfish/v1/Systems/no-such-system'})
    outcomes = sensors.run_once(admin)
    assert outcomes == {sensor_data.SENT: 2, sensor_data.FAILED: 1}
    found = _by_node(received.collect(2))
    assert sorted(found) == sorted([deployed.uuid, other.uuid])
    message = found[deployed.uuid]
    assert message['event_type'] == 'hardware.redfish.metrics'
    assert message['node_name'] == 'deployed'
    assert message['instance_uuid'] == instance
    assert found[other.uuid]['instance_uuid'] is None
    assert uuid.UUID(message['message_id'])
    assert message['timestamp'][:2] == '20'
    payload = message['payload']
    # What the emulator serves: its chassis' fans and temperatures, and
    # the system's identity.
    assert payload['Extra']['UUID'] == bmc.systems[0]['uuid']
    assert payload['Temperature'] and payload['Fan']
    assert set(payload) <= {'Extra', 'Fan', 'Temperature', 'Power',
                            'Drive'}
    reading = next(iter(payload['Temperature'].values()))
    assert 'reading_celsius' in reading
    assert undeployed.uuid not in found
    assert received.none_within(QUIET)
    # The failing BMC is logged, without its credentials.
    assert ('Failed to get sensor data for node %s' % broken.uuid
            in caplog.text)
    assert PASSWORD not in caplog.text


def test_undeployed_nodes_when_enabled(conf, admin, bmc, received,
                                       sensors):
    conf.config(enable_for_undeployed_nodes=True, group='sensor_data')
    deployed = _node(admin, bmc, 0, 'deployed')
    undeployed = _node(admin, bmc, 2, 'undeployed', states.MANAGEABLE)
    assert sensors.run_once(admin) == {sensor_data.SENT: 2}
    found = _by_node(received.collect(2))
    assert sorted(found) == sorted([deployed.uuid, undeployed.uuid])


def test_data_types_filter(conf, admin, bmc, received, sensors):
    conf.config(data_types=['temperature', 'Extra'], group='sensor_data')
    node = _node(admin, bmc, 1, 'filtered')
    assert sensors.run_once(admin) == {sensor_data.SENT: 1}
    payload = _by_node(received.collect(1))[node.uuid]['payload']
    assert sorted(payload) == ['Extra', 'Temperature']
    # No type left: nothing sent.
    conf.config(data_types=['Voltage'], group='sensor_data')
    assert sensors.run_once(admin) == {sensor_data.EMPTY: 1}
    assert received.none_within(QUIET)


@pytest.mark.parametrize('option', [
    {'send_sensor_data': False}, {'enable_for_nodes': False}])
def test_option_off_sends_nothing(conf, admin, bmc, received, sensors,
                                  option):
    conf.config(interval=1, group='sensor_data', **option)
    _node(admin, bmc, 0, 'deployed')
    assert sensors.run_once(admin) == {}
    assert sensors.start() is False
    assert received.none_within(QUIET)


def test_noop_driver_reads_nothing(conf, admin, bmc, received):
    conf.config(driver=['noop'], group='oslo_messaging_notifications')
    conductor_obj.register_host(admin, HOST, ['redfish'])

    def hardware_for(node):
        raise AssertionError('a BMC was read')

    sensors = sensor_data.SensorData(HOST, ['redfish'], conf=conf.conf,
                                     hardware_for=hardware_for,
                                     ring=hash_ring.HashRingManager())
    _node(admin, bmc, 0, 'deployed')
    assert sensors.enabled() is False
    assert sensors.run_once(admin) == {}
    assert sensors.start() is False
    assert sensors.stop(10)
    assert received.none_within(QUIET)


def test_periodic_sends_until_stopped(conf, admin, bmc, received,
                                      sensors):
    conf.config(interval=1, group='sensor_data')
    node = _node(admin, bmc, 0, 'deployed')
    assert sensors.start() is True
    found = _by_node(received.collect(2))
    assert list(found) == [node.uuid]
    assert sensors.stop(30)
    # Drain what a pass in flight sent, then nothing more.
    while not received.messages.empty():
        received.messages.get()
    assert received.none_within(QUIET)


@pytest.fixture
def silent_bmc():
    """A BMC address that accepts connections and never answers."""
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(16)
    accepted = []
    stop = threading.Event()

    def accept():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield 'http://127.0.0.1:%d' % server.getsockname()[1]
    stop.set()
    thread.join(5)
    for connection in accepted:
        connection.close()
    server.close()


def test_wait_timeout_bounds_a_pass(conf, admin, bmc, received, sensors,
                                    silent_bmc):
    # The silent BMC's reading ends after read_timeout (a minute here):
    # the pass stops waiting after wait_timeout and the others are sent.
    conf.config(wait_timeout=2, workers=2, group='sensor_data')
    conf.config(read_timeout=60, connect_timeout=5, group='redfish')
    fine = _node(admin, bmc, 0, 'fine')
    silent = _node(admin, bmc, 0, 'silent', driver_info={
        'redfish_address': silent_bmc})
    started = time.monotonic()
    outcomes = sensors.run_once(admin)
    assert time.monotonic() - started < 45
    assert outcomes == {sensor_data.SENT: 1, sensor_data.TIMED_OUT: 1}
    found = _by_node(received.collect(1))
    assert list(found) == [fine.uuid]
    assert silent.uuid not in found
    # Stopping waits for the silent BMC's reading no longer than told.
    assert sensors.stop(0.5) is False
