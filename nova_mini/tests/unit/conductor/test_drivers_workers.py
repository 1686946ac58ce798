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

"""The conductor's hardware look-up and its bounded worker pool."""

import collections
import threading

import pytest

from nova_mini.conductor import drivers
from nova_mini.conductor import manager
from nova_mini.conductor import workers
from nova_mini import exception
from nova_mini import exception_baremetal

Node = collections.namedtuple('Node', 'uuid driver')


def test_the_types_a_conductor_drives():
    assert drivers.REAL_HARDWARE_TYPES == ('redfish',)
    assert drivers.enabled(['fake-hardware', 'redfish', 'ipmi']) == [
        'redfish']
    assert drivers.enabled(['fake-hardware']) == []


def test_a_type_no_conductor_drives():
    with pytest.raises(exception.Invalid,
                       match='Hardware type fake-hardware is not driven by '
                             'nova-mini-conductor'):
        drivers.hardware_for(Node('n', 'fake-hardware'))


def test_one_hardware_object_per_type(monkeypatch):
    made = []

    class Hardware(object):
        def __init__(self):
            made.append(self)

    monkeypatch.setitem(drivers.HARDWARE, 'test-hw',
                        '%s.Hardware' % __name__)
    monkeypatch.setitem(globals(), 'Hardware', Hardware)
    monkeypatch.setattr(drivers, '_LOADED', {})
    first = drivers.hardware_for(Node('a', 'test-hw'))
    assert drivers.hardware_for(Node('b', 'test-hw')) is first
    assert made == [first]


def test_the_pool_is_bounded_and_drains():
    pool = workers.WorkerPool(3, 'c-1')
    gate = threading.Event()
    done = []
    slots = [pool.slot() for _ in range(3)]
    with pytest.raises(exception_baremetal.NoFreeConductorWorker):
        pool.slot()
    # A slot given back (its request failed) is free again.
    slots.pop().cancel()
    slots.append(pool.slot())
    for index, slot in enumerate(slots):
        pool.run(slot, lambda i=index: (gate.wait(10), done.append(i)))
    assert not pool.wait(0.2)
    assert pool.in_progress == 3
    gate.set()
    assert pool.wait(10)
    assert sorted(done) == [0, 1, 2]
    # A failing operation frees its slot too.
    for _ in range(3):
        pool.run(pool.slot(), lambda: 1 / 0)
    assert pool.wait(10)
    assert len([pool.slot() for _ in range(3)]) == 3
    pool.stop()
    with pytest.raises(exception_baremetal.ConductorShuttingDown):
        pool.slot()
    pool.shutdown()


def test_driver_errors_cross_rpc_as_nova_mini_ones():
    class DriverError(exception_baremetal.InvalidBootDevice):
        pass

    class Unrelated(Exception):
        pass

    own = DriverError('no floppy')
    portable = manager.portable(own)
    assert type(portable) is exception_baremetal.InvalidBootDevice
    assert portable.format_message() == 'no floppy'
    known = exception_baremetal.NodeLocked(node='n', host='h')
    assert manager.portable(known) is known
    other = Unrelated('x')
    assert manager.portable(other) is other


def test_the_redfish_hardware_is_loaded_on_first_use(monkeypatch):
    monkeypatch.setattr(drivers, '_LOADED', {})
    hardware = drivers.hardware_for(Node('n', 'redfish'))
    from nova_mini.drivers.redfish import hardware as redfish_hardware
    assert isinstance(hardware, redfish_hardware.RedfishHardware)
    for method in ('validate', 'get_power_state', 'set_power_state',
                   'get_boot_device', 'set_boot_device',
                   'get_supported_boot_devices', 'deploy', 'tear_down',
                   'get_sensors_data'):
        assert callable(getattr(hardware, method))
