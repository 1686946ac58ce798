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

"""Fixtures of the config drive's tests: the metadata service's (its
application, CONF and stored instances), which the drive is compared
with.
"""

from nova_mini.tests.fixtures.metadata_service import app  # noqa: F401
from nova_mini.tests.fixtures.metadata_service import conf  # noqa: F401
from nova_mini.tests.fixtures.metadata_service import make_app  # noqa: F401
from nova_mini.tests.fixtures.metadata_service import make_instance  # noqa: F401
