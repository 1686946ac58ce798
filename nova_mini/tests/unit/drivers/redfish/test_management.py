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

"""management: boot device, sensors and indicators."""

import pytest

from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import hardware
from nova_mini.tests.unit.drivers.redfish import fake_bmc

HW = hardware.RedfishHardware()


def _patches(bmc):
    """The PATCH bodies, without the HttpBootUri sushy clears.

    (The recorded system has one.)
    """
    patches = [r.body for r in bmc.actions('PATCH')]
    for body in patches:
        body.get('Boot', {}).pop('HttpBootUri', None)
    return patches


def test_get_boot_device(bmc, node):
    # As recorded: BootSourceOverrideTarget Hdd, Enabled Continuous.
    assert HW.get_boot_device(node) == {'boot_device': 'disk',
                                        'persistent': True}


def test_supported_boot_devices_are_the_bmcs(bmc, node):
    # The recorded system allows Pxe, Cd, Hdd and UefiHttp (no BiosSetup).
    assert HW.get_supported_boot_devices(node) == [
        'pxe', 'disk', 'cdrom', 'uefihttp']


def test_supported_boot_devices_when_not_listed(bmc, node):
    boot = bmc.doc(fake_bmc.SYSTEM)['Boot']
    del boot['BootSourceOverrideTarget@Redfish.AllowableValues']
    bmc.update(fake_bmc.SYSTEM, Boot=boot)
    assert HW.get_supported_boot_devices(node) == [
        'pxe', 'disk', 'cdrom', 'bios', 'uefihttp']


def test_set_boot_device_once(bmc, node):
    HW.set_boot_device(node, 'pxe')
    assert _patches(bmc) == [{'Boot': {
        'BootSourceOverrideTarget': 'Pxe',
        'BootSourceOverrideEnabled': 'Once'}}]
    assert HW.get_boot_device(node) == {'boot_device': 'pxe',
                                        'persistent': False}


def test_set_boot_device_persistent(bmc, node):
    HW.set_boot_device(node, 'pxe')
    HW.set_boot_device(node, 'cdrom', persistent=True)
    assert _patches(bmc)[1] == {'Boot': {
        'BootSourceOverrideTarget': 'Cd',
        'BootSourceOverrideEnabled': 'Continuous'}}
    assert HW.get_boot_device(node) == {'boot_device': 'cdrom',
                                        'persistent': True}


def test_persistence_not_sent_when_unchanged(bmc, node):
    # Already Continuous: only the target is sent (as Ironic does).
    HW.set_boot_device(node, 'cdrom', persistent=True)
    assert _patches(bmc) == [{'Boot': {'BootSourceOverrideTarget': 'Cd'}}]


def test_invalid_boot_device(bmc, node):
    with pytest.raises(errors.InvalidBootDevice) as exc:
        HW.set_boot_device(node, 'bios')
    assert str(exc.value) == (
        'Invalid boot device bios specified. The node supports: pxe, disk, '
        'cdrom, uefihttp.')
    assert bmc.actions() == []


def test_persistent_refused_falls_back_to_once_and_is_restored(bmc, node):
    HW.set_boot_device(node, 'pxe')
    bmc.refuse_continuous = True
    HW.set_boot_device(node, 'cdrom', persistent=True)
    assert _patches(bmc)[1:] == [
        {'Boot': {'BootSourceOverrideTarget': 'Cd',
                  'BootSourceOverrideEnabled': 'Continuous'}},
        {'Boot': {'BootSourceOverrideTarget': 'Cd',
                  'BootSourceOverrideEnabled': 'Once'}}]
    assert node.driver_internal_info == {'redfish_boot_device': 'cdrom'}
    # The BMC forgets a one-time device once used; power on sets it again.
    bmc.update(fake_bmc.SYSTEM, Boot={'BootSourceOverrideTarget': 'Hdd',
                                      'BootSourceOverrideEnabled': 'Once'})
    HW.set_power_state(node, 'power on')
    actions = bmc.actions()
    assert [(a.method, a.body) for a in actions[-2:]] == [
        ('PATCH', {'Boot': {'BootSourceOverrideTarget': 'Cd'}}),
        ('POST', {'ResetType': 'On'})]
    # Setting a boot device again forgets it.
    bmc.refuse_continuous = False
    HW.set_boot_device(node, 'pxe', persistent=True)
    assert node.driver_internal_info == {}


def test_set_boot_device_refused(bmc, node):
    bmc.fail(400, method='PATCH')
    with pytest.raises(errors.RedfishError) as exc:
        HW.set_boot_device(node, 'pxe')
    assert str(exc.value).startswith(
        'Redfish exception occurred. Error: Redfish set boot device failed '
        'for node %s. Error: ' % node.uuid)


def test_sensors(bmc, node):
    sensors = HW.get_sensors_data(node)
    chassis = '15693887-7984-9484-3272-842188918912'
    assert sensors['Extra'] == {
        'Manufacturer': 'Sushy Emulator', 'Model': None,
        'UUID': '4d3c1e1e-5f0b-4a8b-9a30-1f0d5b6c7a01'}
    assert sorted(sensors['Fan']) == ['0@' + chassis, '1@' + chassis]
    assert sensors['Fan']['0@' + chassis] == {
        'identity': '0', 'max_reading_range': 5000, 'min_reading_range': 0,
        'reading': 2100, 'reading_units': 'RPM',
        'physical_context': 'Backplane', 'state': 'Enabled', 'health': 'OK'}
    assert sensors['Temperature']['0@' + chassis] == {
        'identity': '0', 'max_reading_range_temp': 60,
        'min_reading_range_temp': 0, 'reading_celsius': 41,
        'physical_context': 'CPU', 'sensor_number': 0, 'state': 'Enabled',
        'health': 'OK'}
    # The emulator's chassis has no Power, its system no SimpleStorage.
    assert sensors['Power'] == {} and sensors['Drive'] == {}


def test_indicators(bmc, node):
    system = '4d3c1e1e-5f0b-4a8b-9a30-1f0d5b6c7a01'
    chassis = '15693887-7984-9484-3272-842188918912'
    led = {'readonly': False, 'states': ['BLINKING', 'OFF', 'ON']}
    assert HW.get_supported_indicators(node) == {
        'system': {system: led}, 'chassis': {chassis: led}}
    assert HW.get_supported_indicators(node, 'chassis') == {
        'chassis': {chassis: led}}
    assert HW.get_indicator_state(node, 'system', system) == 'ON'
    HW.set_indicator_state(node, 'system', system, 'BLINKING')
    assert bmc.actions()[-1].body == {'IndicatorLED': 'Blinking'}
    assert HW.get_indicator_state(node, 'system', system) == 'BLINKING'
    with pytest.raises(errors.InvalidParameterValue):
        HW.set_indicator_state(node, 'system', system, 'UNKNOWN')
    with pytest.raises(errors.MissingParameterValue) as exc:
        HW.get_indicator_state(node, 'disk', system)
    assert exc.value.format_message() == (
        'Unknown indicator %s for component disk of node %s' % (
            system, node.uuid))
    with pytest.raises(errors.MissingParameterValue):
        HW.set_indicator_state(node, 'chassis', system, 'OFF')
