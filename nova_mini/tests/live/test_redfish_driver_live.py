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

"""The redfish hardware type's driver (nova_mini.drivers.redfish) against
sushy-tools' emulator (the fixtures of live/redfish.py): power with the
emulator's own delays, boot device, a ramdisk deploy whose ISO and config
drive the emulator downloads, its tear down, refused credentials, TLS
with the throw-away CA (verified, refused without it, unverified) and an
unreachable BMC.

Skipped only when the sushy-tools venv is absent (tools/run-tests.sh
builds it: nova-mini-deploy ensure-sushy-tools-venv).
"""

import os
import types

import pytest
import requests

from nova_mini.drivers.redfish import connection
from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import hardware
from nova_mini.tests.fixtures import http_servers
from nova_mini_deploy import redfish_emulator as emulator_deploy

pytestmark = [
    pytest.mark.live,
    pytest.mark.skipif(
        not os.path.exists(os.path.join(emulator_deploy.venv_dir(), 'bin',
                                        'sushy-emulator')),
        reason='no sushy-tools venv at %s' % emulator_deploy.venv_dir()),
]

HW = hardware.RedfishHardware()


@pytest.fixture
def driver_conf(conf):
    conf.config(group='redfish', connection_attempts=2,
                connection_retry_interval=1, connect_timeout=5,
                read_timeout=30)
    # The emulator's power changes take up to 11 s.
    conf.config(group='conductor', power_state_change_timeout=30)
    connection.clear_cache()
    yield conf
    connection.clear_cache()


def _node(emulator, index=0, **driver_info):
    info = {'redfish_address': emulator.url,
            'redfish_system_id': emulator.systems[index]['system_id']}
    if emulator.auth:
        info['redfish_username'], info['redfish_password'] = emulator.auth
    if emulator.tls:
        info['redfish_verify_ca'] = emulator.ca_file
    info.update(driver_info)
    return types.SimpleNamespace(
        uuid=emulator.systems[index]['uuid'], driver_info=info,
        instance_info={}, driver_internal_info={})


def _system(emulator, node, path=''):
    answer = requests.get(
        emulator.url + node.driver_info['redfish_system_id'] + path,
        auth=emulator.auth, verify=emulator.verify, timeout=30)
    answer.raise_for_status()
    return answer.json()


def test_power_and_boot_device(redfish_emulators, driver_conf):
    emulator = redfish_emulators(systems=1, power_delay=(1, 2))
    node = _node(emulator)
    assert HW.get_power_state(node) == 'power off'
    HW.set_power_state(node, 'power on')
    # Waited for: the BMC says so at once.
    assert _system(emulator, node)['PowerState'] == 'On'
    HW.set_power_state(node, 'rebooting')
    assert _system(emulator, node)['PowerState'] == 'On'
    HW.set_power_state(node, 'power off')
    assert _system(emulator, node)['PowerState'] == 'Off'
    HW.set_boot_device(node, 'pxe', persistent=True)
    assert _system(emulator, node)['Boot']['BootSourceOverrideTarget'] == (
        'Pxe')
    assert HW.get_boot_device(node)['boot_device'] == 'pxe'
    assert 'cdrom' in HW.get_supported_boot_devices(node)
    assert HW.get_sensors_data(node)['Fan']


def test_power_timeout(redfish_emulators, driver_conf):
    emulator = redfish_emulators(systems=1, power_delay=(6, 6))
    node = _node(emulator)
    with pytest.raises(errors.PowerStateFailure):
        HW.set_power_state(node, 'power on', timeout=2)


def test_deploy_and_tear_down(redfish_emulators, driver_conf, tmp_path):
    (tmp_path / 'boot.iso').write_bytes(b'\x01' * 65536)
    (tmp_path / 'configdrive.img').write_bytes(b'\x02' * 4096)
    images = http_servers.DirectoryServer(str(tmp_path))
    try:
        emulator = redfish_emulators(systems=2, power_delay=(0, 1),
                                     auth=('admin', 'l1ve-s3cret'))
        node = _node(emulator, 1)
        assert HW.deploy(node, images.url + '/boot.iso',
                         configdrive_url=images.url + '/configdrive.img'
                         ) == {'configdrive': True}
        system = _system(emulator, node)
        assert system['PowerState'] == 'On'
        assert system['Boot']['BootSourceOverrideTarget'] == 'Cd'
        media = {m['name']: m for m in HW.get_virtual_media(node)}
        assert media['Cd']['inserted'] is True
        assert media['Cd']['image'] == images.url + '/boot.iso'
        assert media['Floppy']['image'] == images.url + '/configdrive.img'
        HW.tear_down(node)
        assert _system(emulator, node)['PowerState'] == 'Off'
        assert not any(m['inserted'] for m in HW.get_virtual_media(node))
        # The other system was not touched.
        other = _node(emulator, 0)
        assert HW.get_power_state(other) == 'power off'
    finally:
        images.close()


def test_wrong_credentials(redfish_emulators, driver_conf):
    emulator = redfish_emulators(systems=1, auth=('admin', 'l1ve-s3cret'))
    with pytest.raises(errors.RedfishError):
        HW.get_power_state(_node(emulator, redfish_password='wrong'))
    assert HW.get_power_state(_node(emulator)) == 'power off'


def test_tls(redfish_emulators, driver_conf):
    emulator = redfish_emulators(systems=1, tls=True)
    assert HW.get_power_state(_node(emulator)) == 'power off'
    # The system's CAs do not know the throw-away one.
    with pytest.raises(errors.RedfishConnectionError):
        HW.get_power_state(_node(emulator, redfish_verify_ca=True))
    assert HW.get_power_state(
        _node(emulator, redfish_verify_ca='false')) == 'power off'


def test_unreachable(redfish_emulators, driver_conf):
    emulator = redfish_emulators(systems=1)
    node = _node(emulator)
    emulator.stop()
    with pytest.raises(errors.RedfishConnectionError):
        HW.get_power_state(node)
