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

"""The installed nova-mini-conductor with ``[sensor_data]
send_sensor_data``: the sensor data of its deployed redfish node (a
system of sushy-tools' emulator) arrive as notifications on a RabbitMQ
virtual host of the test's own, and SIGTERM still stops it with exit
status 0 within ``[conductor] graceful_shutdown_timeout``.
"""

import os
import signal

import pytest

from nova_mini import context as nm_context
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.fixtures import processes
from nova_mini.tests.live.redfish import redfish_emulators  # noqa: F401

HOST = 'conductor-sensors-cmd-1'
TOPIC = 'nova_mini_sensors_cmd'


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_sensors_cmd')


def test_conductor_sends_sensor_data(tmp_path, vhost, conf,
                                     redfish_emulators):  # noqa: F811
    bmc = redfish_emulators(systems=1)
    sections = (
        '[DEFAULT]\nhost = %s\ntransport_url = %s\n'
        'enabled_hardware_types = fake-hardware,redfish\n'
        '[conductor]\nheartbeat_interval = 1\n'
        'sync_power_state_interval = 0\n'
        'graceful_shutdown_timeout = 10\n'
        '[oslo_messaging_notifications]\ndriver = messagingv2\n'
        'topics = %s\n'
        '[sensor_data]\nsend_sensor_data = true\ninterval = 1\n'
        'wait_timeout = 5\n' % (HOST, vhost, TOPIC))
    with console_scripts.synced_database(tmp_path, sections) as config_file:
        node = builders.create_node(
            nm_context.get_admin_context(), 'sensed', driver='redfish',
            provision_state=states.ACTIVE,
            driver_info=conductor_fixture.redfish_driver_info(bmc, 0))

    log_file = tmp_path / 'conductor.log'
    with conductor_fixture.notification_listener(conf, vhost,
                                                 TOPIC) as received:
        with processes.Daemon(
                [console_scripts.script('nova-mini-conductor'),
                 '--config-file', str(config_file), '--log-file',
                 str(log_file)], capture=True, env=dict(os.environ)) as proc:
            ((publisher, event_type, payload),) = received.collect(
                1, timeout=60)
            assert publisher == 'nova-mini-conductor.' + HOST
            assert event_type == 'hardware.redfish.metrics'
            assert payload['node_uuid'] == node.uuid
            assert payload['payload']['Temperature']
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
    assert code == 0, proc.output()
    log = log_file.read_text()
    assert 'Sending the sensor data of this conductor\'s nodes every 1s' in log
    assert 'nova-mini-conductor stopped' in log
