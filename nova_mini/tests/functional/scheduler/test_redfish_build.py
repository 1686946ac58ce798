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

"""Servers on redfish nodes: the scheduler's build hands the deploy to
the node's nova-mini-conductor and follows the node until it is active
(or failed); freeing the node (a failed build, a deleted server, an
orphan claim) is the conductor's tear down.

Everything real but the processes: a conductor endpoint (the real
ConductorManager and RedfishHardware) served over the machine's RabbitMQ
(a virtual host of this module), sushy-tools' emulator (basic auth, power
changes shown 0 to 1 s later) and a web server of the boot ISO, SQLite.
"""

import base64
import logging
import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from nova_mini.conductor import hash_ring
from nova_mini.conductor import manager as conductor_manager
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini import rpc
from nova_mini.scheduler import conductor_deploy
from nova_mini.scheduler import manager
from nova_mini.scheduler import orphan_claims
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.fixtures import recording_hardware
from nova_mini.tests.live.redfish import redfish_emulators  # noqa: F401

HOST = 'conductor-build-1'
USER, PASSWORD = 'bmc-admin', 'bmc-secret-b1d7e0'
# Refused by the BMC, and holding PASSWORD: found wherever it is logged.
WRONG_PASSWORD = 'not-' + PASSWORD
# Every logger that sees a BMC conversation, at its most talkative.
_BMC_LOGGERS = ('nova_mini', 'sushy', 'urllib3', 'requests',
                'oslo.messaging', 'oslo_messaging')
_NODES = models.Node.__table__


@pytest.fixture(scope='module')
def backend():
    """SQLite only: the conductor and the BMC are what this tests."""
    return 'sqlite'


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_redfish_build')


@pytest.fixture(scope='module')
def bmc(redfish_emulators):  # noqa: F811
    return redfish_emulators(systems=4, auth=(USER, PASSWORD),
                             power_delay=(0, 1))


@pytest.fixture(scope='module')
def images(tmp_path_factory):
    """A web server of a boot ISO (``url``)."""
    yield from conductor_fixture.image_server(tmp_path_factory)


@pytest.fixture
def conductor(conf, db, vhost, images, monkeypatch):
    """A conductor endpoint over RPC; the deploy's boot ISO is
    ``instance_info['boot_iso_name']`` of the images server (boot.iso).
    """
    conductor_fixture.short_power_polls(monkeypatch)
    rpc.register_opts(conf.conf)
    conf.config(transport_url=vhost, rpc_response_timeout=60)
    conf.config(api_retry_interval=1, group='ironic')
    conf.config(node_locked_retry_attempts=2, group='conductor')

    def deploy_images(context, node):
        name = (node.instance_info or {}).get('boot_iso_name', 'boot.iso')
        return images + '/' + name, None

    endpoint = conductor_manager.ConductorManager(
        HOST, conf.conf, deploy_images=deploy_images)
    with conductor_fixture.serving(conf.conf, HOST, endpoint):
        yield endpoint


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _node(admin, engine, bmc, index, instance_uuid, password=PASSWORD,
          **info):
    """A redfish node of the emulator's system ``index``, available and
    claimed for ``instance_uuid`` (as a scheduler's claim leaves it).
    """
    node = builders.create_node(
        admin, 'rf-%s' % uuid.uuid4().hex[:8], driver='redfish',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(), resource_class='baremetal',
        driver_info=conductor_fixture.redfish_driver_info(
            bmc, index, redfish_username=USER, redfish_password=password))
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(
                instance_uuid=instance_uuid,
                instance_info=dict(info, traits=[])))
    return node


def _row(engine, node):
    with engine.connect() as connection:
        return connection.execute(sa.select(_NODES).where(
            _NODES.c.id == node.id)).one()._mapping


def _building(admin):
    server_uuid = str(uuid.uuid4())
    builders.boot_server(admin, server_uuid, vm_state=instance_obj.BUILDING)
    return objects.Instance.get_by_uuid(admin, server_uuid)


def _build(conf, admin, server, node):
    """Run the scheduler's build of ``server`` on ``node``: the deploy is
    handed over, then followed to its end.
    """
    scheduler = manager.SchedulerManager('scheduler-1', conf.conf)
    deploy = scheduler._build(admin, server,
                              objects.Selection(node_uuid=node.uuid))
    assert isinstance(deploy, conductor_deploy.Deploy)
    # Handed over: the conductor holds the node while it deploys it.
    scheduler._wait_for_deploys(admin, [deploy])
    return objects.Instance.get_by_uuid(admin, server.uuid)


def _wait_row(engine, node, timeout=30, **expected):
    deadline = time.monotonic() + timeout
    while True:
        row = _row(engine, node)
        if all(row[key] == value for key, value in expected.items()):
            return row
        if time.monotonic() > deadline:
            pytest.fail('node %s never reached %s: %s' % (
                node.uuid, expected, dict(row)))
        time.sleep(0.2)


def _debug_logs(caplog):
    """Capture the BMC conversation's logs at DEBUG."""
    for name in (None,) + _BMC_LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)


def _assert_password_in_no_log(caplog, bmc):
    """Neither the captured logs (the conductor's, sushy's, urllib3's,
    at DEBUG) nor the BMC's own log hold the password, plain or as a
    basic-auth header.
    """
    assert any(r.name.startswith('sushy') for r in caplog.records), \
        'no sushy debug record: the check would prove nothing'
    header = base64.b64encode(
        ('%s:%s' % (USER, PASSWORD)).encode()).decode()
    with open(bmc.log_path, encoding='utf-8', errors='replace') as f:
        bmc_log = f.read()
    for text in (caplog.text, bmc_log):
        assert PASSWORD not in text
        assert header not in text


def test_boot_then_delete(conf, admin, engine, conductor, bmc, images,
                          caplog):
    _debug_logs(caplog)
    conductor_fixture.bmc_power_off(bmc, 0)
    server = _building(admin)
    node = _node(admin, engine, bmc, 0, server.uuid)

    shown = _build(conf, admin, server, node)

    assert (shown.vm_state, shown.node_uuid, shown.fault or None) == (
        instance_obj.ACTIVE, node.uuid, None)
    row = _row(engine, node)
    assert (row['provision_state'], row['target_provision_state'],
            row['power_state'], row['reservation'], row['instance_uuid'],
            row['last_error']) == (states.ACTIVE, None, states.POWER_ON,
                                   None, server.uuid, None)
    # The BMC did it: the system is on, booting the ISO from its CD.
    assert conductor_fixture.bmc_system(bmc, 0)['PowerState'] == 'On'
    assert conductor_fixture.bmc_cd(bmc, 0) == (images + '/boot.iso', True)
    assert conductor_fixture.bmc_system(bmc, 0)['Boot']['BootSourceOverrideTarget'] == 'Cd'

    # The server is deleted (as DELETE /servers/{id}: the row, then its
    # node): the conductor tears the node down.
    server.destroy()
    assert objects.Node.release_of_deleted(admin, server.uuid) == node.uuid
    row = _wait_row(engine, node, provision_state=states.AVAILABLE,
                    reservation=None)
    assert (row['instance_uuid'], row['instance_info'], row['power_state'],
            row['target_provision_state'], row['last_error']) == (
        None, {}, states.POWER_OFF, None, None)
    assert conductor_fixture.bmc_system(bmc, 0)['PowerState'] == 'Off'
    assert conductor_fixture.bmc_cd(bmc, 0)[1] is False
    _assert_password_in_no_log(caplog, bmc)


def test_deploy_failure_frees_the_node(conf, admin, engine, conductor, bmc,
                                       images):
    # The images server has no such ISO: the BMC refuses to insert it
    # (after the deploy powered the system off).
    server = _building(admin)
    node = _node(admin, engine, bmc, 1, server.uuid,
                 boot_iso_name='missing.iso')

    shown = _build(conf, admin, server, node)

    assert shown.vm_state == instance_obj.ERROR
    assert shown.node_uuid is None
    message = shown.fault['message']
    assert message.startswith('Failed to provision instance %s: Failed to '
                              'deploy: ' % server.uuid), message
    assert 'missing.iso' in message
    # Torn down by the conductor: available, unreserved, no instance.
    row = _wait_row(engine, node, provision_state=states.AVAILABLE,
                    reservation=None)
    assert (row['instance_uuid'], row['instance_info'],
            row['power_state']) == (None, {}, states.POWER_OFF)
    assert conductor_fixture.bmc_system(bmc, 1)['PowerState'] == 'Off'
    assert conductor_fixture.bmc_cd(bmc, 1)[1] is False


def test_wrong_bmc_credentials(conf, admin, engine, conductor, bmc,
                               caplog):
    _debug_logs(caplog)
    server = _building(admin)
    node = _node(admin, engine, bmc, 2, server.uuid,
                 password=WRONG_PASSWORD)

    shown = _build(conf, admin, server, node)

    assert shown.vm_state == instance_obj.ERROR
    message = shown.fault['message']
    assert message.startswith('Failed to provision instance %s: Failed to '
                              'deploy: ' % server.uuid), message
    # The tear down cannot reach the BMC either: the node is left in
    # error with the reason, unreserved and never deployed (as Ironic's
    # tear down leaves a node whose BMC refuses it).
    row = _wait_row(engine, node, provision_state=states.ERROR,
                    reservation=None)
    assert row['last_error'].startswith('Failed to tear down. Error: ')
    assert row['power_state'] != states.POWER_ON
    # With the right password, deleting the server frees it.
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(driver_info={
                'redfish_address': bmc.url,
                'redfish_system_id': bmc.systems[2]['system_id'],
                'redfish_username': USER, 'redfish_password': PASSWORD}))
    server.destroy()
    assert objects.Node.release_of_deleted(admin, server.uuid) == node.uuid
    row = _wait_row(engine, node, provision_state=states.AVAILABLE,
                    reservation=None, instance_uuid=None)
    assert conductor_fixture.bmc_system(bmc, 2)['PowerState'] == 'Off'
    # Neither password was logged (the wrong one holds the right one).
    _assert_password_in_no_log(caplog, bmc)


def test_server_deleted_during_its_deploy(conf, admin, engine, conductor,
                                          bmc):
    conductor_fixture.bmc_power_off(bmc, 3)
    server = _building(admin)
    node = _node(admin, engine, bmc, 3, server.uuid)
    scheduler = manager.SchedulerManager('scheduler-1', conf.conf)
    deploy = scheduler._build(admin, server,
                              objects.Selection(node_uuid=node.uuid))
    # Deleted while its conductor deploys it: the node is left to that
    # work (nothing torn down under it)...
    server.destroy()
    assert objects.Node.release_of_deleted(admin, server.uuid) is None
    assert _row(engine, node)['instance_uuid'] == server.uuid
    scheduler._wait_for_deploys(admin, [deploy])
    # ... and the build, seeing the deploy end, tears it down.
    row = _wait_row(engine, node, provision_state=states.AVAILABLE,
                    reservation=None, instance_uuid=None)
    assert row['power_state'] == states.POWER_OFF
    assert conductor_fixture.bmc_system(bmc, 3)['PowerState'] == 'Off'
    assert conductor_fixture.bmc_cd(bmc, 3)[1] is False


def test_orphan_claim_torn_down_by_the_conductor(conf, admin, engine,
                                                 conductor, bmc):
    server = _building(admin)
    node = _node(admin, engine, bmc, 0, server.uuid)
    _build(conf, admin, server, node)
    assert conductor_fixture.bmc_system(bmc, 0)['PowerState'] == 'On'
    # The server is gone without its node freed (its delete could not
    # reach the database, say): the schedulers' clean-up frees it.
    with engine.begin() as connection:
        connection.execute(models.Instance.__table__.delete().where(
            models.Instance.__table__.c.uuid == server.uuid))
    freed = orphan_claims.release_orphans(admin, grace=0)
    assert freed == [orphan_claims.Orphan(node.uuid, server.uuid)]
    _wait_row(engine, node, provision_state=states.AVAILABLE,
              reservation=None, instance_uuid=None)
    assert conductor_fixture.bmc_system(bmc, 0)['PowerState'] == 'Off'
    assert conductor_fixture.bmc_cd(bmc, 0)[1] is False


def test_a_fake_hardware_node_is_still_deployed_in_the_database(
        conf, admin, engine):
    server = _building(admin)
    node = builders.create_node(admin, 'fake-1',
                                provision_state=states.AVAILABLE,
                                properties=builders.node_properties(),
                                resource_class='baremetal')
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(instance_uuid=server.uuid,
                                           instance_info={'traits': []}))
    scheduler = manager.SchedulerManager('scheduler-1', conf.conf)
    assert scheduler._build(admin, server, objects.Selection(
        node_uuid=node.uuid)) is None
    assert objects.Instance.get_by_uuid(admin, server.uuid).vm_state == \
        instance_obj.ACTIVE
    assert _row(engine, node)['provision_state'] == states.ACTIVE


@pytest.fixture
def recording(conf, db, vhost):
    """A conductor endpoint over RPC whose hardware records and can hold
    its calls (recording_hardware), and that hardware.
    """
    rpc.register_opts(conf.conf)
    conf.config(transport_url=vhost, rpc_response_timeout=60)
    conf.config(api_retry_interval=1, group='ironic')
    hardware = recording_hardware.RecordingHardware()
    endpoint = conductor_manager.ConductorManager(
        HOST, conf.conf, hardware_for=lambda node: hardware,
        deploy_images=lambda context, node: ('http://images/boot.iso',
                                             None))
    with conductor_fixture.serving(conf.conf, HOST, endpoint, timeout=30):
        yield hardware
        for gate in hardware.gates.values():
            gate.set()


def _recorded_node(admin, engine, instance_uuid):
    node = builders.create_node(
        admin, 'rec-%s' % uuid.uuid4().hex[:8], driver='redfish',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(), resource_class='baremetal')
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(instance_uuid=instance_uuid,
                                           instance_info={'traits': []}))
    return node


def test_the_config_drive_goes_to_the_conductor(conf, admin, engine,
                                                recording):
    conf.config(force_config_drive=True)
    server = _building(admin)
    node = _recorded_node(admin, engine, server.uuid)

    shown = _build(conf, admin, server, node)

    assert (shown.vm_state, shown.config_drive) == (instance_obj.ACTIVE,
                                                    True)
    # Kept where Ironic keeps it, for the conductor's image server.
    drive = _row(engine, node)['instance_info']['configdrive']
    assert isinstance(drive, str) and len(drive) > 100
    assert recording.names() == ['deploy']


def test_deploy_past_the_build_deadline(conf, admin, engine, recording):
    conf.config(rpc_response_timeout=3)
    server = _building(admin)
    node = _recorded_node(admin, engine, server.uuid)
    entered = recording.hold('deploy')
    scheduler = manager.SchedulerManager('scheduler-1', conf.conf)
    deploy = scheduler._build(admin, server,
                              objects.Selection(node_uuid=node.uuid))
    assert entered.wait(10)
    waiting = threading.Thread(target=scheduler._wait_for_deploys,
                               args=(admin, [deploy]))
    waiting.start()
    # The build's deadline passes while the BMC works: the server fails
    # then, with the node still deploying.
    deadline = time.monotonic() + 20
    while objects.Instance.get_by_uuid(
            admin, server.uuid).vm_state == instance_obj.BUILDING:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    failed = objects.Instance.get_by_uuid(admin, server.uuid)
    assert failed.vm_state == instance_obj.ERROR
    assert failed.fault['message'] == (
        'Failed to provision instance %s: Timeout reached while waiting '
        'for the node %s to become active: it was still deploying after 3 '
        'seconds ([DEFAULT] rpc_response_timeout).' % (server.uuid,
                                                       node.uuid))
    assert _row(engine, node)['provision_state'] == states.DEPLOYING
    # The deploy ends: the build tears the node down.
    recording.release('deploy')
    waiting.join(30)
    assert not waiting.is_alive()
    _wait_row(engine, node, provision_state=states.AVAILABLE,
              reservation=None, instance_uuid=None)
    assert recording.names() == ['deploy', 'tear_down']


def test_no_conductor_for_the_node(conf, admin, engine):
    rpc.register_opts(conf.conf)
    hash_ring.reset()
    server = _building(admin)
    node = _recorded_node(admin, engine, server.uuid)
    scheduler = manager.SchedulerManager('scheduler-1', conf.conf)

    assert scheduler._build(admin, server, objects.Selection(
        node_uuid=node.uuid)) is None

    failed = objects.Instance.get_by_uuid(admin, server.uuid)
    assert failed.vm_state == instance_obj.ERROR
    assert failed.fault['message'] == (
        'Failed to request Ironic to provision instance %s: No valid host '
        'was found. Reason: No conductor service registered which supports '
        'driver redfish for conductor group "".' % server.uuid)
    row = _row(engine, node)
    assert (row['provision_state'], row['instance_uuid'],
            row['reservation']) == (states.AVAILABLE, None, None)
    hash_ring.reset()


@pytest.mark.parametrize('values, reason', [
    ({'provision_state': states.AVAILABLE, 'instance_uuid': None},
     'the node was freed during the deploy.'),
    ({'provision_state': states.MANAGEABLE},
     'the node went to provision state manageable during the deploy.'),
], ids=['freed', 'moved'])
def test_a_node_taken_away_during_its_deploy(conf, admin, engine, values,
                                             reason):
    server = _building(admin)
    node = _recorded_node(admin, engine, server.uuid)
    deploy = conductor_deploy.Deploy(server, node.uuid, False, 60, 10)
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(provision_state=states.DEPLOYING,
                                           reservation=HOST))
    assert conductor_deploy.check(admin, deploy, conf.conf) == (False, None)
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(reservation=None, **values))

    done, failed = conductor_deploy.check(admin, deploy, conf.conf)

    message = 'Failed to provision instance %s: %s' % (server.uuid, reason)
    assert (done, failed) == (True, message)
    shown = objects.Instance.get_by_uuid(admin, server.uuid)
    assert (shown.vm_state, shown.fault['message']) == (
        instance_obj.ERROR, message)
    # Not this build's to free any more: left as it is.
    row = _row(engine, node)
    assert row['provision_state'] == values['provision_state']
