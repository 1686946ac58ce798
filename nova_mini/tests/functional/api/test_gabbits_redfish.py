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

"""Run the gabbi YAML files in ./gabbits/redfish on each backend: the
bare-metal API of redfish nodes where no conductor is needed (the
drivers, their properties, node create and patch refused without a
conductor, driver_info masking). ``RedfishAPIFixture`` registers a
nova-mini-conductor host for redfish in the registry, as a conductor
does when it starts, without serving RPC (test_redfish_nodes.py runs
one).
"""

import os

from gabbi.driver import test_pytest  # noqa: F401

from nova_mini.conductor import hash_ring
from nova_mini import context as nm_context
from nova_mini.objects.baremetal import conductor
from nova_mini.tests.fixtures import gabbits

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits', 'redfish')
CONDUCTOR_HOST = 'redfish-conductor-1'


class RedfishAPIFixture(gabbits.APIFixture):
    """nova-mini-api (for fake-hardware) and a nova-mini-conductor
    registered for redfish.
    """

    def start_fixture(self):
        super().start_fixture()
        conductor.register_host(nm_context.get_admin_context(),
                                CONDUCTOR_HOST, ['redfish'])
        hash_ring.reset()


def pytest_generate_tests(metafunc):
    gabbits.generate_tests(metafunc, TESTS_DIR,
                           [gabbits.APIFixture, RedfishAPIFixture])
