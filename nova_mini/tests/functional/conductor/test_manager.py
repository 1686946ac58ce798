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

"""The conductor's RPC endpoint over the database, with a recording
hardware: each change reserves the node, records its target, runs in a
worker and records the outcome with the release; NodeLocked, the full
pool, the failures in Ironic's words.
"""

import base64
import gzip
import io
import os
import threading
import uuid

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa

from nova_mini.cmd import conductor as conductor_cmd
from nova_mini.conductor import manager as manager_mod
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import recording_hardware

HOST = 'conductor-1'
_NODES = models.Node.__table__
INSTANCE = str(uuid.UUID(int=42))


class BMCRefused(exception.Invalid):
    """A driver's own error class (not importable by RPC callers)."""

    msg_fmt = 'The BMC refused: %(why)s'


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def hardware():
    return recording_hardware.RecordingHardware()


class Direct(object):
    """The endpoint called as the RPC dispatcher would: its expected
    exceptions raised as themselves.
    """

    def __init__(self, endpoint):
        self._endpoint = endpoint

    def __getattr__(self, name):
        attribute = getattr(self._endpoint, name)
        if not callable(attribute):
            return attribute

        def call(*args, **kwargs):
            try:
                return attribute(*args, **kwargs)
            except messaging.ExpectedException as exc:
                raise exc.exc_info[1]

        return call


@pytest.fixture
def manager(conf, db, hardware):
    conf.config(node_locked_retry_attempts=1, group='conductor')
    conf.config(workers_pool_size=3, group='conductor')
    manager = Direct(manager_mod.ConductorManager(
        HOST, hardware_for=lambda node: hardware))
    yield manager
    for gate in hardware.gates.values():
        gate.set()
    assert manager.wait(30)
    manager.pool.shutdown()


def _node(admin, name='n1', **values):
    values.setdefault('provision_state', states.MANAGEABLE)
    return builders.create_node(admin, name, driver='redfish', **values)


def _row(engine, node):
    with engine.connect() as connection:
        return connection.execute(sa.select(_NODES).where(
            _NODES.c.id == node.id)).one()._mapping


def test_power_on_is_recorded_then_done(engine, admin, manager, hardware):
    node = _node(admin)
    entered = hardware.hold('set_power_state')
    assert manager.change_node_power_state(admin, node.uuid,
                                           states.POWER_ON, 30) is None
    assert entered.wait(10)
    row = _row(engine, node)
    assert row['reservation'] == HOST
    assert row['target_power_state'] == states.POWER_ON
    assert row['power_state'] == states.POWER_OFF
    # Another change meanwhile: Ironic's 409.
    with pytest.raises(exception_baremetal.NodeLocked) as caught:
        manager.change_node_power_state(admin, node.uuid, states.POWER_OFF)
    assert caught.value.kwargs == {'node': node.uuid, 'host': HOST}
    hardware.release('set_power_state')
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['reservation'], row['power_state'],
            row['target_power_state'], row['last_error']) == (
                None, states.POWER_ON, None, None)
    assert hardware.calls == [
        ('get_power_state', node.uuid),
        ('set_power_state', node.uuid, states.POWER_ON, 30)]


def test_a_node_already_there_is_left_alone(engine, admin, manager,
                                            hardware):
    node = _node(admin)
    hardware.power = states.POWER_ON
    manager.change_node_power_state(admin, node.uuid, states.POWER_ON)
    assert manager.wait(10)
    assert hardware.names() == ['get_power_state']
    assert _row(engine, node)['power_state'] == states.POWER_ON
    # A reboot always acts.
    manager.change_node_power_state(admin, node.uuid, 'rebooting')
    assert manager.wait(10)
    assert hardware.calls[-1] == ('set_power_state', node.uuid, 'rebooting',
                                  None)


def test_a_power_failure_is_recorded_in_ironic_words(engine, admin,
                                                     manager, hardware):
    node = _node(admin)
    hardware.fail('set_power_state', BMCRefused(why='timed out'))
    manager.change_node_power_state(admin, node.uuid, 'soft power off')
    assert manager.wait(10)
    row = _row(engine, node)
    assert row['last_error'] == (
        "Failed to change power state to 'power off' by 'soft power off'. "
        "Error: The BMC refused: timed out")
    assert (row['reservation'], row['target_power_state'],
            row['power_state']) == (None, None, states.POWER_OFF)


def test_an_unknown_power_target(engine, admin, manager, hardware):
    node = _node(admin)
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        manager.change_node_power_state(admin, node.uuid, 'sideways')
    assert _row(engine, node)['reservation'] is None
    assert hardware.calls == []


def test_bad_driver_info_is_refused_before_anything(engine, admin,
                                                    manager, hardware):
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE, target_power_state=None)
    before = _stored(engine, node)
    reason = ("Missing the following Redfish properties in node %s "
              "driver_info: ['redfish_address']" % node.uuid)
    hardware.results['power'] = (False, reason)
    hardware.results['management'] = (False, reason)
    with pytest.raises(exception_baremetal.InvalidParameterValue) as caught:
        manager.change_node_power_state(admin, node.uuid, states.POWER_ON)
    assert caught.value.format_message() == reason
    with pytest.raises(exception_baremetal.InvalidParameterValue):
        manager.set_boot_device(admin, node.uuid, 'pxe')
    with pytest.raises(exception_baremetal.InvalidDeployInfo) as caught:
        manager.do_node_deploy(admin, node.uuid, INSTANCE)
    assert caught.value.format_message() == (
        'Failed to validate deploy or power info for node %s. Error: %s'
        % (node.uuid, reason))
    # Nothing reserved, recorded or started.
    assert _stored(engine, node) == before
    assert hardware.calls == []
    assert manager.ping(admin)['in_progress'] == 0
    # A tear down, in Ironic's words.
    _update(engine, node, provision_state=states.ACTIVE)
    before = _stored(engine, node)
    with pytest.raises(exception_baremetal.InvalidTearDownInfo) as caught:
        manager.do_node_tear_down(admin, node.uuid)
    assert caught.value.format_message() == (
        'Failed to validate power driver interface. Can not delete '
        'instance. Error: %s' % reason)
    assert _stored(engine, node) == before
    # Once valid, the same request starts.
    hardware.results['power'] = (True, None)
    manager.change_node_power_state(admin, node.uuid, states.POWER_ON)
    assert manager.wait(10)
    assert _row(engine, node)['power_state'] == states.POWER_ON


def _stored(engine, node):
    # The row but its updated_at (that taking a reservation touches).
    row = dict(_row(engine, node))
    del row['updated_at']
    return row


def _update(engine, node, **values):
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(**values))


def test_a_full_pool_refuses_before_writing(engine, admin, manager,
                                            hardware):
    nodes = [_node(admin, 'n%d' % i) for i in range(4)]
    entered = hardware.hold('set_power_state')
    for node in nodes[:3]:
        manager.change_node_power_state(admin, node.uuid, 'rebooting')
    assert entered.wait(10)
    with pytest.raises(exception_baremetal.NoFreeConductorWorker):
        manager.change_node_power_state(admin, nodes[3].uuid, 'rebooting')
    row = _row(engine, nodes[3])
    assert (row['reservation'], row['target_power_state']) == (None, None)
    assert manager.ping(admin)['in_progress'] == 3
    hardware.release('set_power_state')
    assert manager.wait(10)
    manager.change_node_power_state(admin, nodes[3].uuid, 'rebooting')
    assert manager.wait(10)
    assert all(_row(engine, node)['reservation'] is None for node in nodes)


def test_deploy(engine, admin, manager, hardware):
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE,
                 instance_info={'boot_iso': 'http://images/boot.iso'})
    entered = hardware.hold('deploy')
    manager.do_node_deploy(admin, node.uuid, INSTANCE,
                           configdrive='http://drives/cd.iso')
    assert entered.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['reservation']) == (states.DEPLOYING, states.ACTIVE, HOST)
    assert row['instance_info']['configdrive'] == 'http://drives/cd.iso'
    hardware.release('deploy')
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['power_state'], row['last_error'], row['reservation']) == (
                states.ACTIVE, None, states.POWER_ON, None, None)
    assert hardware.calls == [('deploy', node.uuid, 'http://images/boot.iso',
                               'http://drives/cd.iso')]


def test_a_failed_deploy(engine, admin, manager, hardware):
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE,
                 instance_info={'image_source': 'http://images/os.iso',
                                'configdrive': 'H4sIAAAA'})
    hardware.fail('deploy', BMCRefused(why='no virtual media'))
    manager.do_node_deploy(admin, node.uuid, INSTANCE)
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['reservation']) == (states.DEPLOYFAIL, states.ACTIVE, None)
    assert row['last_error'] == (
        'Failed to deploy: The BMC refused: no virtual media')
    # A config drive held as text has no URL to give the BMC.
    assert hardware.calls == [('deploy', node.uuid, 'http://images/os.iso',
                               None)]


def test_deploy_checks(engine, admin, manager, hardware):
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE)
    with pytest.raises(exception_baremetal.NodeClaimLost):
        manager.do_node_deploy(admin, node.uuid, str(uuid.UUID(int=7)))
    other = _node(admin, 'n2', instance_uuid=str(uuid.UUID(int=8)))
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        manager.do_node_deploy(admin, other.uuid, str(uuid.UUID(int=8)))
    held = _node(admin, 'n3', provision_state=states.AVAILABLE,
                 instance_uuid=str(uuid.UUID(int=9)),
                 instance_info={'traits': ['CUSTOM_GPU']})
    with pytest.raises(exception_baremetal.MissingNodeTraits):
        manager.do_node_deploy(admin, held.uuid, str(uuid.UUID(int=9)))
    for each in (node, other, held):
        row = _row(engine, each)
        assert row['reservation'] is None
        assert row['target_provision_state'] is None
    assert hardware.calls == []


def test_tear_down(engine, admin, manager, hardware):
    node = _node(admin, provision_state=states.ACTIVE,
                 instance_uuid=INSTANCE, power_state=states.POWER_ON,
                 lessee='p1', instance_info={'project_id': 'p1'})
    with engine.begin() as connection:
        connection.execute(models.Allocation.__table__.insert().values(
            uuid=INSTANCE, node_id=node.id, state='active'))
    entered = hardware.hold('tear_down')
    manager.do_node_tear_down(admin, node.uuid)
    assert entered.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['reservation']) == (states.DELETING, states.AVAILABLE, HOST)
    hardware.release('tear_down')
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['power_state'], row['instance_uuid'], row['instance_info'],
            row['lessee'], row['reservation']) == (
                states.AVAILABLE, None, states.POWER_OFF, None, {}, None,
                None)
    with engine.connect() as connection:
        assert connection.execute(sa.select(sa.func.count()).select_from(
            models.Allocation.__table__)).scalar() == 0


def test_a_failed_tear_down(engine, admin, manager, hardware):
    node = _node(admin, provision_state=states.ACTIVE,
                 instance_uuid=INSTANCE)
    hardware.fail('tear_down', BMCRefused(why='gone'))
    manager.do_node_tear_down(admin, node.uuid)
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['instance_uuid'], row['reservation']) == (
                states.ERROR, None, INSTANCE, None)
    assert row['last_error'] == 'Failed to tear down. Error: The BMC ' \
        'refused: gone'
    protected = _node(admin, 'n2', provision_state=states.ACTIVE,
                      protected=True)
    with pytest.raises(exception_baremetal.NodeProtected):
        manager.do_node_tear_down(admin, protected.uuid)


def test_manage_reads_the_power_state_from_the_bmc(engine, admin, manager,
                                                   hardware):
    node = _node(admin, provision_state=states.ENROLL)
    hardware.power = states.POWER_ON
    entered = hardware.hold('get_power_state')
    manager.do_provisioning_action(admin, node.uuid, states.MANAGE)
    assert entered.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state']) == (
        states.VERIFYING, states.MANAGEABLE)
    hardware.release('get_power_state')
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['power_state'], row['last_error'], row['reservation']) == (
                states.MANAGEABLE, None, states.POWER_ON, None, None)
    assert hardware.names() == ['validate', 'get_power_state']
    # provide: at once.
    manager.do_provisioning_action(admin, node.uuid, states.PROVIDE)
    row = _row(engine, node)
    assert (row['provision_state'], row['reservation']) == (
        states.AVAILABLE, None)
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        manager.do_provisioning_action(admin, node.uuid, states.PROVIDE)
    with pytest.raises(exception.Invalid):
        manager.do_provisioning_action(admin, node.uuid, 'inspect')


def test_a_failed_manage_stays_enrolled(engine, admin, manager, hardware):
    node = _node(admin, provision_state=states.ENROLL)
    hardware.fail('get_power_state', BMCRefused(why='401 Unauthorized'))
    manager.do_provisioning_action(admin, node.uuid, states.MANAGE)
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['reservation']) == (states.ENROLL, None, None)
    assert row['last_error'] == (
        'Failed to get power state for node %s. Error: The BMC refused: '
        '401 Unauthorized' % node.uuid)
    hardware.results['power'] = (False, 'Missing redfish_address')
    manager.do_provisioning_action(admin, node.uuid, states.MANAGE)
    assert manager.wait(10)
    assert _row(engine, node)['last_error'] == (
        'Failed to validate power driver interface for node %s. Error: '
        'Missing redfish_address' % node.uuid)


def test_adopt_validates_and_reads_the_power_state(engine, admin,
                                                   manager, hardware):
    node = _node(admin, power_state=states.POWER_OFF)
    hardware.power = states.POWER_ON
    entered = hardware.hold('get_power_state')
    manager.do_provisioning_action(admin, node.uuid, states.ADOPT)
    assert entered.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['reservation']) == (states.ADOPTING, states.ACTIVE, HOST)
    # The node is held while it is adopted.
    with pytest.raises(exception_baremetal.NodeLocked):
        manager.change_node_power_state(admin, node.uuid, states.POWER_OFF)
    hardware.release('get_power_state')
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['power_state'], row['last_error'], row['reservation']) == (
                states.ACTIVE, None, states.POWER_ON, None, None)
    assert hardware.names() == ['validate', 'get_power_state']
    # Only from manageable or adopt failed.
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        manager.do_provisioning_action(admin, node.uuid, states.ADOPT)


def test_a_failed_adoption(engine, admin, manager, hardware):
    node = _node(admin, power_state=states.POWER_ON)
    message = 'Error while attempting to adopt node %s: ' % node.uuid
    for interface in ('power', 'management', 'boot', 'deploy'):
        hardware.results[interface] = (False, 'no %s info' % interface)
        manager.do_provisioning_action(admin, node.uuid, states.ADOPT)
        assert manager.wait(10)
        row = _row(engine, node)
        # As Ironic's: the power state is no longer trusted.
        assert (row['provision_state'], row['target_provision_state'],
                row['power_state'], row['reservation']) == (
                    states.ADOPTFAIL, None, None, None)
        assert row['last_error'] == (
            message + 'Failed to validate %s driver interface: no %s '
            'info.' % (interface, interface))
        hardware.results[interface] = (True, None)
    assert 'get_power_state' not in hardware.names()
    # A BMC that does not answer, from adopt failed.
    hardware.fail('get_power_state', BMCRefused(why='no route to host'))
    manager.do_provisioning_action(admin, node.uuid, states.ADOPT)
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['last_error']) == (
        states.ADOPTFAIL, message + 'Failed to get power state: The BMC '
        'refused: no route to host.')
    # Fixed: adopted from adopt failed.
    del hardware.failures['get_power_state']
    manager.do_provisioning_action(admin, node.uuid, states.ADOPT)
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['power_state'],
            row['last_error']) == (states.ACTIVE, states.POWER_OFF, None)


def test_boot_device_sensors_validate(engine, admin, manager, hardware):
    node = _node(admin)
    assert manager.get_boot_device(admin, node.uuid) == {
        'boot_device': 'pxe', 'persistent': False}
    manager.set_boot_device(admin, node.uuid, 'cdrom', persistent=True)
    assert manager.get_boot_device(admin, node.name) == {
        'boot_device': 'cdrom', 'persistent': True}
    assert manager.get_supported_boot_devices(admin, node.uuid) == [
        'pxe', 'disk', 'cdrom']
    assert manager.get_sensors_data(admin, node.uuid) == {
        'Temperature': {'CPU1': {'Reading': 40}}}
    hardware.results['boot'] = (False, 'No virtual media')
    assert manager.validate_driver_interfaces(admin, node.uuid) == {
        'boot': {'result': False, 'reason': 'No virtual media'},
        'deploy': {'result': True}, 'management': {'result': True},
        'power': {'result': True}}
    assert _row(engine, node)['reservation'] is None
    # A driver's own error reaches the caller as nova_mini's.
    hardware.fail('set_boot_device', BMCRefused(why='no such device'))
    with pytest.raises(exception.Invalid) as caught:
        manager.set_boot_device(admin, node.uuid, 'floppy')
    assert type(caught.value) is exception.Invalid
    assert caught.value.format_message() == (
        'The BMC refused: no such device')
    assert _row(engine, node)['reservation'] is None


def test_set_boot_device_holds_the_node(engine, admin, manager, hardware):
    node = _node(admin)
    entered = hardware.hold('set_boot_device')
    setter = threading.Thread(target=manager.set_boot_device,
                              args=(admin, node.uuid, 'disk'))
    setter.start()
    assert entered.wait(10)
    assert _row(engine, node)['reservation'] == HOST
    with pytest.raises(exception_baremetal.NodeLocked):
        manager.change_node_power_state(nm_context.get_admin_context(),
                                        node.uuid, states.POWER_ON)
    hardware.release('set_boot_device')
    setter.join(10)
    assert _row(engine, node)['reservation'] is None


def _add_internal(engine, node, **items):
    # Another writer of the node's driver_internal_info (the row as
    # stored, whatever the conductor holds).
    with engine.begin() as connection:
        info = connection.execute(sa.select(
            _NODES.c.driver_internal_info).where(
                _NODES.c.id == node.id)).scalar_one() or {}
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(
                driver_internal_info=dict(info, **items)))


def test_the_hardware_driver_internal_info_is_stored(engine, admin,
                                                     manager, hardware):
    hardware.persistent_refused = True
    node = _node(admin, driver_internal_info={'kept': 1, 'agent': 'x'})
    entered = hardware.hold('set_boot_device')
    setter = threading.Thread(target=manager.set_boot_device,
                              args=(admin, node.uuid, 'pxe'),
                              kwargs={'persistent': True})
    setter.start()
    assert entered.wait(10)
    # Changed meanwhile by another writer: kept.
    _add_internal(engine, node, concurrent='y', agent='z')
    hardware.release('set_boot_device')
    setter.join(10)
    row = _row(engine, node)
    assert row['reservation'] is None
    # Only the key the hardware changed is written over the stored row.
    assert row['driver_internal_info'] == {
        'kept': 1, 'agent': 'z', 'concurrent': 'y',
        'redfish_boot_device': 'pxe'}
    # A power change keeps it (nothing changed), a non-persistent device
    # removes it, even when the BMC then fails.
    manager.change_node_power_state(admin, node.uuid, 'rebooting')
    assert manager.wait(10)
    assert _row(engine, node)['driver_internal_info'][
        'redfish_boot_device'] == 'pxe'
    manager.set_boot_device(admin, node.uuid, 'disk')
    assert _row(engine, node)['driver_internal_info'] == {
        'kept': 1, 'agent': 'z', 'concurrent': 'y'}


def test_a_deploy_stores_the_hardware_driver_internal_info(
        engine, admin, manager, hardware):
    hardware.persistent_refused = True
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE, driver_internal_info={'kept': 1},
                 instance_info={'boot_iso': 'http://images/boot.iso'})
    entered = hardware.hold('deploy')
    manager.do_node_deploy(admin, node.uuid, INSTANCE)
    assert entered.wait(10)
    _add_internal(engine, node, concurrent='y')
    hardware.release('deploy')
    assert manager.wait(10)
    row = _row(engine, node)
    assert (row['provision_state'], row['reservation']) == (
        states.ACTIVE, None)
    # With the deploy steps the deploy recorded when it started.
    assert row['driver_internal_info'] == {
        'kept': 1, 'concurrent': 'y', 'redfish_boot_device': 'cdrom',
        'deploy_steps': [{'step': 'deploy', 'priority': 100,
                          'abortable': False, 'argsinfo': None,
                          'interface': 'deploy'}]}


def test_a_stopping_conductor_takes_no_work(engine, admin, manager):
    node = _node(admin)
    manager.stop()
    with pytest.raises(exception_baremetal.ConductorShuttingDown):
        manager.change_node_power_state(admin, node.uuid, states.POWER_ON)
    assert _row(engine, node)['reservation'] is None


def test_the_deploy_images_hooks(conf, engine, admin, hardware):
    conf.config(workers_pool_size=3, group='conductor')
    published, withdrawn = [], []

    def images(context, node):
        published.append(node.uuid)
        return ('http://conductor/boot-%s.iso' % node.uuid,
                'http://conductor/configdrive-%s' % node.uuid)

    endpoint = Direct(manager_mod.ConductorManager(
        HOST, hardware_for=lambda node: hardware, deploy_images=images,
        clean_up_images=lambda node: withdrawn.append(node.uuid)))
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE)
    endpoint.do_node_deploy(admin, node.uuid, INSTANCE)
    assert endpoint.wait(10)
    assert hardware.calls == [
        ('deploy', node.uuid, 'http://conductor/boot-%s.iso' % node.uuid,
         'http://conductor/configdrive-%s' % node.uuid)]
    assert published == [node.uuid]
    # Withdrawn at tear down, even when the BMC fails it.
    hardware.fail('tear_down', BMCRefused(why='gone'))
    endpoint.do_node_tear_down(admin, node.uuid)
    assert endpoint.wait(10)
    assert withdrawn == [node.uuid]
    assert _row(engine, node)['provision_state'] == states.ERROR
    # A failing hook fails the deploy in Ironic's words.
    other = _node(admin, 'n2', provision_state=states.AVAILABLE,
                  instance_uuid=str(uuid.UUID(int=5)))
    failing = Direct(manager_mod.ConductorManager(
        HOST, hardware_for=lambda node: hardware,
        deploy_images=lambda context, node: 1 / 0))
    failing.do_node_deploy(admin, other.uuid, str(uuid.UUID(int=5)))
    assert failing.wait(10)
    row = _row(engine, other)
    assert (row['provision_state'], row['reservation'],
            row['last_error']) == (states.DEPLOYFAIL, None,
                                   'Failed to deploy: division by zero')
    endpoint.pool.shutdown()
    failing.pool.shutdown()


def _gzip_b64(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode='wb', mtime=0) as f:
        f.write(data)
    return base64.b64encode(buf.getvalue()).decode()


def test_the_daemon_publishes_the_deploy_images(conf, engine, admin,
                                                hardware, tmp_path):
    # nova-mini-conductor's endpoint: deploy_images.prepare/clean_up.
    conf.config(workers_pool_size=3, group='conductor')
    conf.config(http_root=str(tmp_path), http_url='http://192.0.2.10:8080',
                ramdisk_image_download_source='http', group='deploy')
    endpoint = Direct(conductor_cmd.make_endpoint(
        HOST, hardware_for=lambda node: hardware))
    drive = b'config drive image ' * 100
    node = _node(admin, provision_state=states.AVAILABLE,
                 instance_uuid=INSTANCE,
                 instance_info={'boot_iso': 'http://images/boot.iso'})
    path = tmp_path / 'redfish' / ('configdrive-%s' % node.uuid)
    url = 'http://192.0.2.10:8080/redfish/configdrive-%s' % node.uuid
    try:
        endpoint.do_node_deploy(admin, node.uuid, INSTANCE,
                                configdrive=_gzip_b64(drive))
        assert endpoint.wait(10)
        assert hardware.calls == [('deploy', node.uuid,
                                   'http://images/boot.iso', url)]
        assert path.read_bytes() == drive
        row = _row(engine, node)
        assert (row['provision_state'], row['reservation']) == (
            states.ACTIVE, None)
        # Withdrawn at tear down.
        endpoint.do_node_tear_down(admin, node.uuid)
        assert endpoint.wait(10)
        assert not path.exists()
        assert _row(engine, node)['provision_state'] == states.AVAILABLE
        # And when the BMC fails the deploy.
        with engine.begin() as connection:
            connection.execute(_NODES.update().where(
                _NODES.c.id == node.id).values(
                    instance_uuid=INSTANCE,
                    instance_info={'boot_iso': 'http://images/boot.iso'}))
        hardware.fail('deploy', BMCRefused(why='no virtual media'))
        endpoint.do_node_deploy(admin, node.uuid, INSTANCE,
                                configdrive=_gzip_b64(drive))
        assert endpoint.wait(10)
        assert hardware.calls[-1] == ('deploy', node.uuid,
                                      'http://images/boot.iso', url)
        row = _row(engine, node)
        assert (row['provision_state'], row['last_error']) == (
            states.DEPLOYFAIL,
            'Failed to deploy: The BMC refused: no virtual media')
        assert not path.exists()
        assert os.listdir(tmp_path / 'redfish') == []
    finally:
        endpoint.pool.shutdown()
