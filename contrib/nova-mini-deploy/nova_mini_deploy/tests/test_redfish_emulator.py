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

"""The Redfish emulator's set-up without running it: the fake systems'
names, UUIDs and MACs, the throw-away CA and its server certificate, and
the config file sushy-emulator reads. Running it: the live tests
(nova_mini/tests/live/test_redfish_emulator.py).
"""

import ipaddress
import os
import stat

from cryptography import x509
from cryptography.x509 import verification
import pytest

from nova_mini_deploy import redfish_emulator


def test_fake_systems_are_the_same_on_every_run():
    systems = redfish_emulator.fake_systems(100)
    assert systems == redfish_emulator.fake_systems(100)
    assert systems[:2] == redfish_emulator.fake_systems(2)
    assert systems[0] == {
        'name': 'nova-mini-bmc-0',
        'uuid': 'c8eee8d7-f9fa-5146-8bb2-8ba0ecc1a725',
        'system_id': '/redfish/v1/Systems/'
                     'c8eee8d7-f9fa-5146-8bb2-8ba0ecc1a725',
        'mac': '52:54:00:1f:aa:1f'}
    for key in ('name', 'uuid', 'system_id', 'mac'):
        assert len({s[key] for s in systems}) == 100, key
    other = redfish_emulator.fake_systems(1, prefix='rack2')[0]
    assert other['name'] == 'rack2-0'
    assert other['uuid'] != systems[0]['uuid']


def _load(path):
    with open(path, 'rb') as f:
        return x509.load_pem_x509_certificate(f.read())


def test_the_server_certificate_verifies_against_the_ca_only(tmp_path):
    ca, cert, key = redfish_emulator.make_certificates(str(tmp_path))
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    server = _load(cert)
    store = verification.Store([_load(ca)])
    for subject in (x509.DNSName('localhost'),
                    x509.IPAddress(ipaddress.ip_address('127.0.0.1'))):
        verifier = verification.PolicyBuilder().store(
            store).build_server_verifier(subject)
        chain = verifier.verify(server, [])
        assert chain[0] == server
    with pytest.raises(verification.VerificationError):
        verification.PolicyBuilder().store(store).build_server_verifier(
            x509.DNSName('example.com')).verify(server, [])
    # Another run's CA does not sign it.
    (tmp_path / 'other').mkdir()
    other_ca = redfish_emulator.make_certificates(
        str(tmp_path / 'other'))[0]
    with pytest.raises(verification.VerificationError):
        verification.PolicyBuilder().store(
            verification.Store([_load(other_ca)])).build_server_verifier(
            x509.DNSName('localhost')).verify(server, [])


def _config(path):
    values = {}
    with open(path) as f:
        exec(f.read(), {}, values)
    return values


def test_the_config_file(tmp_path):
    emulator = redfish_emulator.RedfishEmulator(
        str(tmp_path), systems=3, port=8123, tls=True)
    emulator.setup()
    config = _config(emulator.conf_path)
    assert config['SUSHY_EMULATOR_FAKE_DRIVER'] is True
    assert config['SUSHY_EMULATOR_LISTEN_IP'] == '127.0.0.1'
    assert config['SUSHY_EMULATOR_LISTEN_PORT'] == 8123
    assert config['SUSHY_EMULATOR_STATE_DIR'] == emulator.store_dir
    assert config['SUSHY_EMULATOR_SSL_CERT'] == emulator.cert_file
    assert config['SUSHY_EMULATOR_SSL_KEY'] == emulator.key_file
    assert 'SUSHY_EMULATOR_AUTH_FILE' not in config
    assert [(s['uuid'], s['name'], s['power_state'], s['nics'])
            for s in config['SUSHY_EMULATOR_FAKE_SYSTEMS']] == [
        (s['uuid'], s['name'], 'Off', [{'mac': s['mac']}])
        for s in emulator.systems]
    assert emulator.url == 'https://127.0.0.1:8123'
    assert emulator.verify == os.path.join(str(tmp_path), 'ca.pem')


@pytest.mark.parametrize('delay', [(-1, 2), (3, 2)],
                         ids=['negative', 'reversed'])
def test_power_delay_is_checked(tmp_path, delay):
    with pytest.raises(ValueError):
        redfish_emulator.RedfishEmulator(str(tmp_path), power_delay=delay)
