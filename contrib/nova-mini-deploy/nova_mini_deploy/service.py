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

"""A WSGI service of its own venv served by gunicorn (Keystone, Glance):
started in the background, found again from its pid file, stopped.
"""

import os

from nova_mini_deploy import util

# gunicorn's default access log line, then the worker's pid and the
# request's duration in seconds (``%(L)s``): a request that stalled a
# worker (a sync worker serves one at a time) shows in the kept logs of a
# failed run, with the worker it held.
DEFAULT_ACCESS_LOG_FORMAT = ('%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s '
                             '"%(f)s" "%(a)s"')
ACCESS_LOG_FORMAT = DEFAULT_ACCESS_LOG_FORMAT + ' pid=%(p)s %(L)ss'


class GunicornService(object):
    """One gunicorn master of a state directory, and its workers.

    A subclass gives ``name`` (of the log and pid files), ``title`` (for
    messages), ``wsgi_app`` (gunicorn's APP_MODULE), ``answers()`` (whether
    it serves) and ``_env()`` (its environment).

    :param state_dir: the service's files: ``<name>.log``, ``<name>.pid``.
    :param venv: the venv whose gunicorn runs it.
    """

    name = None
    title = None
    wsgi_app = None

    def __init__(self, state_dir, port, venv, host=util.LOCALHOST,
                 workers=2):
        self.state_dir = os.path.abspath(state_dir)
        self.port = port
        self.host = host
        self.venv = venv
        self.workers = workers
        self.log_path = os.path.join(self.state_dir, self.name + '.log')
        self.pid_path = os.path.join(self.state_dir, self.name + '.pid')
        self.process = None

    @property
    def url(self):
        return 'http://%s:%d' % (self.host, self.port)

    @property
    def proc_name(self):
        """gunicorn's ``--name``, which adopting looks for."""
        return self.name + '-nova-mini'

    def answers(self):
        raise NotImplementedError()

    def _env(self):
        raise NotImplementedError()

    def adopt(self):
        """The process a previous ``up`` left running, if it still does."""
        self.process = util.Process.adopt(self.name, self.pid_path,
                                          self.log_path,
                                          expect=self.proc_name)
        return self.process

    def command(self):
        """gunicorn's command line (its logs go to stdout: the log file)."""
        return [os.path.join(self.venv, 'bin', 'gunicorn'),
                '--chdir', self.state_dir,
                '--bind', '%s:%d' % (self.host, self.port),
                '--workers', str(self.workers),
                '--timeout', '120', '--graceful-timeout', '10',
                '--name', self.proc_name,
                '--error-logfile', '-',
                '--access-logfile', '-',
                '--access-logformat', ACCESS_LOG_FORMAT,
                self.wsgi_app]

    def start(self, timeout=120):
        """Start gunicorn and wait (bounded) until the service answers."""
        if util.port_open(self.host, self.port):
            raise util.ServiceError('port %d is taken: cannot start %s'
                                    % (self.port, self.title))
        self.process = util.Process(
            self.name, self.command(), self.log_path,
            pid_path=self.pid_path, env=self._env(),
            cwd=self.state_dir).start()
        util.wait_until(self.answers, timeout,
                        '%s on %s' % (self.title, self.url),
                        interval=0.5, abort=self._died)
        return self

    def _died(self):
        if self.process and not self.process.running:
            return 'gunicorn exited (%s)%s' % (
                self.process.returncode, util._log_hint(self.log_path))
        return None

    def stop(self, timeout=30):
        if self.process:
            self.process.stop(timeout)
            self.process = None
