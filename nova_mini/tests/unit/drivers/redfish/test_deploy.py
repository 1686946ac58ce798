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

"""virtual_media, deploy and RedfishHardware.validate."""

import pytest

from nova_mini.drivers.redfish import driver_info
from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import hardware
from nova_mini.drivers.redfish import power
from nova_mini.drivers.redfish import virtual_media
from nova_mini import exception_baremetal
from nova_mini.tests.unit.drivers.redfish import conftest
from nova_mini.tests.unit.drivers.redfish import fake_bmc

HW = hardware.RedfishHardware()
ISO = 'http://192.0.2.1/images/boot.iso'
CONFIGDRIVE = 'http://192.0.2.1/images/configdrive.img'


@pytest.fixture(autouse=True)
def short_power_polls(monkeypatch):
    # A deploy's power waits read the BMC 0.1 s after the action, not 1 s
    # (the pauses are test_power's).
    monkeypatch.setattr(power, 'POLL_INITIAL', 0.1)


def _steps(bmc):
    """The BMC's actions, as (what, on what, body)."""
    steps = []
    for r in bmc.actions():
        body = dict(r.body)
        if 'Boot' in body:
            body = {'Boot': {k: v for k, v in body['Boot'].items()
                             if k != 'HttpBootUri'}}
        steps.append((r.method, r.path.rsplit('/', 1)[-1]
                      if 'Actions' in r.path else r.path, body))
    return steps


def test_insert_cd(bmc, node):
    virtual_media.insert(driver_info.parse(node), ISO)
    assert [(r.path, r.body) for r in bmc.actions()] == [
        (fake_bmc.CD + '/Actions/VirtualMedia.InsertMedia',
         {'Image': ISO})]
    assert HW.get_virtual_media(node) == [
        {'name': 'Cd', 'media_types': ['CD', 'DVD'], 'inserted': True,
         'image': ISO},
        {'name': 'Floppy', 'media_types': ['Floppy', 'USBStick'],
         'inserted': False, 'image': None}]


def test_insert_ejects_first(bmc, node):
    info = driver_info.parse(node)
    virtual_media.insert(info, ISO)
    virtual_media.insert(info, ISO + '2')
    assert [r.path.rsplit('.', 1)[-1] for r in bmc.actions()] == [
        'InsertMedia', 'EjectMedia', 'InsertMedia']
    assert bmc.doc(fake_bmc.CD)['Image'] == ISO + '2'


def test_insert_usb_is_the_removable_device(bmc, node):
    virtual_media.insert(driver_info.parse(node), CONFIGDRIVE,
                         virtual_media.USB)
    assert bmc.actions()[0].path == (
        fake_bmc.FLOPPY + '/Actions/VirtualMedia.InsertMedia')


def test_eject(bmc, node):
    info = driver_info.parse(node)
    assert virtual_media.eject(info) is False
    assert bmc.actions() == []
    virtual_media.insert(info, ISO)
    virtual_media.insert(info, CONFIGDRIVE, virtual_media.USB)
    assert virtual_media.eject(info, virtual_media.CD) is True
    assert bmc.doc(fake_bmc.FLOPPY)['Inserted'] is True
    assert virtual_media.eject(info) is True
    assert [r.path for r in bmc.actions()
            if r.path.endswith('EjectMedia')] == [
        fake_bmc.CD + '/Actions/VirtualMedia.EjectMedia',
        fake_bmc.FLOPPY + '/Actions/VirtualMedia.EjectMedia']
    assert bmc.doc(fake_bmc.CD)['Inserted'] is False


def test_no_device(bmc, node):
    bmc.remove(fake_bmc.FLOPPY)
    info = driver_info.parse(node)
    assert virtual_media.has_device(info, virtual_media.USB) is False
    with pytest.raises(errors.InvalidParameterValue) as exc:
        virtual_media.insert(info, CONFIGDRIVE, virtual_media.USB)
    assert str(exc.value) == (
        'No suitable virtual media device found for node %s to mount image '
        '%s' % (node.uuid, CONFIGDRIVE))


def test_insert_refused(bmc, node):
    bmc.fail(400, method='POST', path=fake_bmc.CD)
    with pytest.raises(errors.InvalidParameterValue) as exc:
        virtual_media.insert(driver_info.parse(node), ISO)
    assert str(exc.value).startswith(
        'Virtual media mount failed for node %s with image %s. Error: '
        'Inserting virtual media into Cd failed for node %s'
        % (node.uuid, ISO, node.uuid))


def test_deploy(bmc, node):
    assert HW.deploy(node, ISO, configdrive_url=CONFIGDRIVE) == {
        'configdrive': True}
    assert _steps(bmc) == [
        ('POST', 'VirtualMedia.InsertMedia', {'Image': ISO}),
        ('POST', 'VirtualMedia.InsertMedia', {'Image': CONFIGDRIVE}),
        ('PATCH', fake_bmc.SYSTEM,
         {'Boot': {'BootSourceOverrideTarget': 'Cd'}}),
        ('POST', 'ComputerSystem.Reset', {'ResetType': 'On'})]
    assert [r.path for r in bmc.actions('POST')][:2] == [
        fake_bmc.CD + '/Actions/VirtualMedia.InsertMedia',
        fake_bmc.FLOPPY + '/Actions/VirtualMedia.InsertMedia']
    assert HW.get_power_state(node) == 'power on'
    assert HW.get_boot_device(node) == {'boot_device': 'cdrom',
                                        'persistent': True}


def _requests(bmc):
    """The node's requests (not the client's login and service root), as
    (method, path below the System or 'System').
    """
    found = []
    for r in bmc.requests:
        if not r.path.startswith(fake_bmc.SYSTEM):
            continue
        path = r.path[len(fake_bmc.SYSTEM):].lstrip('/') or 'System'
        found.append((r.method, path.rsplit('Actions/', 1)[-1]))
    return found


@pytest.fixture
def named_node(bmc):
    """A node naming its System, as enrolled nodes of a BMC with several
    do (without it, sushy lists the Systems first).
    """
    return conftest.make_node(bmc, redfish_system_id=fake_bmc.SYSTEM)


# A deploy of a node that is off, media empty: the System, the devices
# listed once, the insert, the boot device (sushy reads the System again
# for its ETag), the power on and one read of it (the emulator shows the
# change at once here). Before the deploy became one operation on the
# BMC, it read the System 9 times and the devices 4 times (26
# requests).
DEPLOY_REQUESTS = [
    ('GET', 'System'),
    ('GET', 'VirtualMedia'),
    ('GET', 'VirtualMedia/Cd'),
    ('GET', 'VirtualMedia/Floppy'),
    ('POST', 'VirtualMedia.InsertMedia'),
    ('GET', 'System'),
    ('PATCH', 'System'),
    ('POST', 'ComputerSystem.Reset'),
    ('GET', 'System'),
]


def test_deploy_requests(bmc, named_node):
    HW.deploy(named_node, ISO)
    assert _requests(bmc) == DEPLOY_REQUESTS
    assert bmc.doc(fake_bmc.SYSTEM)['PowerState'] == 'On'
    assert bmc.doc(fake_bmc.CD)['Image'] == ISO
    assert bmc.doc(fake_bmc.SYSTEM)['Boot']['BootSourceOverrideTarget'] == (
        'Cd')


def test_deploy_with_configdrive_requests(bmc, named_node):
    HW.deploy(named_node, ISO, configdrive_url=CONFIGDRIVE)
    # The USB device comes from the same listing: one more insert only.
    assert _requests(bmc) == (
        DEPLOY_REQUESTS[:5] + [('POST', 'VirtualMedia.InsertMedia')]
        + DEPLOY_REQUESTS[5:])


def test_deploy_of_a_node_on_with_media_requests(bmc, named_node):
    bmc.set_power('On')
    bmc.update(fake_bmc.CD, Image='http://old/iso', Inserted=True)
    bmc.update(fake_bmc.FLOPPY, Image='http://old/cd', Inserted=True)
    HW.deploy(named_node, ISO)
    # The power off waited for (one read), both devices ejected, and the
    # CD, ejected by this deploy, read again before the insert.
    assert _requests(bmc) == [
        ('GET', 'System'),
        ('POST', 'ComputerSystem.Reset'),
        ('GET', 'System'),
        ('GET', 'VirtualMedia'),
        ('GET', 'VirtualMedia/Cd'),
        ('GET', 'VirtualMedia/Floppy'),
        ('POST', 'VirtualMedia.EjectMedia'),
        ('POST', 'VirtualMedia.EjectMedia'),
        ('GET', 'VirtualMedia/Cd'),
        ('POST', 'VirtualMedia.InsertMedia'),
    ] + DEPLOY_REQUESTS[5:]
    assert bmc.doc(fake_bmc.FLOPPY)['Inserted'] is False


def test_tear_down_requests(bmc, named_node):
    HW.deploy(named_node, ISO)
    before = len(_requests(bmc))
    HW.tear_down(named_node)
    assert _requests(bmc)[before:] == [
        ('GET', 'System'),
        ('POST', 'ComputerSystem.Reset'),
        ('GET', 'System'),
        ('GET', 'VirtualMedia'),
        ('GET', 'VirtualMedia/Cd'),
        ('GET', 'VirtualMedia/Floppy'),
        ('POST', 'VirtualMedia.EjectMedia')]


def test_deploy_of_a_node_on_with_media(bmc, node):
    bmc.set_power('On')
    bmc.update(fake_bmc.CD, Image='http://old/iso', Inserted=True)
    bmc.update(fake_bmc.FLOPPY, Image='http://old/cd', Inserted=True)
    HW.set_boot_device(node, 'pxe')
    assert HW.deploy(node, ISO) == {'configdrive': False}
    assert _steps(bmc)[1:] == [
        ('POST', 'ComputerSystem.Reset', {'ResetType': 'ForceOff'}),
        ('POST', 'VirtualMedia.EjectMedia', {}),
        ('POST', 'VirtualMedia.EjectMedia', {}),
        ('POST', 'VirtualMedia.InsertMedia', {'Image': ISO}),
        ('PATCH', fake_bmc.SYSTEM,
         {'Boot': {'BootSourceOverrideTarget': 'Cd',
                   'BootSourceOverrideEnabled': 'Continuous'}}),
        ('POST', 'ComputerSystem.Reset', {'ResetType': 'On'})]


def test_deploy_configdrive_without_usb_device(bmc, node):
    bmc.remove(fake_bmc.FLOPPY)
    with pytest.raises(errors.InstanceDeployFailure) as exc:
        HW.deploy(node, ISO, configdrive_url=CONFIGDRIVE)
    assert str(exc.value) == (
        'Failed to deploy instance: Cannot attach configdrive for node %s: '
        'no suitable virtual USB slot has been found' % node.uuid)
    assert HW.get_power_state(node) == 'power off'


def test_deploy_power_on_timeout(bmc, node, redfish_conf):
    redfish_conf.config(group='conductor', power_state_change_timeout=2)
    bmc.power_stuck = True
    with pytest.raises(errors.PowerStateFailure):
        HW.deploy(node, ISO)


def test_tear_down(bmc, node):
    HW.deploy(node, ISO, configdrive_url=CONFIGDRIVE)
    before = len(bmc.actions())
    HW.tear_down(node)
    assert _steps(bmc)[before:] == [
        ('POST', 'ComputerSystem.Reset', {'ResetType': 'ForceOff'}),
        ('POST', 'VirtualMedia.EjectMedia', {}),
        ('POST', 'VirtualMedia.EjectMedia', {})]
    assert HW.get_power_state(node) == 'power off'
    assert not any(m['inserted'] for m in HW.get_virtual_media(node))


def test_validate(redfish_conf):
    node = conftest.make_node(redfish_address='https://bmc.example.org')
    assert HW.validate(node) == {
        'power': (True, None), 'management': (True, None),
        'boot': (True, None), 'deploy': (True, None)}


def test_validate_driver_info(redfish_conf):
    node = conftest.make_node(redfish_username='admin')
    reason = ("Missing the following Redfish properties in node %s "
              "driver_info: ['redfish_address']" % node.uuid)
    assert HW.validate(node) == {
        'power': (False, reason), 'management': (False, reason),
        'boot': (False, reason), 'deploy': (False, reason)}


@pytest.mark.parametrize('instance_info, reason', [
    ({}, "Cannot validate image information for node %s because one or "
         "more parameters are missing from its instance_info and "
         "insufficient information is present to boot from a remote "
         "volume. Missing are: ['kernel', 'ramdisk']"),
    ({'kernel': 'http://k'}, "Cannot validate image information for node "
     "%s because one or more parameters are missing from its instance_info "
     "and insufficient information is present to boot from a remote "
     "volume. Missing are: ['ramdisk']"),
    ({'boot_iso': 'http://iso', 'image_source': 'abc'},
     "An 'image_source' and 'boot_iso' parameter may not be specified at "
     "the same time."),
], ids=['nothing', 'kernel-only', 'both'])
def test_validate_instance_info(redfish_conf, instance_info, reason):
    node = conftest.make_node(redfish_address='https://bmc.example.org')
    node.instance_info = instance_info
    result = HW.validate(node)
    assert result['power'] == result['management'] == (True, None)
    assert result['boot'] == result['deploy'] == (
        False, reason.replace('%s', node.uuid))


@pytest.mark.parametrize('instance_info', [
    {'image_source': 'a8fb5fe6-8d5b-4b9e-a5a4-2c3c7d13d2e4'},
    {'kernel': 'http://k', 'ramdisk': 'http://r'},
], ids=['image-source', 'kernel-ramdisk'])
def test_validate_instance_info_ok(redfish_conf, instance_info):
    node = conftest.make_node(redfish_address='https://bmc.example.org')
    node.instance_info = instance_info
    assert HW.validate(node)['deploy'] == (True, None)


def test_validate_interface_raises_ironic_errors(redfish_conf):
    node = conftest.make_node(redfish_username='admin')
    for interface in ('power', 'management', 'boot', 'deploy'):
        with pytest.raises(exception_baremetal.MissingParameterValue) as exc:
            HW.validate_interface(node, interface)
        assert exc.value.format_message() == (
            "Missing the following Redfish properties in node %s "
            "driver_info: ['redfish_address']" % node.uuid)
    node = conftest.make_node(redfish_address='https://bmc.example.org')
    node.instance_info = {'boot_iso': 'http://iso', 'image_source': 'abc'}
    HW.validate_interface(node, 'power')
    HW.validate_interface(node, 'management')
    with pytest.raises(exception_baremetal.InvalidParameterValue) as exc:
        HW.validate_interface(node, 'deploy')
    assert type(exc.value) is exception_baremetal.InvalidParameterValue
    assert 'may not be specified at the same time' in str(exc.value)


def test_interfaces():
    assert hardware.RedfishHardware.interfaces == {
        'power': 'redfish', 'management': 'redfish',
        'boot': 'redfish-virtual-media', 'deploy': 'ramdisk'}


def test_deploy_without_iso(bmc, node):
    with pytest.raises(errors.MissingParameterValue) as exc:
        HW.deploy(node, None)
    assert str(exc.value) == 'No boot ISO to deploy node %s from' % (
        node.uuid)
    assert bmc.actions() == []
