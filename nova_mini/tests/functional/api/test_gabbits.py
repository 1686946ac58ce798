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

"""Run the gabbi YAML files in ./gabbits on SQLite, PostgreSQL and
MariaDB, one application and one fresh database per file and backend (see
nova_mini.tests.fixtures.gabbits)."""

import os

# pytest collects this function; pytest_generate_tests below
# parametrizes it with one case per gabbi test and backend.
from gabbi.driver import test_pytest  # noqa: F401

from nova_mini.tests.fixtures import gabbits

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def pytest_generate_tests(metafunc):
    gabbits.generate_tests(metafunc, TESTS_DIR, [gabbits.APIFixture])
