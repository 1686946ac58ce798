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

"""The web server of the virtual media images for the live tests
(nova_mini_deploy.images_server: gunicorn serving a directory with
nova_mini.wsgi.httpboot). A test module imports the fixture:

- ``images_server``: one server for the session over a temporary
  http_root, stopped at the session's end (which fails unless it exits 0
  on SIGTERM). Its ``url`` is the ``[deploy] http_url`` and its
  ``http_root`` the ``[deploy] http_root`` of a conductor of the tests.
"""

import pytest

from nova_mini.tests.live import helpers
from nova_mini_deploy import images_server as server_deploy


@pytest.fixture(scope='session')
def images_server(tmp_path_factory):
    state_dir = tmp_path_factory.mktemp('images-server')
    server = server_deploy.ImagesServer(str(state_dir),
                                        str(state_dir / 'httpboot'))
    helpers.start_or_fail(server, 'the images web server')
    yield server
    code = server.stop()
    if code != 0:
        pytest.fail('the images web server exited %s on SIGTERM (log %s)'
                    % (code, server.log_path), pytrace=False)
