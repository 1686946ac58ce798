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

"""Run the gabbi YAML files in ./gabbits/with-scheduler: as ./gabbits (on
each backend), but a real scheduler RPC server (oslo.messaging's in-memory
driver) builds the servers, so they reach ACTIVE (writes of a server's
metadata need it).
"""

import os

# pytest collects this function; pytest_generate_tests below
# parametrizes it with one case per gabbi test and backend.
from gabbi.driver import test_pytest  # noqa: F401
import oslo_messaging as messaging

from nova_mini import rpc
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import gabbits

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits',
                         'with-scheduler')


class SchedulerAPIFixture(gabbits.APIFixture):
    """nova-mini-api with noauth2 on a fresh database of ``backend``, and a
    scheduler consuming its builds.
    """

    def start_fixture(self):
        self.fixture = api_fixture.APIFixture(backend=self.backend)
        self.fixture.setUp()
        conf = self.fixture.conf
        self.server = rpc.get_server(
            conf, messaging.Target(topic=rpcapi.TOPIC, server='gabbi'),
            [manager.SchedulerManager('gabbi', conf)])
        self.server.start()
        gabbits._current['app'] = self.fixture.app

    def stop_fixture(self):
        gabbits._current['app'] = None
        try:
            self.server.stop()
            self.server.wait()
        finally:
            self.fixture.cleanUp()


def pytest_generate_tests(metafunc):
    gabbits.generate_tests(metafunc, TESTS_DIR, [SchedulerAPIFixture])
