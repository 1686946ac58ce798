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

"""Run the gabbi YAML files in ./gabbits/with-glance: as
./gabbits/with-scheduler (on each backend, a scheduler building the
servers), with a real Glance (its pipeline without authentication,
``[glance] endpoint_override``) holding the images of ``IMAGES``, whose
ids the YAML files name.
"""

import os
import shutil
import tempfile

from gabbi.driver import test_pytest  # noqa: F401
from keystoneauth1 import session as ks_session
import oslo_messaging as messaging

from nova_mini import rpc
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import gabbits
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

TESTS_DIR = os.path.join(os.path.dirname(__file__), 'gabbits',
                         'with-glance')

# name: properties (with the id the YAML files use).
IMAGES = {
    'plain': {'id': 'a1a1a1a1-0000-4000-8000-000000000001',
              'os_distro': 'cirros', 'my_own_property': 'kept raw'},
    'bad-policy': {'id': 'a1a1a1a1-0000-4000-8000-000000000002',
                   'hw_cpu_policy': 'pinned'},
    'dedicated': {'id': 'a1a1a1a1-0000-4000-8000-000000000003',
                  'hw_cpu_policy': 'dedicated'},
    'raid': {'id': 'a1a1a1a1-0000-4000-8000-000000000004',
             'trait:CUSTOM_RAID': 'required'},
    'bad-arch': {'id': 'a1a1a1a1-0000-4000-8000-000000000005',
                 'architecture': 'pdp11'},
    'secure': {'id': 'a1a1a1a1-0000-4000-8000-000000000006',
               'os_secure_boot': 'disabled'},
}


class GlanceSchedulerAPIFixture(gabbits.APIFixture):
    """nova-mini-api with noauth2 on a fresh database of ``backend``, a
    scheduler consuming its builds, and a Glance with ``IMAGES``.
    """

    def start_fixture(self):
        self.state_dir = tempfile.mkdtemp(prefix='gabbi-glance-')
        self.glance = glance_harness.Glance(self.state_dir,
                                            util.free_port()).setup()
        self.glance.start()
        self.server = None
        try:
            session = ks_session.Session(timeout=60)
            for name, properties in IMAGES.items():
                self.glance.ensure_image(session, name, properties,
                                         visibility='shared')
            self.fixture = api_fixture.APIFixture(
                backend=self.backend, conf_overrides={
                    'glance.endpoint_override': self.glance.url})
            self.fixture.setUp()
            self.server = rpc.get_server(
                self.fixture.conf,
                messaging.Target(topic=rpcapi.TOPIC, server='gabbi'),
                [manager.SchedulerManager('gabbi', self.fixture.conf)])
            self.server.start()
        except Exception:
            self._stop()
            raise
        gabbits._current['app'] = self.fixture.app

    def _stop(self):
        try:
            if self.server is not None:
                self.server.stop()
                self.server.wait()
            if getattr(self, 'fixture', None) is not None:
                self.fixture.cleanUp()
        finally:
            self.glance.stop()
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def stop_fixture(self):
        gabbits._current['app'] = None
        self._stop()


def pytest_generate_tests(metafunc):
    gabbits.generate_tests(metafunc, TESTS_DIR, [GlanceSchedulerAPIFixture])
