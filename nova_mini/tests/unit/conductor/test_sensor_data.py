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

"""The [sensor_data] options and how the conductor's sensor data reads
them (the passes themselves: functional/conductor/test_sensor_data.py).
"""

import oslo_messaging as messaging
import pytest

from nova_mini.conductor import sensor_data
from nova_mini import conf as nm_conf
from nova_mini.conf import opts
from nova_mini import rpc


def test_options_are_ironics():
    options = nm_conf.CONF.sensor_data
    assert {name: options[name] for name in options} == {
        'send_sensor_data': False, 'interval': 600, 'workers': 4,
        'wait_timeout': 300, 'data_types': ['ALL'],
        'enable_for_undeployed_nodes': False, 'enable_for_nodes': True}
    groups = {str(group): [opt.name for opt in group_opts]
              for group, group_opts in opts.list_opts()}
    assert groups['sensor_data'] == [
        'send_sensor_data', 'interval', 'workers', 'wait_timeout',
        'data_types', 'enable_for_undeployed_nodes', 'enable_for_nodes']


@pytest.mark.parametrize('name,value', [
    ('interval', 0), ('workers', 0), ('wait_timeout', 0)])
def test_bounds_refused(conf, name, value):
    with pytest.raises(ValueError):
        conf.config(**{name: value, 'group': 'sensor_data'})


SENSORS = {'Extra': {'Model': 'm'}, 'Fan': {'0@c': {'reading': 1}},
           'Temperature': {'0@c': {'reading_celsius': 30}},
           'Power': {}, 'Drive': {}}


@pytest.mark.parametrize('data_types,kept', [
    (['ALL'], sorted(SENSORS)),
    (['all'], sorted(SENSORS)),
    (['FAN', ' temperature'], ['Fan', 'Temperature']),
    (['Fan', 'ALL'], sorted(SENSORS)),
    (['Voltage'], []),
    ([], []),
])
def test_filter_types(data_types, kept):
    assert sorted(sensor_data.filter_types(SENSORS, data_types)) == kept


@pytest.fixture
def notifier(conf):
    """A real Notifier of oslo.messaging's in-memory transport."""
    rpc.register_opts(conf.conf)
    conf.config(driver=['test'], group='oslo_messaging_notifications')
    transport = messaging.get_notification_transport(conf.conf,
                                                     url='fake:/')
    yield messaging.Notifier(transport, publisher_id='p')
    transport.cleanup()


def _sensors(conf, notifier=None, hardware_for=None):
    def refuse(node):
        raise AssertionError('a BMC was read')
    return sensor_data.SensorData('h1', ['redfish'], conf=conf.conf,
                                  hardware_for=hardware_for or refuse,
                                  notifier=notifier)


@pytest.mark.parametrize('options,driver,enabled', [
    ({}, 'test', False),
    ({'send_sensor_data': True}, 'test', True),
    ({'send_sensor_data': True, 'enable_for_nodes': False}, 'test', False),
    ({'send_sensor_data': True}, 'noop', False),
])
def test_enabled(conf, notifier, options, driver, enabled):
    conf.config(group='sensor_data', **options)
    conf.config(driver=[driver], group='oslo_messaging_notifications')
    sensors = _sensors(conf, messaging.Notifier(notifier.transport,
                                                publisher_id='p'))
    assert sensors.enabled() is enabled
    if not enabled:
        # Nothing starts, nothing is read.
        assert sensors.start() is False
        assert sensors.run_once(object()) == {}
    assert sensors.stop(1)


def test_off_makes_no_notifier(conf):
    sensors = _sensors(conf)
    assert sensors.start() is False
    assert sensors.enabled() is False
    # No transport was made (none to close either).
    assert sensors._notifier is None
    assert sensors.stop(1)


class _Node(object):
    uuid = '1be26c0b-03f2-4d2d-ae87-c02d7f33c5c0'
    name = 'n1'
    driver = 'redfish'
    instance_uuid = None


def test_message_is_ironics(conf, notifier):
    message = _sensors(conf, notifier).message(_Node(), {'Fan': {}})
    assert sorted(message) == [
        'event_type', 'instance_uuid', 'message_id', 'node_name',
        'node_uuid', 'payload', 'timestamp']
    assert message['event_type'] == 'hardware.redfish.metrics'
    assert (message['node_uuid'], message['node_name'],
            message['instance_uuid'], message['payload']) == (
                _Node.uuid, 'n1', None, {'Fan': {}})


class _Failing(object):
    def validate_interface(self, node, interface):
        pass

    def get_sensors_data(self, node):
        raise RuntimeError('BMC unreachable')


def test_a_failing_bmc_is_logged_and_skipped(conf, notifier, caplog):
    conf.config(send_sensor_data=True, group='sensor_data')
    sensors = _sensors(conf, notifier, hardware_for=lambda n: _Failing())
    assert sensors.send_node(None, _Node()) == sensor_data.FAILED
    assert ('Failed to get sensor data for node %s. Error: BMC '
            'unreachable' % _Node.uuid) in caplog.text
    sensors.stop(1)
    # Stopped: nothing more is read.
    assert sensors.send_node(None, _Node()) == sensor_data.SKIPPED
