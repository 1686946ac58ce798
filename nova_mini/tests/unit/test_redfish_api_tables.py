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

"""What the bare-metal API says of the redfish hardware type agrees with
the driver and the conductor: its interfaces, the hardware types a
conductor drives, the driver_info keys the driver reads (the drivers'
properties) and its secrets (masked).
"""

from nova_mini.api.baremetal import drivers as drivers_api
from nova_mini.api import secrets
from nova_mini.conductor import drivers as conductor_drivers
from nova_mini.drivers.redfish import driver_info
from nova_mini.drivers.redfish import hardware
from nova_mini.objects.baremetal import node_interfaces


def test_redfish_has_every_interface_type():
    redfish = node_interfaces.HARDWARE_TYPES['redfish']
    assert tuple(sorted(redfish)) == node_interfaces.TYPES


def test_the_defaults_are_what_the_driver_implements():
    redfish = node_interfaces.HARDWARE_TYPES['redfish']
    for kind, impl in hardware.INTERFACES.items():
        assert redfish[kind] == (impl,), kind
    assert set(hardware.INTERFACES) == set(
        node_interfaces.CONDUCTOR_INTERFACES)
    # The others do nothing: no-... or noop.
    for kind, impls in redfish.items():
        if kind not in hardware.INTERFACES:
            assert impls[0] in ('no-%s' % kind, 'noop'), kind


def test_the_conductor_drives_the_conductor_hardware_types():
    assert tuple(sorted(node_interfaces.CONDUCTOR_HARDWARE_TYPES)) == \
        conductor_drivers.REAL_HARDWARE_TYPES
    assert node_interfaces.conductor_driven('redfish')
    assert not node_interfaces.conductor_driven('fake-hardware')


def test_the_properties_are_the_keys_the_driver_reads():
    properties = drivers_api._PROPERTIES['redfish']
    assert set(properties) == set(driver_info.REQUIRED_PROPERTIES +
                                  driver_info.OPTIONAL_PROPERTIES)
    for key, text in properties.items():
        suffix = ('Required.' if key in driver_info.REQUIRED_PROPERTIES
                  else 'Optional.')
        assert text.endswith(suffix), key


def test_the_drivers_secrets_are_masked():
    assert set(driver_info.SECRET_KEYS) <= set(secrets.DRIVER_SECRETS)
