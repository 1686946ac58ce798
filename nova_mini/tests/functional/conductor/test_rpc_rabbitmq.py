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

"""The conductor RPC API end to end in one process, over the machine's
RabbitMQ (a virtual host of the test's own): the client asks the hash
ring for the node's conductor and calls it on topic nova-mini-conductor;
the server (the real endpoint, with a recording hardware) reserves, works
in its pool and records the outcome; the domain errors come back as
themselves (NodeLocked 409, NoValidConductor 404, a driver's error as
nova_mini's).
"""

import threading
import uuid

import pytest
import sqlalchemy as sa

from nova_mini.conductor import manager as manager_mod
from nova_mini.conductor import rpcapi
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import rpc
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.fixtures import recording_hardware

HOST = 'conductor-rpc-1'


@pytest.fixture(scope='module')
def backend():
    """SQLite only: the broker is what this module tests (overrides
    conftest's).
    """
    return 'sqlite'


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_conductor')


@pytest.fixture
def hardware():
    return recording_hardware.RecordingHardware()


@pytest.fixture
def endpoint(conf, db, vhost, hardware):
    rpc.register_opts(conf.conf)
    conf.config(transport_url=vhost)
    conf.config(rpc_response_timeout=20)
    conf.config(node_locked_retry_attempts=1, group='conductor')
    endpoint = manager_mod.ConductorManager(
        HOST, conf.conf, hardware_for=lambda node: hardware)
    with conductor_fixture.serving(conf.conf, HOST, endpoint, timeout=30):
        yield endpoint
        for gate in hardware.gates.values():
            gate.set()


def _row(engine, node):
    table = models.Node.__table__
    with engine.connect() as connection:
        return connection.execute(sa.select(table).where(
            table.c.id == node.id)).one()._mapping


def _node(name, **values):
    return builders.create_node(nm_context.get_admin_context(), name,
                                driver='redfish', **values)


def test_power_round_trip(conf, engine, endpoint, hardware):
    node = _node('n1')
    api = rpcapi.ConductorAPI(conf.conf)
    ctxt = nm_context.get_admin_context()
    assert api.host_for(ctxt, node) == HOST
    assert api.ping(ctxt, HOST)['rpc_api_version'] == rpcapi.VERSION
    entered = hardware.hold('set_power_state')
    assert api.change_node_power_state(ctxt, node, 'rebooting',
                                       timeout=30) is None
    assert entered.wait(10)
    row = _row(engine, node)
    assert (row['reservation'], row['target_power_state']) == (
        HOST, states.POWER_ON)
    with pytest.raises(exception_baremetal.NodeLocked) as caught:
        api.change_node_power_state(ctxt, node, states.POWER_OFF)
    assert caught.value.format_message() == (
        'Node %s is locked by host %s, please retry after the current '
        'operation is completed.' % (node.uuid, HOST))
    hardware.release('set_power_state')
    assert endpoint.wait(10)
    row = _row(engine, node)
    assert (row['reservation'], row['target_power_state'],
            row['power_state']) == (None, None, states.POWER_ON)
    assert hardware.calls == [('set_power_state', node.uuid, 'rebooting',
                               30)]


def test_reads_and_errors_over_rpc(conf, endpoint, hardware):
    node = _node('n2')
    api = rpcapi.ConductorAPI(conf.conf)
    ctxt = nm_context.get_admin_context()
    api.set_boot_device(ctxt, node, 'cdrom', persistent=True)
    assert api.get_boot_device(ctxt, node) == {'boot_device': 'cdrom',
                                               'persistent': True}
    assert api.get_supported_boot_devices(ctxt, node) == [
        'pxe', 'disk', 'cdrom']
    assert api.validate_driver_interfaces(ctxt, node)['power'] == {
        'result': True}
    assert api.get_sensors_data(ctxt, node)['Temperature']

    class DriverError(exception.Invalid):
        msg_fmt = '%(why)s'

    hardware.fail('get_boot_device', DriverError(why='BMC says no'))
    with pytest.raises(exception.Invalid) as caught:
        api.get_boot_device(ctxt, node)
    assert caught.value.format_message() == 'BMC says no'
    elsewhere = builders.create_node(ctxt, 'n3', driver='redfish',
                                     conductor_group='rack-9')
    with pytest.raises(exception_baremetal.NoValidConductor,
                       match='conductor group "rack-9"'):
        api.get_boot_device(ctxt, elsewhere)


def test_deploy_and_tear_down_over_rpc(conf, engine, endpoint, hardware):
    instance = str(uuid.uuid4())
    node = _node('n4', provision_state=states.AVAILABLE,
                 instance_uuid=instance,
                 instance_info={'boot_iso': 'http://images/boot.iso'})
    api = rpcapi.ConductorAPI(conf.conf)
    ctxt = nm_context.get_admin_context()
    api.do_node_deploy(ctxt, node, instance)
    assert endpoint.wait(10)
    assert _row(engine, node)['provision_state'] == states.ACTIVE
    api.do_node_tear_down(ctxt, node)
    assert endpoint.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['instance_uuid'],
            row['reservation']) == (states.AVAILABLE, None, None)
    api.do_provisioning_action(ctxt, node, 'manage')
    assert _row(engine, node)['provision_state'] == states.MANAGEABLE


def test_pinned_below_1_0_sends_nothing(conf, endpoint, hardware):
    conf.config(conductor='0.9', group='upgrade_levels')
    node = _node('n5')
    api = rpcapi.ConductorAPI(conf.conf)
    with pytest.raises(exception.RPCVersionCapped):
        api.change_node_power_state(nm_context.get_admin_context(), node,
                                    states.POWER_ON)
    assert hardware.calls == []


def test_indicators_over_rpc(conf, engine, endpoint, hardware):
    node = _node('n6')
    api = rpcapi.ConductorAPI(conf.conf)
    ctxt = nm_context.get_admin_context()
    led = {'readonly': False, 'states': ['BLINKING', 'OFF', 'ON']}
    assert api.get_supported_indicators(ctxt, node) == {
        'system': {'led-s': led}}
    assert api.get_supported_indicators(ctxt, node, 'chassis') == {}
    assert api.get_indicator_state(ctxt, node, 'system', 'led-s') == 'ON'
    entered = hardware.hold('set_indicator_state')
    setter = threading.Thread(target=api.set_indicator_state,
                              args=(ctxt, node, 'system', 'led-s', 'OFF'))
    setter.start()
    assert entered.wait(10)
    # Set under the node's reservation.
    assert _row(engine, node)['reservation'] == HOST
    hardware.release('set_indicator_state')
    setter.join(20)
    assert _row(engine, node)['reservation'] is None
    assert api.get_indicator_state(ctxt, node, 'system', 'led-s') == 'OFF'
    with pytest.raises(exception_baremetal.MissingParameterValue) as caught:
        api.get_indicator_state(ctxt, node, 'chassis', 'led-s')
    assert caught.value.format_message() == (
        'Unknown indicator led-s for component chassis of node %s'
        % node.uuid)


def test_pinned_to_1_0_sends_no_indicator_call(conf, endpoint, hardware):
    conf.config(conductor='1.0', group='upgrade_levels')
    node = _node('n7')
    api = rpcapi.ConductorAPI(conf.conf)
    ctxt = nm_context.get_admin_context()
    with pytest.raises(exception.RPCVersionCapped):
        api.get_supported_indicators(ctxt, node)
    with pytest.raises(exception.RPCVersionCapped):
        api.set_indicator_state(ctxt, node, 'system', 'led-s', 'OFF')
    # 1.0's calls still go.
    assert api.get_boot_device(ctxt, node)['boot_device'] == 'pxe'
    assert hardware.names() == ['get_boot_device']


def test_adopt_over_rpc_and_pinned_below_1_3(conf, engine, endpoint,
                                             hardware):
    node = _node('n10', provision_state=states.MANAGEABLE)
    ctxt = nm_context.get_admin_context()
    conf.config(conductor='1.2', group='upgrade_levels')
    with pytest.raises(exception.RPCVersionCapped) as caught:
        rpcapi.ConductorAPI(conf.conf).do_provisioning_action(
            ctxt, node, states.ADOPT)
    assert caught.value.kwargs == {'api': 'conductor', 'version': '1.3',
                                   'cap': '1.2'}
    assert hardware.calls == []
    assert _row(engine, node)['provision_state'] == states.MANAGEABLE
    # 1.0's provisioning actions still go.
    rpcapi.ConductorAPI(conf.conf).do_provisioning_action(
        ctxt, node, states.PROVIDE)
    assert _row(engine, node)['provision_state'] == states.AVAILABLE
    conf.config(conductor=None, group='upgrade_levels')
    other = _node('n11', provision_state=states.MANAGEABLE)
    rpcapi.ConductorAPI(conf.conf).do_provisioning_action(
        ctxt, other, states.ADOPT)
    assert endpoint.wait(10)
    row = _row(engine, other)
    assert (row['provision_state'], row['power_state'],
            row['reservation']) == (states.ACTIVE, states.POWER_OFF, None)
    assert hardware.names() == ['validate', 'get_power_state']


def test_version_history_is_current():
    assert rpcapi.VERSION == '1.3'
    assert manager_mod.ConductorManager.target.version == rpcapi.VERSION


def _deployed(name, instance):
    return _node(name, provision_state=states.ACTIVE,
                 instance_uuid=instance,
                 instance_info={'boot_iso': 'http://images/boot.iso'})


def test_tear_down_checks_the_instance(conf, engine, endpoint, hardware):
    held_by = str(uuid.uuid4())
    node = _deployed('n8', held_by)
    api = rpcapi.ConductorAPI(conf.conf)
    ctxt = nm_context.get_admin_context()
    with pytest.raises(exception_baremetal.NodeClaimLost) as caught:
        api.do_node_tear_down(ctxt, node, instance_uuid=str(uuid.uuid4()))
    assert 'it is not torn down for it' in caught.value.format_message()
    row = _row(engine, node)
    assert (row['provision_state'], row['instance_uuid'],
            row['reservation']) == (states.ACTIVE, held_by, None)
    assert hardware.names() == []
    api.do_node_tear_down(ctxt, node, instance_uuid=held_by)
    assert endpoint.wait(10)
    assert _row(engine, node)['provision_state'] == states.AVAILABLE


def test_pinned_to_1_1_tears_down_without_the_check(conf, engine, endpoint,
                                                    hardware):
    conf.config(conductor='1.1', group='upgrade_levels')
    node = _deployed('n9', str(uuid.uuid4()))
    api = rpcapi.ConductorAPI(conf.conf)
    # A 1.1 conductor knows no instance_uuid: it is not sent.
    api.do_node_tear_down(nm_context.get_admin_context(), node,
                          instance_uuid=str(uuid.uuid4()))
    assert endpoint.wait(10)
    assert _row(engine, node)['provision_state'] == states.AVAILABLE
