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

"""Fixtures of the console script tests."""

import pytest

from nova_mini.tests.fixtures import console_scripts

# The [metadata] lines of the tests' config: a shared secret.
METADATA = '[metadata]\nmetadata_proxy_shared_secret = s3cret\n'


@pytest.fixture
def synced(tmp_path):
    """console_scripts.synced_database in the test's own directory, with
    a metadata shared secret; yields the config file.
    """
    with console_scripts.synced_database(tmp_path, METADATA) as config_file:
        yield config_file
