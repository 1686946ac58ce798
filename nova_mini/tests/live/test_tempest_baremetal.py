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

"""ironic-tempest-plugin's own admin API tests of nodes, chassis and
ports against the live stack's /baremetal (through Keystone and the
catalog), with the fake-hardware type nova_mini drives.

Tempest and the plugin run from a virtualenv of their own (tempest_run.py
says where; ``tools/run-tests.sh`` installs ironic-tempest-plugin 3.2.0
into it; without the plugin the test is skipped, or fails where
NOVA_MINI_TEMPEST_VENV names the virtualenv). The run's per-module
outcome is printed (``pytest -s``) and a failure shows the tracebacks.

The plugin's classes above the API's newest version skip themselves
(their ``min_microversion``); the VIF tests skip without Neutron and
``TestResetInterfaces`` without the ipmi hardware type; ALLOWED_SKIPS
names each with Tempest's reason, and any other skip fails, as does any
failure, a run with fewer than MUST_PASS tests passed or one Tempest
did not finish (tempest_run's ``Result.check``).

The tests need the credentials of an admin and a system admin only:
pre-provisioned (tempest_run's ``Tempest.admin_accounts``), not made and
deleted for each class by Tempest's dynamic credentials, which took 17
Keystone requests a class and more than half of the run's time.
"""

import os

import pytest

from nova_mini.api.baremetal import versions
from nova_mini.tests.live import tempest_run

# A Tempest run takes 150-270 s on CI's two cores, and its test with the
# stack's start about 700 s on a machine loaded 9 deep: a time limit above
# setup.cfg's default (300 s) for each test.
pytestmark = [pytest.mark.live, pytest.mark.timeout(1200)]

MODULES = ('test_nodes', 'test_chassis', 'test_ports', 'test_drivers',
           'test_allocations', 'test_deploy_templates', 'test_conductor',
           'test_volume_connector', 'test_volume_target',
           'test_microversion_enforcement')
TESTS = (r'^ironic_tempest_plugin\.tests\.api\.admin\.(%s)\.'
         % '|'.join(MODULES))

# The tests of MODULES (ironic-tempest-plugin 3.2.0: 293) but those of
# the ALLOWED_SKIPS classes (43), as ``tempest run --list-tests`` lists
# them.
MUST_PASS = 250

# One Tempest worker: two (stestr splitting the classes) were slower on
# CI's two cores, which the stack and the other pytest worker load
# already (341 s against 249 s, one stack, the runs back to back).
CONCURRENCY = 1


def _newer(version, last='latest'):
    """Tempest's skip reason of a class above the API's newest version
    (the class's versions: ``version`` to ``last``).
    """
    return 'The microversion range[%s - %s]' % (version, last)


# Skips that are the plugin's own answer to what nova_mini is: the class
# (tempest_run.names) -> what Tempest's skip reason says.
ALLOWED_SKIPS = {
    # Above 1.65, the API's newest version.
    'TestNodesWithJsonExtSupport': _newer('1.90', '1.90'),
    'TestNodesWithoutJsonExtSupport': _newer('1.91'),
    'TestNodeGraphicalConsole': _newer('1.96'),
    'TestAllocationsWithJsonExtSupport': _newer('1.90', '1.90'),
    'TestAllocationsWithoutJsonExtSupport': _newer('1.91'),
    'TestDeployTemplatesWithJsonExtSupport': _newer('1.90', '1.90'),
    'TestDeployTemplatesWithoutJsonExtSupport': _newer('1.91'),
    # test_microversion_enforcement's classes of versions above 1.65.
    'TestNodeHistoryMicroversions': _newer('1.78'),
    'TestNodeInventoryMicroversions': _newer('1.81'),
    'TestShardMicroversions': _newer('1.82'),
    'TestNodeFirmwarenMicroversions': _newer('1.86'),
    'TestNodeVMediaMicroversions': _newer('1.89'),
    'TestRunbookMicroversions': _newer('1.92'),
    # Needs the ipmi hardware type enabled; nova_mini drives fake only.
    'TestResetInterfaces': 'These tests rely on ipmi enabled',
    # VIFs are Neutron ports: no networking service here.
    'TestNodesVif': 'Neutron is not enabled',
}


def _plugin_installed():
    lib = os.path.join(tempest_run.VENV, 'lib')
    if not os.path.isdir(lib):
        return False
    return any(os.path.isdir(os.path.join(lib, name, 'site-packages',
                                          'ironic_tempest_plugin'))
               for name in os.listdir(lib))


def sections(stack):
    """tempest.conf's bare-metal part for the stack."""
    region = stack.credentials('admin')['OS_REGION_NAME']
    api = versions.BAREMETAL_API
    return {
        'baremetal': {
            'driver': 'fake-hardware',
            'enabled_hardware_types': 'fake-hardware',
            'enabled_boot_interfaces': 'fake',
            'enabled_deploy_interfaces': 'fake',
            'enabled_management_interfaces': 'fake',
            'enabled_power_interfaces': 'fake',
            'enabled_console_interfaces': 'fake,no-console',
            'enabled_inspect_interfaces': 'fake,no-inspect',
            'enabled_raid_interfaces': 'fake,no-raid',
            'enabled_rescue_interfaces': 'fake,no-rescue',
            'enabled_bios_interfaces': 'fake,no-bios',
            'min_microversion': str(api.min_version),
            'max_microversion': str(api.max_version),
            'endpoint_type': 'public',
            'power_timeout': '10',
            'unprovision_timeout': '10',
            'active_timeout': '10',
        },
        'enforce_scope': {'ironic': 'False'},
        'identity': {'region': region},
    }


def test_ironic_tempest_plugin_nodes_chassis_ports(stack, tmp_path):
    tempest = tempest_run.Tempest(stack, tmp_path)
    if not _plugin_installed():
        message = 'ironic-tempest-plugin is not in %s' % tempest_run.VENV
        if 'NOVA_MINI_TEMPEST_VENV' in os.environ:
            pytest.fail(message)
        pytest.skip(message)
    conf = sections(stack)
    conf.update(tempest.admin_accounts())
    result = tempest.run(TESTS, sections=conf, concurrency=CONCURRENCY)
    print('\n' + result.summary())
    result.check(MUST_PASS, ALLOWED_SKIPS)
