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

"""The Redfish emulator harness (nova_mini_deploy.redfish_emulator and the
fixtures of live/redfish.py), through raw Redfish requests: the fake
systems it lists, a power change that shows after the emulator's delay,
basic auth, TLS with the throw-away CA, virtual media, a clean stop, the
CLI, and a hundred systems (the benchmarks').

Requests go with ``verify=`` on each call: requests lets
REQUESTS_CA_BUNDLE of the environment override a Session's ``verify``.
"""

import json
import os
import stat
import subprocess
import sys
import time

import pytest
import requests

from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.live import redfish
from nova_mini_deploy import redfish_emulator as emulator_deploy
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RESET = '/Actions/ComputerSystem.Reset'


def _get(emulator, path, **kwargs):
    kwargs.setdefault('auth', emulator.auth)
    kwargs.setdefault('verify', emulator.verify)
    return requests.get(emulator.url + path, timeout=10, **kwargs)


def _post(emulator, path, body, **kwargs):
    kwargs.setdefault('auth', emulator.auth)
    kwargs.setdefault('verify', emulator.verify)
    return requests.post(emulator.url + path, json=body, timeout=30,
                         **kwargs)


def _power(emulator, system):
    resp = _get(emulator, system['system_id'])
    assert resp.status_code == 200, resp.text
    return resp.json()['PowerState']


def _wait_power(emulator, system, state, timeout):
    """Poll until the system shows ``state``; the seconds it took."""
    start = time.monotonic()
    while _power(emulator, system) != state:
        assert time.monotonic() - start < timeout, (
            '%s not %s after %ss' % (system['name'], state, timeout))
        time.sleep(0.1)
    return time.monotonic() - start


def test_the_emulator_lists_its_fake_systems(redfish_emulator):
    resp = _get(redfish_emulator, '/redfish/v1/Systems')
    assert resp.status_code == 200
    members = [m['@odata.id'] for m in resp.json()['Members']]
    assert sorted(members) == sorted(
        s['system_id'] for s in redfish_emulator.systems)
    assert len(members) == redfish.SHARED_SYSTEMS
    for system in redfish_emulator.systems:
        body = _get(redfish_emulator, system['system_id']).json()
        assert (body['UUID'], body['Name']) == (system['uuid'],
                                                system['name'])
        nics = _get(redfish_emulator,
                    system['system_id'] + '/EthernetInterfaces').json()
        nic = _get(redfish_emulator, nics['Members'][0]['@odata.id']).json()
        assert nic['MACAddress'] == system['mac']
    # The names and UUIDs are the same on every run.
    assert redfish_emulator.systems[0]['name'] == 'nova-mini-bmc-0'
    assert redfish_emulator.systems[0]['uuid'] == (
        'c8eee8d7-f9fa-5146-8bb2-8ba0ecc1a725')


def test_power_on_shows_within_the_emulators_own_delay(redfish_emulator):
    """The shared emulator keeps sushy-tools' delay: 0 to 11 s."""
    system = redfish_emulator.systems[-1]
    if _power(redfish_emulator, system) == 'On':
        assert _post(redfish_emulator, system['system_id'] + RESET,
                     {'ResetType': 'ForceOff'}).status_code == 204
        _wait_power(redfish_emulator, system, 'Off', 15)
    resp = _post(redfish_emulator, system['system_id'] + RESET,
                 {'ResetType': 'On'})
    assert resp.status_code == 204
    assert _wait_power(redfish_emulator, system, 'On', 15) <= 11.5
    assert ('System "%s" power state set to "On"' % system['uuid']
            in redfish.log_text(redfish_emulator))


def test_power_delay_narrowed(redfish_emulators):
    emulator = redfish_emulators(systems=2, power_delay=(2, 2))
    system = emulator.systems[0]
    assert _power(emulator, system) == 'Off'
    resp = _post(emulator, system['system_id'] + RESET, {'ResetType': 'On'})
    assert resp.status_code == 204
    # Not at once: the state's time is int(now) + 2.
    assert _power(emulator, system) == 'Off'
    took = _wait_power(emulator, system, 'On', 5)
    assert 0.8 <= took <= 3
    # The other system did not change.
    assert _power(emulator, emulator.systems[1]) == 'Off'
    # (0, 0): the next request sees it.
    quick = redfish_emulators(systems=1, power_delay=(0, 0))
    system = quick.systems[0]
    assert _post(quick, system['system_id'] + RESET,
                 {'ResetType': 'On'}).status_code == 204
    assert _power(quick, system) == 'On'
    assert _post(quick, system['system_id'] + RESET,
                 {'ResetType': 'ForceOff'}).status_code == 204
    assert _power(quick, system) == 'Off'


def test_reset_types_and_a_change_lost_while_another_pends(
        redfish_emulators):
    """What a client of the fake driver must know: a restart shows Off at
    once; a reset to the state the system shows is ignored, even while
    another change is pending, so a power on sent during a pending power
    off is lost. A client waits for each change before the next.
    """
    emulator = redfish_emulators(systems=1, power_delay=(2, 2))
    system = emulator.systems[0]
    path = system['system_id'] + RESET
    assert _post(emulator, path, {'ResetType': 'Nmi'}).status_code == 501
    assert _post(emulator, path, {'ResetType': 'On'}).status_code == 204
    _wait_power(emulator, system, 'On', 5)
    assert _post(emulator, path,
                 {'ResetType': 'ForceRestart'}).status_code == 204
    assert _power(emulator, system) == 'Off'
    _wait_power(emulator, system, 'On', 5)
    assert _post(emulator, path, {'ResetType': 'ForceOff'}).status_code == 204
    assert _post(emulator, path, {'ResetType': 'On'}).status_code == 204
    _wait_power(emulator, system, 'Off', 5)
    time.sleep(2.5)
    assert _power(emulator, system) == 'Off'


def test_basic_auth(redfish_emulators):
    password = 'pw-%s' % os.urandom(6).hex()
    emulator = redfish_emulators(systems=1, auth=('bmc-admin', password))
    system = emulator.systems[0]['system_id']
    assert _get(emulator, system).status_code == 200
    assert _get(emulator, system,
                auth=('bmc-admin', password + 'x')).status_code == 401
    assert _get(emulator, system,
                auth=('someone', password)).status_code == 401
    assert _get(emulator, system, auth=None).status_code == 401
    assert _post(emulator, system + RESET, {'ResetType': 'On'},
                 auth=('bmc-admin', 'wrong')).status_code == 401
    # The service root answers without credentials, as on a real BMC.
    assert _get(emulator, '/redfish/v1', auth=None).status_code == 200
    # The user file holds a bcrypt digest, readable by its owner only;
    # the password is nowhere in the state directory's files.
    with open(emulator.auth_file) as f:
        line = f.read().strip()
    assert line.startswith('bmc-admin:$2b$04$')
    assert stat.S_IMODE(os.stat(emulator.auth_file).st_mode) == 0o600
    for name in os.listdir(emulator.state_dir):
        path = os.path.join(emulator.state_dir, name)
        if os.path.isfile(path) and not name.endswith('.json'):
            with open(path, 'rb') as f:
                assert password.encode() not in f.read(), name


@pytest.mark.filterwarnings(
    'ignore::urllib3.exceptions.InsecureRequestWarning')
def test_tls_with_the_throw_away_ca(redfish_emulators):
    emulator = redfish_emulators(systems=1, tls=True)
    system = emulator.systems[0]['system_id']
    assert emulator.url.startswith('https://127.0.0.1:')
    assert emulator.verify == emulator.ca_file
    assert _get(emulator, system).status_code == 200
    # The certificate names localhost too.
    resp = requests.get('https://localhost:%d%s' % (emulator.port, system),
                        verify=emulator.ca_file, timeout=10)
    assert resp.status_code == 200
    # Without the CA (the machine's bundle) the certificate is refused;
    # without verification it is served.
    with pytest.raises(requests.exceptions.SSLError):
        _get(emulator, system, verify=True)
    assert _get(emulator, system, verify=False).status_code == 200
    # No plain HTTP on its port.
    with pytest.raises(requests.exceptions.ConnectionError):
        requests.get('http://127.0.0.1:%d%s' % (emulator.port, system),
                     timeout=10)
    assert stat.S_IMODE(os.stat(emulator.key_file).st_mode) == 0o600


def test_auth_and_tls_together(redfish_emulators):
    emulator = redfish_emulators(systems=1, tls=True, auth=('u', 'p'))
    system = emulator.systems[0]['system_id']
    assert _get(emulator, system).status_code == 200
    assert _get(emulator, system, auth=('u', 'q')).status_code == 401


def _media_files(emulator):
    return sorted(name for _, _, names in os.walk(emulator.tmp_dir)
                  for name in names)


def test_virtual_media_downloads_the_image(redfish_emulators, tmp_path):
    (tmp_path / 'boot.iso').write_bytes(b'\x01' * 65536)
    images = http_servers.DirectoryServer(str(tmp_path))
    try:
        emulator = redfish_emulators(systems=1, power_delay=(0, 0))
        media = emulator.systems[0]['system_id'] + '/VirtualMedia'
        devices = [m['@odata.id'].rsplit('/', 1)[1]
                   for m in _get(emulator, media).json()['Members']]
        assert devices == ['Cd', 'Floppy']
        assert _get(emulator, media + '/Floppy').json()['MediaTypes'] == [
            'Floppy', 'USBStick']
        resp = _post(emulator, media + '/Cd/Actions/VirtualMedia.InsertMedia',
                     {'Image': images.url + '/boot.iso', 'Inserted': True})
        assert resp.status_code == 204
        cd = _get(emulator, media + '/Cd').json()
        assert (cd['Image'], cd['Inserted']) == (
            images.url + '/boot.iso', True)
        # Downloaded, whole, before the answer.
        assert _media_files(emulator) == ['boot.iso']
        # An image its server does not have: refused, nothing inserted.
        resp = _post(emulator,
                     media + '/Floppy/Actions/VirtualMedia.InsertMedia',
                     {'Image': images.url + '/missing.img'})
        assert resp.status_code == 400
        assert _get(emulator, media + '/Floppy').json()['Inserted'] is False
        resp = _post(emulator, media + '/Cd/Actions/VirtualMedia.EjectMedia',
                     {})
        assert resp.status_code == 204
        assert _get(emulator, media + '/Cd').json()['Inserted'] is False
        assert _media_files(emulator) == []
    finally:
        images.close()


def test_stop_is_clean_and_a_taken_port_refused(redfish_emulators,
                                                tmp_path):
    emulator = redfish_emulators(systems=1)
    pid = emulator.process.pid
    other = emulator_deploy.RedfishEmulator(str(tmp_path / 'other'),
                                            systems=1, port=emulator.port)
    with pytest.raises(util.ServiceError, match='port %d is taken'
                       % emulator.port):
        other.start()
    assert emulator.stop() == 0
    assert not util.pid_alive(pid)
    assert not util.port_open(util.LOCALHOST, emulator.port)
    assert not os.path.exists(emulator.pid_path)


def test_a_hundred_systems(redfish_emulators):
    start = time.monotonic()
    emulator = redfish_emulators(systems=100, power_delay=(0, 0))
    started = time.monotonic() - start
    resp = _get(emulator, '/redfish/v1/Systems')
    assert resp.json()['Members@odata.count'] == 100
    assert len({s['uuid'] for s in emulator.systems}) == 100
    assert len({s['mac'] for s in emulator.systems}) == 100
    with requests.Session() as session:
        for system in emulator.systems:
            resp = session.post(emulator.url + system['system_id'] + RESET,
                                json={'ResetType': 'On'}, timeout=30)
            assert resp.status_code == 204
        states = {session.get(emulator.url + s['system_id'],
                              timeout=10).json()['PowerState']
                  for s in emulator.systems}
    assert states == {'On'}
    assert started < 30


def test_cli_up_and_down(tmp_path):
    state = str(tmp_path / 'emulator')
    cli = [sys.executable, '-m', 'nova_mini_deploy']
    proc = subprocess.run(
        cli + ['redfish-emulator-up', '--state-dir', state, '--systems',
               '2', '--username', 'admin', '--password', 'secret',
               '--tls', '--power-delay', '0,1'],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    try:
        assert [s['name'] for s in info['systems']] == [
            'nova-mini-bmc-0', 'nova-mini-bmc-1']
        resp = requests.get(info['url'] + info['systems'][1]['system_id'],
                            auth=(info['username'], info['password']),
                            verify=info['ca_file'], timeout=10)
        assert resp.status_code == 200
        # A second "up" of the same state directory is refused.
        again = subprocess.run(
            cli + ['redfish-emulator-up', '--state-dir', state],
            capture_output=True, text=True, timeout=120)
        assert again.returncode == 1
        assert 'redfish-emulator-down first' in again.stderr
    finally:
        down = subprocess.run(
            cli + ['redfish-emulator-down', '--state-dir', state],
            capture_output=True, text=True, timeout=120)
    assert down.returncode == 0, down.stderr
    assert 'stopped' in down.stdout
    with open(info['pid_file'].replace('.pid', '.log')) as f:
        log = f.read()
    assert 'GET %s HTTP/1.1" 200' % info['systems'][1]['system_id'] in log
    port = int(info['url'].rsplit(':', 1)[1])
    assert not util.port_open(util.LOCALHOST, port)
