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

"""Run the gabbi YAML files in ./gabbits, one application and one fresh
SQLite database per file (see nova_mini.tests.fixtures.gabbits)."""

import os

from gabbi import driver
# pytest collects this function; pytest_generate_tests below
# parametrizes it with one case per gabbi test.
from gabbi.driver import test_pytest  # noqa: F401

from nova_mini.tests.fixtures import gabbits

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits')


def pytest_generate_tests(metafunc):
    driver.py_test_generator(
        TESTS_DIR, intercept=gabbits.setup_app, fixture_module=gabbits,
        metafunc=metafunc, test_loader_name=__name__)
