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

"""power: Reset actions and the wait for the BMC's power state."""

import itertools
import time

import pytest

from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import hardware
from nova_mini.drivers.redfish import power
from nova_mini.tests.unit.drivers.redfish import conftest
from nova_mini.tests.unit.drivers.redfish import fake_bmc

HW = hardware.RedfishHardware()


def _resets(bmc):
    return [r.body['ResetType'] for r in bmc.actions('POST')
            if r.path.endswith('/Actions/ComputerSystem.Reset')]


def test_get_power_state(bmc, node):
    assert HW.get_power_state(node) == 'power off'
    bmc.set_power('On')
    assert HW.get_power_state(node) == 'power on'
    bmc.set_power('PoweringOff')
    assert HW.get_power_state(node) == 'power off'


def test_power_on_waits_for_the_bmc(bmc, node):
    bmc.power_delay = 1.5
    start = time.monotonic()
    HW.set_power_state(node, 'power on')
    assert time.monotonic() - start >= 1.5
    assert _resets(bmc) == ['On']
    assert bmc.doc(fake_bmc.SYSTEM)['PowerState'] == 'On'


def test_power_on_of_a_node_on_sends_nothing(bmc, node):
    bmc.set_power('On')
    HW.set_power_state(node, 'power on')
    assert bmc.actions() == []


def test_power_off(bmc, node):
    bmc.set_power('On')
    HW.set_power_state(node, 'power off')
    assert _resets(bmc) == ['ForceOff']
    assert HW.get_power_state(node) == 'power off'


def test_timeout(bmc, node):
    bmc.power_stuck = True
    start = time.monotonic()
    with pytest.raises(errors.PowerStateFailure) as exc:
        HW.set_power_state(node, 'power on', timeout=2)
    assert 2 <= time.monotonic() - start < 4
    assert str(exc.value) == 'Failed to set node power state to power on.'


def test_timeout_from_conf(bmc, node, redfish_conf, caplog):
    redfish_conf.config(group='conductor', power_state_change_timeout=2)
    bmc.power_stuck = True
    start = time.monotonic()
    with pytest.raises(errors.PowerStateFailure):
        HW.set_power_state(node, 'power on')
    assert 2 <= time.monotonic() - start < 4
    assert ('Timed out after 2 secs waiting for power on on node %s.'
            % node.uuid) in caplog.text


def test_soft_power_off_uses_its_timeout(bmc, node, redfish_conf):
    redfish_conf.config(group='conductor', soft_power_off_timeout=2,
                        power_state_change_timeout=30)
    bmc.set_power('On')
    bmc.power_stuck = True
    start = time.monotonic()
    with pytest.raises(errors.PowerStateFailure) as exc:
        HW.set_power_state(node, 'soft power off')
    assert time.monotonic() - start < 4
    assert str(exc.value) == 'Failed to set node power state to power off.'
    assert _resets(bmc) == ['GracefulShutdown']


def test_soft_power_off_and_soft_reboot(bmc, node):
    bmc.set_power('On')
    HW.set_power_state(node, 'soft power off')
    assert HW.get_power_state(node) == 'power off'
    HW.set_power_state(node, 'soft rebooting')
    assert _resets(bmc) == ['GracefulShutdown', 'GracefulRestart']
    assert HW.get_power_state(node) == 'power on'


def test_reboot_of_a_node_on_is_off_then_on(bmc, node):
    bmc.set_power('On')
    bmc.power_delay = 1
    HW.set_power_state(node, 'rebooting')
    assert _resets(bmc) == ['ForceOff', 'On']
    assert HW.get_power_state(node) == 'power on'


def test_reboot_of_a_node_off_is_on(bmc, node):
    HW.set_power_state(node, 'rebooting')
    assert _resets(bmc) == ['On']


def test_refused_but_already_there(bmc, node):
    # A soft power off of a node already off: the BMC answers 409, the
    # node is where the action leads.
    bmc.reset_status = 409
    HW.set_power_state(node, 'soft power off')
    assert _resets(bmc) == ['GracefulShutdown']


def test_refused(bmc, node):
    bmc.reset_status = 400
    with pytest.raises(errors.RedfishError) as exc:
        HW.set_power_state(node, 'power on')
    assert str(exc.value).startswith(
        'Redfish exception occurred. Error: Setting power state to power on '
        'failed for node %s. Error: ' % node.uuid)


def test_reboot_refused(bmc, node):
    bmc.set_power('On')
    bmc.reset_status = 400
    with pytest.raises(errors.RedfishError) as exc:
        HW.set_power_state(node, 'rebooting')
    assert ('Reboot failed for node %s when setting power state to power '
            'off. Error: ' % node.uuid) in str(exc.value)


def test_unsupported_state(bmc, node):
    with pytest.raises(errors.InvalidParameterValue) as exc:
        HW.set_power_state(node, 'power cycle')
    assert 'The requested power state power cycle is not supported' in str(
        exc.value)
    assert bmc.actions() == []


def test_supported_power_states():
    assert set(HW.supported_power_states) == {
        'power on', 'power off', 'rebooting', 'soft rebooting',
        'soft power off'}


def test_poll_pauses_are_capped():
    # The wait reads the BMC 1 s after the action, then at pauses growing
    # to at most 2 s: it ends at most 2 s after the BMC changed (the
    # pauses used to grow to 3.4 then 5 s).
    pauses = list(itertools.islice(power.poll_pauses(), 12))
    assert pauses[:3] == [1.0, 1.5, 2.0]
    assert max(pauses) == power.POLL_MAX == 2.0
    assert pauses == sorted(pauses)
    # At the default power_state_change_timeout (60 s) that is at most
    # 31 reads of the BMC.
    times = list(itertools.accumulate(itertools.islice(
        power.poll_pauses(), 40)))
    assert sum(1 for t in times if t <= 60) == 30


def _system_reads(bmc):
    return sum(1 for r in bmc.requests
               if r.method == 'GET' and r.path == fake_bmc.SYSTEM)


def test_power_on_reads_the_system_once_before_the_reset(bmc):
    node = conftest.make_node(bmc, redfish_system_id=fake_bmc.SYSTEM)
    HW.set_power_state(node, 'power on')
    # Whether it is on already, then after the Reset until it is on (the
    # BMC shows it at once: one read).
    assert _system_reads(bmc) == 2
    assert _resets(bmc) == ['On']


def test_wait_polls_until_the_timeout(bmc):
    node = conftest.make_node(bmc, redfish_system_id=fake_bmc.SYSTEM)
    # The timeout is kept: the last pause is cut to it, and the BMC is
    # read once more at its end (wide bounds: a busy machine).
    bmc.power_stuck = True
    start = time.monotonic()
    with pytest.raises(errors.PowerStateFailure):
        HW.set_power_state(node, 'power on', timeout=3)
    assert 3 <= time.monotonic() - start < 6
    # 1 read before the reset, then at 1, 2.5 and 3 s at most.
    assert 2 <= _system_reads(bmc) <= 4
