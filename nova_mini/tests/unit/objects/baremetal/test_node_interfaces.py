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

"""``[DEFAULT] enabled_<type>_interfaces`` and ``default_<type>_interface``
as Ironic's driver factory reads them: a node's default is the first
implementation its hardware type supports that is enabled, unless the
default option names one; an implementation not enabled is refused.
"""

import pytest

from nova_mini.conf import default as default_conf
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_interfaces

UUID = '1be26c0b-03f2-4d2e-ae87-c02d7f33c123'


def test_defaults_enable_every_implementation(conf):
    # Today's nodes are unchanged: everything nova_mini has is enabled.
    assert {kind: tuple(sorted(impls)) for kind, impls in
            default_conf.DEFAULT_ENABLED_INTERFACES.items()} == \
        node_interfaces.KNOWN
    for driver, interfaces in node_interfaces.HARDWARE_TYPES.items():
        resolved = node_interfaces.resolve(driver, {})
        assert resolved == {'%s_interface' % kind: impls[0]
                            for kind, impls in interfaces.items()}
    node_interfaces.check_config(sorted(node_interfaces.HARDWARE_TYPES))


def test_first_enabled_supported_is_the_default(conf):
    # fake-hardware prefers "fake" for console; with it disabled the next
    # one it supports is its default.
    conf.config(enabled_console_interfaces=['no-console'])
    assert node_interfaces.default('fake-hardware', 'console') == \
        'no-console'
    assert node_interfaces.enabled_supported('fake-hardware', 'console') \
        == ['no-console']
    assert node_interfaces.resolve('fake-hardware', {})[
        'console_interface'] == 'no-console'


def test_default_option_wins(conf):
    conf.config(default_raid_interface='no-raid')
    assert node_interfaces.default('fake-hardware', 'raid') == 'no-raid'
    # redfish has no-raid only: the same.
    assert node_interfaces.default('redfish', 'raid') == 'no-raid'


def test_default_option_not_supported_by_the_hardware_type(conf):
    conf.config(default_boot_interface='fake')
    with pytest.raises(
            exception_baremetal.NoValidDefaultForInterface) as info:
        node_interfaces.resolve('redfish', {}, node=UUID)
    assert info.value.format_message() == (
        "For node %s with hardware type 'redfish', no default value found "
        "for boot interface could be determined. Please ensure the "
        "interfaces are enabled." % UUID)
    # A node naming its boot interface does not need the default.
    assert node_interfaces.resolve(
        'redfish', {'boot_interface': 'redfish-virtual-media'})[
            'boot_interface'] == 'redfish-virtual-media'


def test_default_option_not_enabled(conf):
    conf.config(default_deploy_interface='fake',
                enabled_deploy_interfaces=['ramdisk'])
    with pytest.raises(
            exception_baremetal.InterfaceNotFoundInEntrypoint) as info:
        node_interfaces.default('fake-hardware', 'deploy')
    assert info.value.format_message() == (
        "Could not find the following interface in the "
        "'ironic.hardware.interfaces.deploy' entrypoint: fake. Valid "
        "interfaces are ['ramdisk'].")


def test_nothing_enabled_for_the_hardware_type(conf):
    conf.config(enabled_power_interfaces=['fake'])
    with pytest.raises(exception_baremetal.NoValidDefaultForInterface):
        node_interfaces.resolve('redfish', {})
    assert node_interfaces.enabled_supported('redfish', 'power') == []
    # fake-hardware is still fine: a conductor of redfish would not start.
    node_interfaces.check_config(['fake-hardware'])
    with pytest.raises(exception.Invalid, match="hardware type 'redfish'"):
        node_interfaces.check_config(['redfish'])


def test_asking_for_a_disabled_implementation(conf):
    conf.config(enabled_power_interfaces=['fake'])
    with pytest.raises(
            exception_baremetal.InterfaceNotFoundInEntrypoint) as info:
        node_interfaces.check_interface('redfish', 'power', 'redfish')
    assert "entrypoint: redfish. Valid interfaces are ['fake']." in \
        info.value.format_message()
    # Enabled but of another hardware type: incompatible, as before.
    with pytest.raises(exception_baremetal.IncompatibleInterface):
        node_interfaces.check_interface('redfish', 'power', 'fake')


def test_unknown_implementation_refused_at_conductor_start(conf):
    conf.config(enabled_deploy_interfaces=['ramdisk', 'direct', ''])
    assert node_interfaces.enabled('deploy') == ['ramdisk', 'direct']
    with pytest.raises(exception.Invalid) as info:
        node_interfaces.check_config(['redfish'])
    assert info.value.format_message() == (
        '[DEFAULT] enabled_deploy_interfaces names implementations '
        'nova_mini does not have: direct (it has: fake, ramdisk).')
    # A node asking for it is told redfish does not support it.
    with pytest.raises(exception_baremetal.IncompatibleInterface):
        node_interfaces.check_interface('redfish', 'deploy', 'direct')
