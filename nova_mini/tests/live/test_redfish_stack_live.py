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

"""redfish nodes through the whole stack (issue 29): the live stack's API,
scheduler, Keystone and Glance, nova-mini-conductor processes and
sushy-tools' emulator as the BMCs, every step checked on the emulator
itself (its systems read with ``requests``) and in the database.

The module stops the stack's own conductor and runs its own (fixture
``conductors``: each one a nova-mini-conductor process with a host of its
own and the module's [conductor] options), so that a test knows which
conductors share the nodes; the stack's conductor is started again at the
end. The stack's config has [conductor] heartbeat_interval 1 and
heartbeat_timeout 10 and [DEFAULT] hash_ring_reset_interval 1
(live/conftest.py), so a killed conductor leaves the hash ring of the API
and the scheduler, and is taken over, in about 10 s, and the conductors a
test starts are in the rings a second later.

The emulators' power changes take 0 to 1 s here (the emulator's own 1 to
11 s are the driver's live tests' business), but where a test needs a
deploy to last.
"""

import base64
import contextlib
import os
import signal
import time
import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova
from nova_mini_deploy import redfish_emulator as emulator_deploy
from nova_mini_deploy import redfish_nodes

pytestmark = [
    pytest.mark.live,
    pytest.mark.timeout(240),
    pytest.mark.skipif(
        not os.path.exists(os.path.join(emulator_deploy.venv_dir(), 'bin',
                                        'sushy-emulator')),
        reason='no sushy-tools venv at %s' % emulator_deploy.venv_dir()),
]

RESOURCE_CLASS = 'baremetal-rf-%s' % helpers.RUN
FLAVOR = 'bm-rf-%s' % helpers.RUN
AUTH = ('bmc-admin', 'bmc-%s' % helpers.RUN)
FAST = (0, 1)
_NODES = models.Node.__table__
RING_RESET = 1
# The module's conductors' options: the takeover and the sync every 2 s.
CONDUCTOR_OPTIONS = {'check_provision_state_interval': 2,
                     'sync_power_state_interval': 0,
                     'power_state_change_timeout': 30,
                     'graceful_shutdown_timeout': 10}
# An unreachable BMC given up after 2 attempts 1 s apart (Ironic's 5, 4 s
# apart, would make its test a minute long).
REDFISH_OPTIONS = {'connection_attempts': 2, 'connection_retry_interval': 1,
                   'connect_timeout': 5}


@pytest.fixture(scope='module')
def conductors(stack):
    """``start(sync=None, **options) -> Process``: a nova-mini-conductor of
    the stack with a host of its own; ``sync`` ((interval, force)) turns
    its power state sync on. The stack's own conductor is stopped for the
    module and started again after it.
    """
    stack.nova.stop(nova.CONDUCTOR, timeout=30)
    started = []

    def start(sync=None, **options):
        name = 'nova-mini-conductor-%s' % uuid.uuid4().hex[:6]
        section = dict(CONDUCTOR_OPTIONS, **options)
        if sync:
            section.update(sync_power_state_interval=sync[0],
                           force_power_state_during_sync=str(
                               sync[1]).lower())
        extra = stack.nova.write_extra_config(name, {
            'DEFAULT': {'host': name}, 'conductor': section,
            'redfish': REDFISH_OPTIONS})
        proc = stack.nova.start(
            nova.CONDUCTOR, name=name,
            config_files=[stack.nova.conf_path, extra])
        started.append(name)
        return proc

    start.started = started
    yield start
    for name in started:
        stack.nova.stop(name, timeout=30)
    stack.nova.start(nova.CONDUCTOR)


@pytest.fixture
def conductor_set(conductors, stack):
    """The test's conductors, stopped (SIGTERM) after it."""
    mine = []

    def start(count=1, **kwargs):
        procs = [conductors(**kwargs) for _ in range(count)]
        mine.extend(procs)
        # Until every service's hash ring has them (and not the conductors
        # of the test before): [DEFAULT] hash_ring_reset_interval is 1 s
        # in the live stack.
        time.sleep(RING_RESET + 1)
        return procs

    yield start
    for proc in mine:
        stack.nova.stop(proc.name, timeout=30)


@pytest.fixture(scope='module')
def baremetal(stack):
    return redfish_nodes.BareMetal(stack.nova.baremetal_url,
                                   stack.token('admin'))


@pytest.fixture(scope='module')
def iso_image(stack):
    session = stack.glance.session('admin', stack.passwords['admin'],
                                   'admin')
    return redfish_nodes.ensure_iso_image(stack.glance, session,
                                          'rf-live-%s' % helpers.RUN)


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS)


# -- the emulator's side


def _redfish(bmc, path, method='get', **kwargs):
    response = requests.request(method, bmc.url + path, auth=bmc.auth,
                                verify=bmc.verify, timeout=30, **kwargs)
    assert response.status_code < 300, (path, response.status_code,
                                        response.text)
    return response.json() if response.content else None


def _system(bmc, index):
    return _redfish(bmc, bmc.systems[index]['system_id'])


def _cd(bmc, index):
    return _redfish(bmc, bmc.systems[index]['system_id']
                    + '/VirtualMedia/Cd')


def _reset(bmc, index, reset_type):
    """A power change sent to the BMC behind nova_mini's back."""
    _redfish(bmc, bmc.systems[index]['system_id']
             + '/Actions/ComputerSystem.Reset', method='post',
             json={'ResetType': reset_type})


def _wait(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        assert time.monotonic() < deadline, (
            'not in %d s: %s' % (timeout, what))
        time.sleep(0.3)


# -- nova_mini's side


def _row(engine, name):
    with engine.connect() as connection:
        return dict(connection.execute(sa.select(_NODES).where(
            _NODES.c.name == name)).one()._mapping)


def _settled(baremetal, name, timeout=90):
    """The node once no operation is pending on it."""
    return _wait(lambda: (lambda n: n if not n['reservation']
                          and not n['target_power_state']
                          and not n['target_provision_state'] else None)(
                              baremetal.node(name)),
                 timeout, 'node %s settled' % name)


def _enroll(baremetal, bmc, prefix, count=None):
    """The emulator's systems as available nodes of the module's resource
    class; their names.
    """
    names = []
    for index, system in enumerate(bmc.systems[:count]):
        name = '%s-%d' % (prefix, index)
        baremetal.create(name, redfish_nodes.driver_info(bmc, system),
                         resource_class=RESOURCE_CLASS)
        baremetal.provision(name, 'manage')
        names.append(name)
    for name in names:
        baremetal.wait(name, 'manageable')
        baremetal.provision(name, 'provide')
    for name in names:
        baremetal.wait(name, 'available')
    return names


def _power(baremetal, name, target):
    baremetal.request('PUT', '/nodes/%s/states/power' % name,
                      expect=(202,), json={'target': target})


def _retire(baremetal, names):
    """Take the test's nodes out of the scheduler's way."""
    for name in names:
        node = baremetal.node(name)
        if node and node['provision_state'] == 'available':
            baremetal.request('PATCH', '/nodes/%s' % name, json=[
                {'op': 'replace', 'path': '/maintenance', 'value': True}])


def _servers(stack, token, flavor, image, count, prefix):
    url = stack.nova.compute_url
    headers = {'X-Auth-Token': token}
    return [helpers.create_server(url, headers, flavor,
                                  '%s-%d' % (prefix, i), imageRef=image)
            for i in range(count)]


def _server(stack, token, server_id):
    response = requests.get(stack.nova.compute_url + '/servers/%s'
                            % server_id, headers={'X-Auth-Token': token},
                            timeout=30)
    return response.json()['server'] if response.status_code == 200 \
        else None


def _node_of(engine, server_id):
    with engine.connect() as connection:
        return connection.execute(sa.select(_NODES).where(
            _NODES.c.instance_uuid == server_id)).one_or_none()


# -- the tests


def test_enroll_manage_provide_power_and_boot_device(
        stack, engine, baremetal, conductor_set, redfish_emulators):
    (conductor,) = conductor_set()
    bmc = redfish_emulators(systems=2, auth=AUTH, tls=True,
                            power_delay=FAST)
    _reset(bmc, 1, 'On')
    # The emulator shows a power change after its delay.
    _wait(lambda: _system(bmc, 1)['PowerState'] == 'On', 30, 'the system on')
    prefix = 'rf-enroll-%s' % helpers.RUN
    info = redfish_nodes.driver_info(bmc, bmc.systems[1])
    baremetal.create(prefix, info, resource_class=RESOURCE_CLASS)
    try:
        # Created without asking the BMC; the system is on.
        assert _row(engine, prefix)['power_state'] != 'power on'
        baremetal.provision(prefix, 'manage')
        node = baremetal.wait(prefix, 'manageable')
        # manage read the power from the BMC (system 1 was switched on).
        assert node['power_state'] == 'power on'
        assert node['conductor'] == conductor.name
        row = _row(engine, prefix)
        assert (row['power_state'], row['reservation']) == ('power on',
                                                            None)
        baremetal.provision(prefix, 'provide')
        baremetal.wait(prefix, 'available')

        _power(baremetal, prefix, 'power off')
        _settled(baremetal, prefix)
        assert _system(bmc, 1)['PowerState'] == 'Off'
        assert _row(engine, prefix)['power_state'] == 'power off'
        _power(baremetal, prefix, 'power on')
        _settled(baremetal, prefix)
        assert _system(bmc, 1)['PowerState'] == 'On'
        assert _row(engine, prefix)['power_state'] == 'power on'

        baremetal.request('PUT', '/nodes/%s/management/boot_device'
                          % prefix, expect=(204,),
                          json={'boot_device': 'cdrom', 'persistent': True})
        boot = _system(bmc, 1)['Boot']
        assert (boot['BootSourceOverrideTarget'],
                boot['BootSourceOverrideEnabled']) == ('Cd', 'Continuous')
        shown = baremetal.request('GET', '/nodes/%s/management/boot_device'
                                  % prefix).json()
        assert shown == {'boot_device': 'cdrom', 'persistent': True}
        # The emulator's log shows the conversation.
        with open(bmc.log_path) as f:
            log = f.read()
        assert 'ComputerSystem.Reset' in log
        # The password is never shown.
        assert baremetal.node(prefix)['driver_info'][
            'redfish_password'] == '******'
    finally:
        _retire(baremetal, [prefix])


@pytest.mark.parametrize('case', ['unreachable', 'wrong-credentials'])
def test_a_bmc_that_does_not_answer_leaves_last_error(
        stack, engine, baremetal, conductor_set, redfish_emulators, case):
    conductor_set()
    bmc = redfish_emulators(systems=1, auth=AUTH, power_delay=FAST)
    info = redfish_nodes.driver_info(bmc, bmc.systems[0])
    if case == 'unreachable':
        # A port nothing listens on.
        info['redfish_address'] = 'http://127.0.0.1:9'
    else:
        info['redfish_password'] = 'not-the-password'
    name = 'rf-%s-%s' % (case, helpers.RUN)
    baremetal.create(name, info, resource_class=RESOURCE_CLASS)
    baremetal.provision(name, 'manage')
    node = _settled(baremetal, name, timeout=120)
    assert node['provision_state'] == 'enroll'
    assert node['last_error'], node
    row = _row(engine, name)
    assert row['reservation'] is None
    assert row['last_error'] == node['last_error']
    # A power request fails the same way, nothing left reserved.
    baremetal.request('PATCH', '/nodes/%s' % name, json=[
        {'op': 'replace', 'path': '/maintenance', 'value': True}])


@pytest.mark.parametrize('force', [True, False], ids=['forced', 'adopted'])
def test_out_of_band_power_change_and_the_sync(
        stack, engine, baremetal, conductor_set, redfish_emulators, force):
    conductor_set(sync=(2, force))
    bmc = redfish_emulators(systems=1, auth=AUTH, power_delay=FAST)
    (name,) = _enroll(baremetal, bmc, 'rf-sync-%s-%s' % (force,
                                                         helpers.RUN))
    try:
        assert _row(engine, name)['power_state'] == 'power off'
        _reset(bmc, 0, 'On')
        _wait(lambda: _system(bmc, 0)['PowerState'] == 'On', 30,
              'the system on')
        if force:
            # Powered off again by the sync, the node still off.
            _wait(lambda: _system(bmc, 0)['PowerState'] == 'Off', 60,
                  'the system powered off by the sync')
            node = _settled(baremetal, name)
            assert node['power_state'] == 'power off'
        else:
            # The BMC's state stored.
            _wait(lambda: _row(engine, name)['power_state'] == 'power on',
                  60, 'the power state adopted')
            time.sleep(3)
            assert _system(bmc, 0)['PowerState'] == 'On'
        row = _row(engine, name)
        assert (row['reservation'], row['maintenance']) == (None, False)
    finally:
        _retire(baremetal, [name])


def test_openstack_server_create_and_delete(
        stack, engine, baremetal, conductor_set, redfish_emulators, flavor,
        iso_image):
    conductor_set()
    bmc = redfish_emulators(systems=1, auth=AUTH, tls=True,
                            power_delay=FAST)
    (name,) = _enroll(baremetal, bmc, 'rf-cli-%s' % helpers.RUN)
    try:
        server = 'rf-cli-%s' % helpers.RUN
        created = stack.openstack(
            'server', 'create', '--image', iso_image, '--flavor', flavor,
            '--no-network', '--wait', '-f', 'value', '-c', 'id', server,
            user='demo').stdout.strip()
        row = _row(engine, name)
        assert (row['instance_uuid'], row['provision_state'],
                row['power_state'], row['reservation']) == (
                    created, 'active', 'power on', None)
        assert _system(bmc, 0)['PowerState'] == 'On'
        cd = _cd(bmc, 0)
        assert cd['Inserted'] is True
        assert cd['Image'].endswith('.iso'), cd
        stack.openstack('server', 'delete', '--wait', server, user='demo')
        node = baremetal.wait(name, 'available')
        assert node['instance_uuid'] is None
        assert _system(bmc, 0)['PowerState'] == 'Off'
        assert not _cd(bmc, 0).get('Inserted')
        assert _row(engine, name)['reservation'] is None
    finally:
        _retire(baremetal, [name])


def _wait_builds(stack, token, server_ids, timeout):
    """The servers' statuses once none is BUILD."""
    def done():
        shown = {sid: _server(stack, token, sid) for sid in server_ids}
        if all(s and s['status'] != 'BUILD' for s in shown.values()):
            return {sid: s['status'] for sid, s in shown.items()}
        return None
    return _wait(done, timeout, 'the builds done')


def _delete_all(stack, token, server_ids):
    for sid in server_ids:
        requests.delete(stack.nova.compute_url + '/servers/%s' % sid,
                        headers={'X-Auth-Token': token}, timeout=30)


def test_20_nodes_deployed_at_once_by_2_conductors(
        stack, engine, baremetal, conductor_set, redfish_emulators, flavor,
        iso_image):
    procs = conductor_set(2)
    hosts = {proc.name for proc in procs}
    bmc = redfish_emulators(systems=20, auth=AUTH, power_delay=FAST)
    names = _enroll(baremetal, bmc, 'rf-20-%s' % helpers.RUN)
    token = stack.token('demo')
    server_ids = []
    try:
        by_host = {}
        for name in names:
            by_host.setdefault(baremetal.node(name)['conductor'],
                               []).append(name)
        # Both conductors have nodes.
        assert set(by_host) == hosts, by_host
        started = time.monotonic()
        server_ids = _servers(stack, token, flavor, iso_image, 20,
                              'rf-20-%s' % helpers.RUN)
        statuses = _wait_builds(stack, token, server_ids, 150)
        took = time.monotonic() - started
        assert set(statuses.values()) == {'ACTIVE'}, statuses
        for index, name in enumerate(names):
            row = _row(engine, name)
            assert (row['provision_state'], row['power_state'],
                    row['reservation']) == ('active', 'power on', None)
            assert row['instance_uuid'] in server_ids
        assert {_system(bmc, i)['PowerState'] for i in range(20)} == {'On'}
        # Both conductors deployed: each one's log names its nodes.
        for host, nodes in by_host.items():
            with open(os.path.join(stack.nova.log_dir, host + '.log')) as f:
                log = f.read()
            uuids = [baremetal.node(n)['uuid'] for n in nodes]
            assert any(u in log for u in uuids), host
        print('20 servers ACTIVE in %.1f s' % took)
        _delete_all(stack, token, server_ids)
        for name in names:
            baremetal.wait(name, 'available')
        assert {_system(bmc, i)['PowerState'] for i in range(20)} == {'Off'}
        # 40 deploys and tear downs later, no log of the stack's daemons
        # nor the emulator's holds the BMC password, plain or as a basic
        # authorization header.
        _assert_not_in_logs(
            [os.path.join(stack.nova.log_dir, name)
             for name in os.listdir(stack.nova.log_dir)] + [bmc.log_path],
            AUTH)
    finally:
        _delete_all(stack, token, server_ids)
        _retire(baremetal, names)


def _assert_not_in_logs(paths, auth):
    secrets = [auth[1], base64.b64encode(
        ('%s:%s' % auth).encode()).decode()]
    read = 0
    for path in paths:
        if not os.path.isfile(path):
            continue
        with open(path, errors='replace') as f:
            text = f.read()
        read += len(text)
        for secret in secrets:
            assert secret not in text, (path, 'holds the BMC password')
    assert read, paths


def test_a_conductor_killed_mid_deploy(
        stack, engine, baremetal, conductor_set, redfish_emulators, flavor,
        iso_image):
    survivor, victim = conductor_set(2)
    # Deploys that last: the power on after the media takes 4 to 6 s.
    bmc = redfish_emulators(systems=8, auth=AUTH, power_delay=(4, 6))
    names = _enroll(baremetal, bmc, 'rf-kill-%s' % helpers.RUN)
    token = stack.token('demo')
    server_ids = []
    try:
        victims = [n for n in names
                   if baremetal.node(n)['conductor'] == victim.name]
        assert victims, 'the hash ring gave the victim no node'
        server_ids = _servers(stack, token, flavor, iso_image, 8,
                              'rf-kill-%s' % helpers.RUN)

        def deploying():
            rows = [_row(engine, n) for n in victims]
            return any(r['provision_state'] in ('deploying', 'wait call-back')
                       and r['reservation'] == victim.name for r in rows)
        _wait(deploying, 60, 'a deploy of the victim running')
        os.kill(victim.pid, signal.SIGKILL)
        stack.nova.processes.pop(victim.name).wait(10)

        statuses = _wait_builds(stack, token, server_ids, 120)
        assert set(statuses.values()) <= {'ACTIVE', 'ERROR'}, statuses

        def settled():
            rows = [_row(engine, n) for n in names]
            return rows if all(
                r['reservation'] is None and r['provision_state'] in (
                    'active', 'available') for r in rows) else None
        rows = _wait(settled, 90, 'every node active or available, '
                     'unreserved')
        on = {r['instance_uuid']: r for r in rows if r['instance_uuid']}
        for sid, status in statuses.items():
            if status == 'ACTIVE':
                assert on[sid]['provision_state'] == 'active'
            else:
                # Failed cleanly: its node freed, the reason shown.
                assert sid not in on
                assert _server(stack, token, sid)['fault']['message']
        for row in rows:
            if row['provision_state'] == 'available':
                assert row['instance_uuid'] is None
        # The survivor took the victim's nodes.
        assert {baremetal.node(n)['conductor'] for n in names} == {
            survivor.name}
        print('after the kill: %s' % sorted(statuses.values()))
    finally:
        _delete_all(stack, token, server_ids)
        for name in names:
            with contextlib.suppress(Exception):
                baremetal.wait(name, 'available', timeout=60)
        _retire(baremetal, names)
