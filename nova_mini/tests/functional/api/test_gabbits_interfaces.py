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

"""Run the gabbi YAML files in ./gabbits/interfaces on SQLite (what they
test is configuration, not the database): the nodes and drivers of a
service whose ``[DEFAULT] enabled_<type>_interfaces`` and
``default_<type>_interface`` differ from the defaults, with a
nova-mini-conductor registered for redfish (serving no RPC).
"""

import os

from gabbi.driver import test_pytest  # noqa: F401

from nova_mini.conductor import hash_ring
from nova_mini import context as nm_context
from nova_mini.objects.baremetal import conductor
from nova_mini.tests.fixtures import gabbits

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits', 'interfaces')

# fake-hardware's "fake" console and vendor disabled (its next ones are
# its defaults), redfish's power disabled (no redfish node can be made),
# and fake-hardware's raid default set to no-raid.
OVERRIDES = {
    'enabled_console_interfaces': ['no-console'],
    'enabled_vendor_interfaces': ['no-vendor'],
    'enabled_power_interfaces': ['fake'],
    'default_raid_interface': 'no-raid',
}


class InterfacesAPIFixture(gabbits.APIFixture):
    """nova-mini-api with OVERRIDES, and a conductor registered for
    redfish.
    """

    conf_overrides = OVERRIDES

    def start_fixture(self):
        super().start_fixture()
        conductor.register_host(nm_context.get_admin_context(),
                                'redfish-conductor-1', ['redfish'])
        hash_ring.reset()


def pytest_generate_tests(metafunc):
    gabbits.generate_tests(metafunc, TESTS_DIR, [InterfacesAPIFixture],
                           backends=('sqlite',))
