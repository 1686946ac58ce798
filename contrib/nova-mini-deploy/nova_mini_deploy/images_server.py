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

"""The web server of the virtual media images (``[deploy] http_root``)
for the quick start and the tests: gunicorn, from nova_mini's own venv,
serving ``nova_mini.wsgi.httpboot:application`` (WebOb's static files:
byte ranges, no listing). Nothing to install beyond nova_mini; a
production conductor host may use nginx or Apache instead
(doc/source/admin/virtual-media-images.rst).
"""

import os
import urllib.error
import urllib.request

from nova_mini_deploy import nova
from nova_mini_deploy import util

NAME = 'nova-mini-images'
WSGI_APP = 'nova_mini.wsgi.httpboot:application'


class ImagesServer(object):
    """gunicorn serving ``http_root`` on ``host:port``.

    :param state_dir: its config, log and pid files.
    :param http_root: the directory served (the conductor's
        ``[deploy] http_root``); made if missing.
    :param port: default a free one.
    """

    def __init__(self, state_dir, http_root, port=None,
                 host=util.LOCALHOST, workers=2):
        self.state_dir = os.path.abspath(state_dir)
        self.http_root = os.path.abspath(http_root)
        self.host = host
        self.port = port or util.free_port()
        self.workers = workers
        self.conf_path = os.path.join(self.state_dir, NAME + '.conf')
        self.log_path = os.path.join(self.state_dir, NAME + '.log')
        self.pid_path = os.path.join(self.state_dir, NAME + '.pid')
        self.process = None

    @property
    def url(self):
        """What ``[deploy] http_url`` is for the BMCs of this machine."""
        return 'http://%s:%d' % (self.host, self.port)

    def answers(self):
        # An existing file is not needed: the root answers 404.
        try:
            with urllib.request.urlopen(self.url + '/', timeout=5):
                return True
        except urllib.error.HTTPError as exc:
            return exc.code == 404
        except (urllib.error.URLError, OSError):
            return False

    def start(self, timeout=60):
        if util.port_open(self.host, self.port):
            raise util.ServiceError('port %d is taken: cannot start %s'
                                    % (self.port, NAME))
        os.makedirs(self.state_dir, exist_ok=True)
        os.makedirs(self.http_root, mode=0o755, exist_ok=True)
        nova.write_ini(self.conf_path,
                       {'deploy': {'http_root': self.http_root}})
        env = dict(os.environ, NOVA_MINI_CONFIG_FILE=self.conf_path)
        self.process = util.Process(
            NAME,
            [nova.script('gunicorn'),
             '--bind', '%s:%d' % (self.host, self.port),
             '--workers', str(self.workers),
             '--name', NAME,
             '--access-logfile', '-',
             WSGI_APP],
            self.log_path, pid_path=self.pid_path, env=env)
        self.process.start()
        try:
            util.wait_until(self.answers, timeout, '%s to answer' % NAME,
                            interval=0.2, abort=self.process._exited)
        except util.ServiceError:
            self.process.stop(10)
            raise
        return self

    def adopt(self):
        self.process = util.Process.adopt(NAME, self.pid_path,
                                          self.log_path, expect=NAME)
        return self.process

    def detach(self):
        """Leave it running after this process (the CLI's
        ``images-server-up``); ``adopt`` finds it again.
        """
        if self.process:
            self.process.release()

    def stop(self, timeout=30):
        """Stop it; its exit status (None if adopted or not running)."""
        if self.process is None:
            return None
        code = self.process.stop(timeout)
        self.process = None
        return code
