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

"""A SIGTERM sent while a gunicorn worker is still booting stops the
daemon at once, with exit status 0 (nova_mini.service._Arbiter).
"""

import os
import signal
import socket
import sys
import tempfile
import textwrap
import time

from nova_mini.tests.fixtures import processes
from nova_mini_deploy import util as deploy_util

# A WSGIServer whose worker lingers between fork and the installation of
# its own signal handlers (gunicorn's post_fork hook runs there), which
# widens the window in which a stop signal used to be lost.
_DAEMON = textwrap.dedent('''
    import os
    import signal
    import sys
    import time

    from nova_mini import service


    def app(environ, start_response):
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']


    def post_fork(arbiter, worker):
        # Says the worker is there (its pid), then lingers until the stop
        # signal has come (pending, as the worker blocks it until its own
        # handlers are in place), or for 20 s if it never shows.
        with open(sys.argv[3] + '.tmp', 'w') as marker:
            marker.write(str(os.getpid()))
        os.rename(sys.argv[3] + '.tmp', sys.argv[3])
        deadline = time.monotonic() + 20
        while (signal.SIGTERM not in signal.sigpending()
               and time.monotonic() < deadline):
            time.sleep(0.01)


    class SlowBootServer(service.WSGIServer):
        def load_config(self):
            self.settings['post_fork'] = post_fork
            super().load_config()


    SlowBootServer('stop-test', lambda: app, host='127.0.0.1',
                   port=int(sys.argv[1]), workers=1, threads=1,
                   graceful_timeout=int(sys.argv[2])).run()
''')

GRACEFUL_TIMEOUT = 30


def _wait_for(path, proc, timeout=60):
    """The text of ``path`` once it exists (the daemon must live on)."""
    deadline = time.monotonic() + timeout
    while not os.path.exists(path):
        assert proc.poll() is None, proc.output()
        assert time.monotonic() < deadline, 'no worker started'
        time.sleep(0.02)
    with open(path) as marker:
        return marker.read()


def _gone(pid, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_sigterm_while_a_worker_boots_stops_the_daemon_at_once(tmp_path):
    script = tmp_path / 'daemon.py'
    script.write_text(_DAEMON)
    marker = str(tmp_path / 'worker-pid')
    notify_dir = tempfile.mkdtemp(prefix='nm-')      # short AF_UNIX path
    notify_path = os.path.join(notify_dir, 'notify')
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    listener.bind(notify_path)
    listener.settimeout(60)
    proc = processes.Daemon(
        [sys.executable, str(script), str(deploy_util.free_port()),
         str(GRACEFUL_TIMEOUT), marker], capture=True,
        env=dict(os.environ, NOTIFY_SOCKET=notify_path))
    try:
        # READY=1 comes before the worker is forked: the SIGTERM lands
        # while the worker sleeps in post_fork.
        assert listener.recv(1024).startswith(b'READY=1')
        # The worker is in post_fork (it waits there for the signal).
        worker = int(_wait_for(marker, proc))
        started = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=GRACEFUL_TIMEOUT + 30)
        elapsed = time.monotonic() - started
    finally:
        proc.close()
        listener.close()
        os.unlink(notify_path)
        os.rmdir(notify_dir)
    assert code == 0, proc.output()
    # Without the fix the worker served on until the master killed it
    # after graceful_timeout.
    assert elapsed < GRACEFUL_TIMEOUT / 2, elapsed
    # The worker stopped with it.
    assert _gone(worker)
