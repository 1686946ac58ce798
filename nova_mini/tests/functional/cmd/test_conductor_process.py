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

"""The installed nova-mini-conductor as an operator runs it, on a SQLite
database made by ``db sync`` and a RabbitMQ virtual host of the test's
own: it clears the reservations its host held before it started, tells
systemd it is ready, registers for redfish, answers RPC on its topic,
clears the reservations of a dead conductor, and on SIGTERM says
STOPPING=1, leaves the registry and exits 0. A configuration enabling no
hardware type it drives is refused at start.

(Calls that reach a BMC need the redfish driver and its emulator: the
live tests.)
"""

import datetime
import os
import signal
import socket

import pytest
import sqlalchemy as sa

from nova_mini.conductor import rpcapi
from nova_mini.conductor import task_manager
from nova_mini import conf as nm_conf
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini import rpc
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.fixtures import processes
from nova_mini_deploy import util

HOST = 'conductor-process-1'


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_conductor_cmd')


def _rows(url, table, **where):
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            query = sa.select(table)
            for name, value in where.items():
                query = query.where(table.c[name] == value)
            return [row._mapping for row in connection.execute(query)]
    finally:
        engine.dispose()


def _conductor(url):
    rows = _rows(url, models.Conductor.__table__, hostname=HOST)
    return rows[0] if rows else None


def _node(url, name):
    (row,) = _rows(url, models.Node.__table__, name=name)
    return row


def test_start_serve_take_over_and_stop(tmp_path, vhost, conf):
    sections = (
        '[DEFAULT]\nhost = %s\ntransport_url = %s\n'
        'enabled_hardware_types = fake-hardware,redfish\n'
        '[conductor]\nheartbeat_interval = 1\n'
        'check_provision_state_interval = 1\n'
        'graceful_shutdown_timeout = 5\n' % (HOST, vhost))
    url = console_scripts.config(tmp_path, sections)[0]
    with console_scripts.synced_database(tmp_path, sections) as config_file:
        admin = nm_context.get_admin_context()
        # Left by a previous run of this host, killed mid-deploy.
        stale = builders.create_node(admin, 'stale', driver='redfish',
                                     provision_state=states.DEPLOYING,
                                     target_provision_state=states.ACTIVE)
        assert task_manager.reserve(admin, stale.id, HOST)
        # Held by a conductor that died.
        conductor_obj.register_host(admin, 'dead-conductor', ['redfish'])
        orphan = builders.create_node(admin, 'orphan', driver='redfish',
                                      provision_state=states.ACTIVE,
                                      target_power_state=states.POWER_OFF)
        assert task_manager.reserve(admin, orphan.id, 'dead-conductor')

    notify_path = str(tmp_path / 'notify.sock')
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(60)
    log_file = tmp_path / 'conductor.log'
    with notify, processes.Daemon(
            [console_scripts.script('nova-mini-conductor'), '--config-file',
             str(config_file), '--log-file', str(log_file)], capture=True,
            env=dict(os.environ, NOTIFY_SOCKET=notify_path)) as proc:
        assert notify.recv(64) == b'READY=1'
        row = _conductor(url)
        assert row['online'] and row['drivers'] == ['redfish']
        stale_row = _node(url, 'stale')
        assert (stale_row['reservation'], stale_row['provision_state'],
                stale_row['last_error']) == (
                    None, states.DEPLOYFAIL,
                    "The deployment can't be resumed by conductor %s. "
                    "Moving to fail state." % HOST)
        # The dead conductor's node, once its heartbeat is old.
        engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
        with engine.begin() as connection:
            connection.execute(models.Conductor.__table__.update().where(
                models.Conductor.hostname == 'dead-conductor').values(
                    updated_at=datetime.datetime(2020, 1, 1)))
        engine.dispose()
        orphan_row = util.wait_until(
            lambda: (lambda row: row if row['reservation'] is None
                     else None)(_node(url, 'orphan')), 30,
            'the orphan node released')
        assert (orphan_row['target_power_state'],
                orphan_row['last_error']) == (
                    None, 'Pending power operation was aborted due to '
                    'conductor take over')
        # Its RPC server answers on its topic.
        rpc.register_opts(conf.conf)
        conf.config(transport_url=vhost)
        try:
            answer = rpcapi.ConductorAPI(conf.conf).ping(
                nm_context.get_admin_context(), HOST, timeout=20)
        finally:
            rpc.cleanup()
        assert answer['host'] == HOST
        assert answer['rpc_api_version'] == rpcapi.VERSION
        # The operator's ping: every alive conductor of the registry.
        pinged = console_scripts.run('nova-mini-manage', config_file,
                                     'conductor', 'ping', '--timeout', '20')
        assert pinged.returncode == 0, pinged.stderr
        assert pinged.stdout.startswith(
            'conductor %s answered (version ' % HOST)
        pinged = console_scripts.run('nova-mini-manage', config_file,
                                     'conductor', 'ping', '--hostname',
                                     'dead-conductor', '--timeout', '2')
        assert pinged.returncode == 1
        assert ('conductor dead-conductor did not answer within 2s'
                in pinged.stderr)
        # Refreshed every second.
        util.wait_until(
            lambda: _conductor(url)['updated_at'] > row['updated_at'], 10,
            'the conductor row refreshed')

        proc.send_signal(signal.SIGTERM)
        assert notify.recv(64) == b'STOPPING=1'
        code = proc.wait(timeout=60)
    assert code == 0, proc.output()
    assert not _conductor(url)['online']
    assert 'nova-mini-conductor stopped' in log_file.read_text()
    pinged = console_scripts.run('nova-mini-manage', config_file,
                                 'conductor', 'ping')
    assert pinged.returncode == 1
    assert ('No alive nova-mini-conductor in the conductors registry'
            in pinged.stderr)


def test_no_hardware_type_it_drives(tmp_path):
    _url, config_file = console_scripts.config(
        tmp_path, '[DEFAULT]\nenabled_hardware_types = fake-hardware\n')
    result = console_scripts.run('nova-mini-conductor', config_file)
    assert result.returncode == 1
    assert ('[DEFAULT] enabled_hardware_types (fake-hardware) names no '
            'hardware type nova-mini-conductor drives (redfish)'
            in result.stderr + result.stdout)
    assert nm_conf.CONF is not None


@pytest.mark.parametrize('option, message', [
    ('enabled_power_interfaces = fake',
     "For hardware type 'redfish', no default value found for power "
     "interface could be determined. Please ensure the interfaces are "
     "enabled."),
    ('enabled_deploy_interfaces = ramdisk,direct',
     '[DEFAULT] enabled_deploy_interfaces names implementations nova_mini '
     'does not have: direct (it has: fake, ramdisk).'),
], ids=['no-power-interface', 'unknown-deploy-interface'])
def test_interfaces_it_cannot_drive_redfish_with(tmp_path, option, message):
    # As Ironic's conductor, it does not start.
    _url, config_file = console_scripts.config(
        tmp_path, '[DEFAULT]\nenabled_hardware_types = redfish\n%s\n'
        % option)
    result = console_scripts.run('nova-mini-conductor', config_file)
    assert result.returncode == 1
    assert message in result.stderr + result.stdout


def test_a_host_nova_mini_api_holds_is_refused(tmp_path, vhost, conf):
    # nova-mini-api registered the same [DEFAULT] host, alive: its
    # heartbeat would keep a killed conductor alive, so the conductor
    # refuses to start and touches nothing.
    sections = ('[DEFAULT]\nhost = %s\ntransport_url = %s\n'
                'enabled_hardware_types = redfish\n' % (HOST, vhost))
    url = console_scripts.config(tmp_path, sections)[0]
    with console_scripts.synced_database(tmp_path, sections) as config_file:
        admin = nm_context.get_admin_context()
        conductor_obj.register_host(admin, HOST)
        held = builders.create_node(admin, 'held', driver='redfish',
                                    provision_state=states.DEPLOYING,
                                    target_provision_state=states.ACTIVE)
        assert task_manager.reserve(admin, held.id, HOST)
    result = console_scripts.run('nova-mini-conductor', config_file)
    assert result.returncode == 1
    lines = [line for line in (result.stderr + result.stdout).splitlines()
             if 'ERROR' in line]
    assert len(lines) == 1
    assert lines[0].endswith(
        'Could not register conductor %s: Conductor %s already registered '
        'by another service (drivers fake-hardware): nova-mini-api and '
        'nova-mini-conductor need a [DEFAULT] host of their own.'
        % (HOST, HOST))
    row = _conductor(url)
    assert row['drivers'] == ['fake-hardware'] and row['online']
    node = _node(url, 'held')
    assert (node['reservation'], node['provision_state']) == (
        HOST, states.DEPLOYING)
