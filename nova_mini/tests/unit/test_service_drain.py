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

"""SIGTERM to the embedded WSGI server under load: requests in flight get
their whole answer, new connections are refused at once (never accepted
and left unanswered), and the daemon exits 0 once the requests are done
(nova_mini.service.ThreadWorker).
"""

import concurrent.futures
import http.client
import os
import signal
import sys
import tempfile
import textwrap
import time

from nova_mini.tests.fixtures import processes
from nova_mini_deploy import util as deploy_util

_DAEMON = textwrap.dedent('''
    import sys
    import time

    from nova_mini import service


    def app(environ, start_response):
        if environ['PATH_INFO'] == '/slow':
            # Tells the test that this request is in flight.
            with open(sys.argv[3], 'a') as started:
                print('started', file=started)
            # The slow request itself: the work SIGTERM lets finish.
            time.sleep(float(sys.argv[2]))
            body = b'slow done ' + b'x' * 65536
        else:
            body = b'ok'
        start_response('200 OK', [('Content-Type', 'text/plain'),
                                  ('Content-Length', str(len(body)))])
        return [body]


    service.WSGIServer('drain-test', lambda: app, host='127.0.0.1',
                       port=int(sys.argv[1]), workers=2, threads=8,
                       graceful_timeout=30).run()
''')

SLOW = 6.0


def _get(port, path):
    """``(status, body)``, or the name of the error met."""
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
    try:
        conn.request('GET', path, headers={'Connection': 'close'})
        response = conn.getresponse()
        return response.status, response.read()
    except ConnectionRefusedError:
        return 'refused'
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def _wait_ready(port, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.output()
        if _get(port, '/') == (200, b'ok'):
            return
        time.sleep(0.1)
    raise AssertionError('the server did not answer')


def _wait_for_lines(path, count, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while len(path.read_text().splitlines()) < count:
        assert proc.poll() is None, proc.output()
        assert time.monotonic() < deadline, path.read_text()
        time.sleep(0.02)


def test_sigterm_finishes_requests_in_flight_and_refuses_new_ones(
        tmp_path):
    script = tmp_path / 'daemon.py'
    script.write_text(_DAEMON)
    started = tmp_path / 'started'
    started.touch()
    port = deploy_util.free_port()
    with processes.Daemon(
            [sys.executable, str(script), str(port), str(SLOW),
             str(started)], capture=True,
            env={k: v for k, v in os.environ.items()
                 if k != 'NOTIFY_SOCKET'},
            cwd=tempfile.gettempdir()) as proc:
        _wait_ready(port, proc)
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            slow = [pool.submit(_get, port, '/slow') for _i in range(4)]
            # SIGTERM once the four are in the application.
            _wait_for_lines(started, 4, proc)
            proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            # New connections while the slow ones finish.
            probes = []
            while time.monotonic() < signalled + SLOW:
                probes.append((time.monotonic() - signalled,
                               _get(port, '/')))
                time.sleep(0.02)
            answers = [f.result() for f in slow]
        code = proc.wait(timeout=60)
        elapsed = time.monotonic() - signalled
    assert code == 0, proc.output()
    assert answers == [(200, b'slow done ' + b'x' * 65536)] * 4
    # Each new client is served in full or refused; once the workers have
    # seen the signal (within a second), refused.
    assert [p for p in probes if p[1] not in ('refused', (200, b'ok'))
            ] == []
    # Refused while the slow requests were still running: the workers
    # closed their listening sockets as soon as they saw the signal (a
    # worker may take a second or two on a loaded machine).
    assert any(outcome == 'refused' for t, outcome in probes
               if t < SLOW - 2), probes
    # The daemon left once the requests in flight were done, well before
    # graceful_timeout (30 s).
    assert elapsed < SLOW + 10
