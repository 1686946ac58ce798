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

"""Servers on redfish nodes through the compute API, in one process:
nova-mini-api's application, a scheduler endpoint and a
nova-mini-conductor endpoint (the real ConductorManager and
RedfishHardware) serving RPC on a RabbitMQ virtual host of the module's
own, sushy-tools' emulator as the BMCs (power changes shown 0 to 1 s
later). A rebuild is the conductor's redeploy (REBUILD until the node is
active again), a delete its tear down.
"""

import threading
import time
import uuid

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa
import webtest

from nova_mini.conductor import hash_ring
from nova_mini.conductor import manager as conductor_manager
from nova_mini.conductor import rpcapi as conductor_rpcapi
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task
from nova_mini import rpc
from nova_mini.scheduler import manager as scheduler_manager
from nova_mini.scheduler import rpcapi as scheduler_rpcapi
from nova_mini import states
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.live.redfish import redfish_emulators  # noqa: F401

HOST = 'redfish-servers-conductor-1'
SCHEDULER = 'redfish-servers-scheduler-1'
V21 = '/compute/v2.1'
HEADERS = {'X-Auth-Token': 'demo:demo',
           'OpenStack-API-Version': 'compute 2.57'}
IMAGE_2 = 'c0ffee00-0000-4000-8000-000000000002'
_NODES = models.Node.__table__


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_redfish_servers')


@pytest.fixture(scope='module')
def images(tmp_path_factory):
    """A web server of a boot ISO (``url``)."""
    yield from conductor_fixture.image_server(tmp_path_factory)


@pytest.fixture(scope='module')
def bmc(redfish_emulators):  # noqa: F811
    return redfish_emulators(systems=2, power_delay=(0, 1))


@pytest.fixture(scope='module')
def slow_bmc(redfish_emulators):  # noqa: F811
    """BMCs whose power changes are seen 3 to 4 s later."""
    return redfish_emulators(systems=2, power_delay=(3, 4))


@pytest.fixture(scope='module')
def slower_bmc(redfish_emulators):  # noqa: F811
    """BMCs whose power changes are seen 6 to 7 s later: a soft power off
    given 1 s is still pending when the hard one follows, however loaded
    the machine (3 to 4 s left a loaded conductor too little room).
    """
    return redfish_emulators(systems=2, power_delay=(6, 7))


class Stack(object):

    def __init__(self, fixture):
        self.fixture = fixture
        self.app = webtest.TestApp(fixture.app)
        self.engine = sa.create_engine(fixture.database.url,
                                       poolclass=sa.pool.NullPool)

    def row(self, node_uuid):
        with self.engine.connect() as connection:
            return dict(connection.execute(sa.select(_NODES).where(
                _NODES.c.uuid == node_uuid)).one()._mapping)

    def wait_row(self, node_uuid, timeout=30, **expected):
        deadline = time.monotonic() + timeout
        while True:
            row = self.row(node_uuid)
            if all(row[key] == value for key, value in expected.items()):
                return row
            assert time.monotonic() < deadline, (expected, row)
            time.sleep(0.2)


@pytest.fixture
def stack(vhost, images, monkeypatch):
    conductor_fixture.short_power_polls(monkeypatch)
    fixture = api_fixture.APIFixture(conf_overrides={
        'transport_url': vhost, 'rpc_response_timeout': 60,
        'ironic.api_retry_interval': 1,
        'conductor.node_locked_retry_attempts': 2,
        'redfish.connection_attempts': 1})
    fixture.setUp()
    conductor = conductor_manager.ConductorManager(
        HOST, fixture.conf,
        deploy_images=lambda context, node: (images + '/boot.iso', None))
    scheduler = rpc.get_server(fixture.conf, messaging.Target(
        topic=scheduler_rpcapi.TOPIC, server=SCHEDULER),
        [scheduler_manager.SchedulerManager(SCHEDULER, fixture.conf)])
    stack = Stack(fixture)
    try:
        with conductor_fixture.serving(fixture.conf, HOST, conductor):
            scheduler.start()
            try:
                yield stack
            finally:
                scheduler.stop()
                scheduler.wait()
    finally:
        stack.engine.dispose()
        fixture.cleanUp()


def _power(bmc, index):
    return conductor_fixture.bmc_system(bmc, index)['PowerState']


def _server_on_redfish_node(stack, bmc, index, address=None,
                            vm_state=instance_task.ACTIVE,
                            power_state=instance_task.RUNNING):
    """A server (project demo, ACTIVE by default) on an active redfish
    node of the emulator's system ``index`` (its BMC powered off, nothing
    inserted); ``address``: another BMC address.
    """
    conductor_fixture.bmc_power_off(bmc, index)
    context = nm_context.get_admin_context()
    server = str(uuid.uuid4())
    node = builders.create_node(
        context, 'rf-%s' % server[:8], driver='redfish',
        provision_state=states.ACTIVE, power_state=states.POWER_ON,
        properties=builders.node_properties(), resource_class='baremetal',
        driver_info=conductor_fixture.redfish_driver_info(
            bmc, index, redfish_address=address or bmc.url))
    builders.boot_server(context, server, name='box', user_id='demo',
                         vm_state=vm_state, power_state=power_state,
                         node_uuid=node.uuid)
    with stack.engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(instance_uuid=server,
                                           instance_info={'traits': []}))
    return server, node.uuid


def _wait_server(stack, server, status, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        body = stack.app.get(V21 + '/servers/%s' % server,
                             headers=HEADERS).json['server']
        if body['status'] == status:
            return body
        assert time.monotonic() < deadline, body
        time.sleep(0.2)


def test_rebuild_redeploys_through_the_conductor(stack, bmc, images):
    server, node = _server_on_redfish_node(stack, bmc, 0)

    body = stack.app.post_json(
        V21 + '/servers/%s/action' % server,
        {'rebuild': {'imageRef': IMAGE_2, 'user_data': 'I2Nsb3VkLWNvbmZpZw=='}},
        headers=HEADERS, status=202).json['server']

    # Answered at once: the node's conductor redeploys it meanwhile.
    assert body['status'] == 'REBUILD'
    assert body['image']['id'] == IMAGE_2
    shown = _wait_server(stack, server, 'ACTIVE')
    assert shown['image']['id'] == IMAGE_2
    row = stack.row(node)
    assert (row['provision_state'], row['power_state'], row['reservation'],
            row['instance_uuid'], row['last_error']) == (
        states.ACTIVE, states.POWER_ON, None, server, None)
    assert _power(bmc, 0) == 'On'
    assert conductor_fixture.bmc_cd(bmc, 0) == (images + '/boot.iso', True)
    context = nm_context.get_admin_context()
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.vm_state, instance.task_state, instance.power_state,
            instance.user_data) == (instance_task.ACTIVE, None,
                                    instance_task.RUNNING,
                                    'I2Nsb3VkLWNvbmZpZw==')
    [action] = [a for a in instance_action.list_actions(context, server)
                if a['action'] == instance_action.REBUILD]
    assert action['message'] is None


def test_delete_tears_the_node_down(stack, bmc):
    server, node = _server_on_redfish_node(stack, bmc, 1)
    # Deployed first (powered on, its ISO inserted), through a rebuild.
    stack.app.post_json(V21 + '/servers/%s/action' % server,
                        {'rebuild': {'imageRef': IMAGE_2}},
                        headers=HEADERS, status=202)
    _wait_server(stack, server, 'ACTIVE')
    assert _power(bmc, 1) == 'On'

    stack.app.delete(V21 + '/servers/%s' % server, headers=HEADERS,
                     status=204)

    row = stack.wait_row(node, provision_state=states.AVAILABLE,
                         reservation=None)
    assert (row['instance_uuid'], row['instance_info'], row['power_state'],
            row['last_error']) == (None, {}, states.POWER_OFF, None)
    assert _power(bmc, 1) == 'Off'
    assert conductor_fixture.bmc_cd(bmc, 1)[1] is False


def test_rebuild_of_a_stopped_server(stack, bmc, images):
    server, node = _server_on_redfish_node(
        stack, bmc, 0, vm_state=instance_task.STOPPED,
        power_state=instance_task.SHUTDOWN)

    stack.app.post_json(V21 + '/servers/%s/action' % server,
                        {'rebuild': {'imageRef': IMAGE_2}},
                        headers=HEADERS, status=202)

    # As Nova: it stays stopped, its node powered off again.
    _wait_server(stack, server, 'SHUTOFF')
    row = stack.wait_row(node, power_state=states.POWER_OFF,
                         reservation=None)
    assert (row['provision_state'], row['instance_uuid']) == (
        states.ACTIVE, server)
    assert conductor_fixture.bmc_cd(bmc, 0) == (images + '/boot.iso', True)
    deadline = time.monotonic() + 10
    while _power(bmc, 0) != 'Off':
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_rebuild_failing_on_the_bmc(stack, bmc):
    # A BMC nothing answers at.
    server, node = _server_on_redfish_node(stack, bmc, 1,
                                           address='http://127.0.0.1:9')

    stack.app.post_json(V21 + '/servers/%s/action' % server,
                        {'rebuild': {'imageRef': IMAGE_2}},
                        headers=HEADERS, status=202)

    shown = _wait_server(stack, server, 'ERROR')
    message = shown['fault']['message']
    assert message.startswith('Failed to provision instance %s: Failed to '
                              'deploy: ' % server), message
    row = stack.row(node)
    # As Nova's failed rebuild: the node keeps its instance, unreserved.
    assert (row['provision_state'], row['instance_uuid'],
            row['reservation']) == (states.DEPLOYFAIL, server, None)
    context = nm_context.get_admin_context()
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.task_state, instance.image_ref) == (None, IMAGE_2)
    [action] = [a for a in instance_action.list_actions(context, server)
                if a['action'] == instance_action.REBUILD]
    assert action['message'] == 'Error'


def _refused_by_the_pin(stack, bmc, pin, body, says):
    """A server on the BMC's first system, asked ``body`` while the
    scheduler RPC API is pinned to ``pin``: 503 in the action's words
    (``says``, not a boot's), the server unchanged. Returns the server,
    its node and an admin context.
    """
    server, node = _server_on_redfish_node(stack, bmc, 0)
    stack.fixture.conf.set_override('scheduler', pin,
                                    group='upgrade_levels')

    fault = stack.app.post_json(
        V21 + '/servers/%s/action' % server, body, headers=HEADERS,
        status=503).json['serviceUnavailable']

    assert says in fault['message']
    assert 'Nothing was created' not in fault['message']
    context = nm_context.get_admin_context()
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.vm_state, instance.task_state) == (
        instance_task.ACTIVE, None)
    return server, node, context


def test_rebuild_refused_by_the_pin_says_so(stack, bmc):
    # A rebuild's words: the server exists, it was not rebuilt.
    server, node, _ = _refused_by_the_pin(
        stack, bmc, '1.2', {'rebuild': {'imageRef': IMAGE_2}},
        'The server was not rebuilt')

    row = stack.row(node)
    assert (row['provision_state'], row['reservation']) == (
        states.ACTIVE, None)


def _power_on(bmc, index):
    conductor_fixture.bmc_request(
        bmc, bmc.systems[index]['system_id'] +
        '/Actions/ComputerSystem.Reset', 'post', json={'ResetType': 'On'})
    deadline = time.monotonic() + 10
    while _power(bmc, index) != 'On':
        assert time.monotonic() < deadline
        time.sleep(0.2)


def _action(context, server, name):
    [action] = [a for a in instance_action.list_actions(context, server)
                if a['action'] == name]
    return action


def _post_action(stack, server, body, status=202):
    """POST the action; its answer."""
    return stack.app.post_json(V21 + '/servers/%s/action' % server, body,
                               headers=HEADERS, status=status)


def _wait_task_done(stack, server, timeout=60):
    """The server once its task ended (read from the database)."""
    context = nm_context.get_admin_context()
    deadline = time.monotonic() + timeout
    while True:
        instance = objects.Instance.get_by_uuid(context, server)
        if instance.task_state is None:
            return instance
        assert time.monotonic() < deadline, instance.task_state
        time.sleep(0.2)


def _shown_task_state(stack, server):
    body = stack.app.get(V21 + '/servers/%s' % server,
                         headers=HEADERS).json['server']
    return body['status'], body['OS-EXT-STS:task_state']


def _stop(stack, bmc, index):
    """A server on the BMC's system ``index``, powered on, asked to stop:
    the answer came before the BMC changed (its changes take 3 to 4 s),
    the server powering-off meanwhile. What shows it is the state right
    after the answer, not the answer's time (a loaded machine). Returns
    the server, its node and where the BMC's log stood before the
    request.
    """
    server, node = _server_on_redfish_node(stack, bmc, index)
    _power_on(bmc, index)
    with open(bmc.log_path) as log:
        log.seek(0, 2)
        before = log.tell()

    _post_action(stack, server, {'os-stop': None})

    # As Nova: answered at once, the server powering-off.
    assert _shown_task_state(stack, server) == ('ACTIVE', 'powering-off')
    instance = objects.Instance.get_by_uuid(nm_context.get_admin_context(),
                                            server)
    assert (instance.vm_state, instance.task_state) == (
        instance_task.ACTIVE, instance_task.POWERING_OFF)
    assert _power(bmc, index) == 'On'
    return server, node, before


def _powered(stack, bmc, index, server, node, on):
    """The server once its power task ended, on (``on``) or off: the
    instance, the BMC and the node agree, the node neither reserved nor
    failed, no fault recorded. Returns the instance.
    """
    if on:
        expected = (instance_task.ACTIVE, instance_task.RUNNING, 'On',
                    states.POWER_ON)
    else:
        expected = (instance_task.STOPPED, instance_task.SHUTDOWN, 'Off',
                    states.POWER_OFF)
    instance = _wait_task_done(stack, server)
    assert (instance.vm_state, instance.power_state) == expected[:2]
    assert not instance.fault
    assert _power(bmc, index) == expected[2]
    row = stack.row(node)
    assert (row['power_state'], row['target_power_state'],
            row['reservation'], row['last_error']) == (
        expected[3], None, None, None)
    return instance


def test_stop_and_start_answer_at_once(stack, slow_bmc):
    bmc = slow_bmc
    server, node, _ = _stop(stack, bmc, 0)

    _powered(stack, bmc, 0, server, node, on=False)
    context = nm_context.get_admin_context()
    action = _action(context, server, instance_action.STOP)
    assert action['message'] is None
    [event] = instance_action.get_action(
        context, server, action['request_id'])['events']
    assert (event['event'], event['result']) == ('compute_stop_instance',
                                                 'Success')

    _post_action(stack, server, {'os-start': None})

    assert _shown_task_state(stack, server) == ('SHUTOFF', 'powering-on')
    _powered(stack, bmc, 0, server, node, on=True)


def test_soft_stop_falls_back_to_a_hard_one(stack, slower_bmc):
    bmc = slower_bmc
    # The soft power off is given 1 s, the BMC takes 6 to 7: the hard one
    # follows (given 20 s).
    stack.fixture.conf.set_override('soft_power_off_timeout', 1,
                                    group='conductor')
    stack.fixture.conf.set_override('power_state_change_timeout', 20,
                                    group='conductor')
    # Answered while the soft power off was still being waited for.
    server, node, before = _stop(stack, bmc, 1)

    _powered(stack, bmc, 1, server, node, on=False)
    with open(bmc.log_path) as log:
        log.seek(before)
        told = [line for line in log if 'power state set to' in line]
    system = bmc.systems[1]['system_id'].rsplit('/', 1)[-1]
    assert ['GracefulShutdown' in line for line in told
            if system in line] == [True, False], told
    assert 'ForceOff' in told[-1], told
    context = nm_context.get_admin_context()
    assert _action(context, server, instance_action.STOP)['message'] is None


def test_hard_reboot_tells_the_bmc(stack, bmc):
    server, node = _server_on_redfish_node(
        stack, bmc, 1, vm_state=instance_task.STOPPED,
        power_state=instance_task.SHUTDOWN)
    with stack.engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.uuid == node).values(power_state=states.POWER_OFF))

    stack.app.post_json(V21 + '/servers/%s/action' % server,
                        {'reboot': {'type': 'HARD'}}, headers=HEADERS,
                        status=202)

    _powered(stack, bmc, 1, server, node, on=True)


def test_power_action_on_a_locked_node_is_409(stack, bmc):
    server, node = _server_on_redfish_node(stack, bmc, 0)
    with stack.engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.uuid == node).values(reservation='another-conductor'))
    try:
        fault = stack.app.post_json(
            V21 + '/servers/%s/action' % server, {'os-stop': None},
            headers=HEADERS, status=409).json['conflictingRequest']
    finally:
        with stack.engine.begin() as connection:
            connection.execute(_NODES.update().where(
                _NODES.c.uuid == node).values(reservation=None))

    assert 'is locked by host another-conductor' in fault['message']
    context = nm_context.get_admin_context()
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.vm_state, instance.task_state) == (
        instance_task.ACTIVE, None)
    assert _action(context, server, instance_action.STOP)['message'] == \
        'Error'


def test_power_action_failing_on_the_bmc(stack, bmc):
    server, node = _server_on_redfish_node(
        stack, bmc, 1, address='http://127.0.0.1:9',
        vm_state=instance_task.STOPPED, power_state=instance_task.SHUTDOWN)
    with stack.engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.uuid == node).values(power_state=states.POWER_OFF))

    _post_action(stack, server, {'os-start': None})

    instance = _wait_task_done(stack, server)
    row = stack.row(node)
    assert row['last_error'].startswith(
        "Failed to change power state to 'power on'"), row['last_error']
    assert (row['power_state'], row['reservation']) == (states.POWER_OFF,
                                                        None)
    # As Nova's failed power action: the fault recorded, the event in
    # error, the server as it was.
    assert (instance.vm_state, instance.power_state) == (
        instance_task.STOPPED, instance_task.SHUTDOWN)
    assert instance.fault['message'] == row['last_error']
    context = nm_context.get_admin_context()
    action = _action(context, server, instance_action.START)
    assert action['message'] == 'Error'
    [event] = instance_action.get_action(
        context, server, action['request_id'])['events']
    assert (event['event'], event['result']) == ('compute_start_instance',
                                                 'Error')


def test_power_action_refused_by_the_pin_says_so(stack, bmc):
    server, node, context = _refused_by_the_pin(
        stack, bmc, '1.3', {'os-stop': None},
        "The server's power was not changed")

    assert _action(context, server, instance_action.STOP)['message'] == \
        'Error'
    row = stack.row(node)
    assert (row['power_state'], row['reservation']) == (states.POWER_ON,
                                                        None)


def test_tear_down_of_a_node_claimed_again_is_refused(stack, bmc):
    from nova_mini.conductor import release

    server, node_uuid = _server_on_redfish_node(stack, bmc, 0)
    context = nm_context.get_admin_context()
    read = objects.Node.get_by_uuid(context, node_uuid)
    # Freed and claimed again by another server since that read.
    other = str(uuid.uuid4())
    with stack.engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.uuid == node_uuid).values(instance_uuid=other))

    assert release.tear_down(context, read, server,
                             stack.fixture.conf) is None

    row = stack.row(node_uuid)
    assert (row['provision_state'], row['instance_uuid'],
            row['reservation']) == (states.ACTIVE, other, None)


class _Silent(object):
    """A conductor endpoint that takes tear downs and never answers (a
    conductor registered alive but stuck, or just killed).
    """

    target = messaging.Target(version=conductor_rpcapi.VERSION)

    def __init__(self):
        self.go = threading.Event()
        self.asked = []

    def do_node_tear_down(self, ctxt, node_id, instance_uuid=None):
        self.asked.append(node_id)
        self.go.wait(120)

    def wait(self, timeout):
        """Its calls ended: none runs once its RPC server stopped."""
        return True


def test_delete_answers_at_once_when_the_conductor_does_not(stack, bmc):
    from nova_mini.scheduler import orphan_claims

    silent_host = 'redfish-servers-silent-%s' % uuid.uuid4().hex[:6]
    silent = _Silent()
    context = nm_context.get_admin_context()
    stack.fixture.conf.set_override('tear_down_request_timeout', 3,
                                    group='conductor')
    # The stack's conductor and scheduler keep the process' transport.
    with conductor_fixture.serving(stack.fixture.conf, silent_host, silent,
                                   close_transport=False):
        try:
            for _attempt in range(30):
                server, node = _server_on_redfish_node(stack, bmc, 0)
                if hash_ring.host_for(context, objects.Node.get_by_uuid(
                        context, node)) == silent_host:
                    break
                stack.app.delete(V21 + '/servers/%s' % server,
                                 headers=HEADERS, status=204)
                stack.wait_row(node, provision_state=states.AVAILABLE,
                               reservation=None)
            else:
                pytest.fail('no node of the silent conductor')

            started = time.monotonic()
            stack.app.delete(V21 + '/servers/%s' % server, headers=HEADERS,
                             status=204)
            # Bounded by [conductor] tear_down_request_timeout (3 here),
            # not rpc_response_timeout (60).
            assert time.monotonic() - started < 30
            assert silent.asked == [node]
            row = stack.row(node)
            # Not forgotten: still deployed for the gone server,
            # unreserved.
            assert (row['provision_state'], row['instance_uuid'],
                    row['reservation']) == (states.ACTIVE, server, None)
        finally:
            silent.go.set()
    # The stuck conductor is gone; the orphan clean-up finds the node and
    # the live conductor tears it down.
    table = models.Conductor.__table__
    with stack.engine.begin() as connection:
        connection.execute(table.update().where(
            table.c.hostname == silent_host).values(online=False))
    hash_ring.reset()
    time.sleep(1)
    freed = orphan_claims.release_orphans(context, grace=0)
    assert node in [orphan.node_uuid for orphan in freed]
    row = stack.wait_row(node, provision_state=states.AVAILABLE,
                         reservation=None)
    assert row['instance_uuid'] is None


def _claimed_redfish_node(stack, bmc, index, traits=()):
    """A server (project demo, BUILD) and an available redfish node of
    the emulator's system ``index`` claimed by it, without lessee.
    """
    conductor_fixture.bmc_power_off(bmc, index)
    context = nm_context.get_admin_context()
    server = str(uuid.uuid4())
    node = builders.create_node(
        context, 'rf-%s' % server[:8], traits=traits, driver='redfish',
        provision_state=states.AVAILABLE, power_state=states.POWER_OFF,
        properties=builders.node_properties(), resource_class='baremetal',
        driver_info=conductor_fixture.redfish_driver_info(bmc, index))
    builders.boot_server(context, server, name='box', user_id='demo',
                         project_id='demo')
    with stack.engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(
                instance_uuid=server,
                instance_info={'traits': list(traits)}))
    return server, objects.Node.get_by_uuid(context, node.uuid)


def test_conductor_deploy_records_what_a_database_deploy_does(stack, bmc):
    server, node = _claimed_redfish_node(stack, bmc, 0)
    context = nm_context.get_admin_context()
    instance = objects.Instance.get_by_uuid(context, server)

    conductor_rpcapi.ConductorAPI(stack.fixture.conf).do_node_deploy(
        context, node, server)

    row = stack.wait_row(node.uuid, provision_state=states.ACTIVE,
                         reservation=None)
    info = row['instance_info']
    assert (info['root_gb'], info['auto_disk_config'],
            info['project_id']) == (str(instance.flavor.root_gb), False,
                                    'demo')
    assert row['lessee'] == 'demo'
    assert [(step['interface'], step['step'])
            for step in row['driver_internal_info']['deploy_steps']] == [
        ('deploy', 'deploy')]


def test_conductor_deploy_failed_by_its_deploy_steps(stack, bmc):
    context = nm_context.get_admin_context()
    trait = 'CUSTOM_RF_%s' % uuid.uuid4().hex[:8].upper()
    objects.DeployTemplate(context, name=trait, steps=[
        {'interface': 'bios', 'step': 'apply_configuration',
         'args': {'settings': []}, 'priority': 150}]).create()
    server, node = _claimed_redfish_node(stack, bmc, 1, traits=[trait])

    conductor_rpcapi.ConductorAPI(stack.fixture.conf).do_node_deploy(
        context, node, server)

    # As the database deploy: deploy failed with Ironic's words, no steps
    # recorded; the BMC was not asked.
    row = stack.row(node.uuid)
    assert (row['provision_state'], row['reservation']) == (
        states.DEPLOYFAIL, None)
    assert row['last_error'].startswith(
        'Failed to validate the final deploy steps list for node %s'
        % node.uuid), row['last_error']
    assert row['driver_internal_info']['deploy_steps'] is None
    assert _power(bmc, 1) == 'Off'
