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

"""The embedded WSGI server's limits on the request line and headers, on a
real server: a header up to ``[wsgi] max_header_line`` (Nova's 16384 by
default) is read, a longer one or a megabyte is a 431 before any of our
code runs; a request line up to 8190 bytes is read, a longer one a 414.
"""

import os
import socket
import sys
import tempfile
import textwrap
import time

import pytest

from nova_mini.tests.fixtures import processes
from nova_mini_deploy import util as deploy_util

_DAEMON = textwrap.dedent('''
    import sys

    from nova_mini import service


    def app(environ, start_response):
        body = str(len(environ.get('HTTP_X_AUTH_TOKEN', ''))).encode()
        start_response('200 OK', [('Content-Type', 'text/plain'),
                                  ('Content-Length', str(len(body)))])
        return [body]


    kwargs = {}
    if len(sys.argv) > 2:
        kwargs['max_header_line'] = int(sys.argv[2])
    service.WSGIServer('limits-test', lambda: app, host='127.0.0.1',
                       port=int(sys.argv[1]), workers=1, threads=2,
                       graceful_timeout=1, **kwargs).run()
''')


def _status(port, path='/', token=''):
    """The status of a GET with ``token`` as X-Auth-Token (0: the server
    closed the connection without one).
    """
    request = ('GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n'
               'X-Auth-Token: %s\r\n\r\n' % (path, token)).encode()
    with socket.create_connection(('127.0.0.1', port), timeout=30) as sock:
        try:
            sock.sendall(request)
        except OSError:
            pass    # answered and closed before the whole request was read
        answer = b''
        try:
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except OSError:
            pass
    if not answer.startswith(b'HTTP/1.1 '):
        return 0
    return int(answer.split(b' ', 2)[1])


@pytest.fixture
def server(tmp_path):
    """Start the daemon (its argv); the port it listens on."""
    procs = []

    def start(*args):
        script = tmp_path / 'daemon.py'
        script.write_text(_DAEMON)
        port = deploy_util.free_port()
        proc = processes.Daemon(
            [sys.executable, str(script), str(port)] + [str(a) for a in args],
            capture=True, env={k: v for k, v in os.environ.items()
                               if k != 'NOTIFY_SOCKET'},
            cwd=tempfile.gettempdir())
        procs.append(proc)
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.output()
            try:
                if _status(port) == 200:
                    return port
            except OSError:
                pass
            assert time.monotonic() < deadline, 'the server did not answer'
            time.sleep(0.1)

    yield start
    for proc in procs:
        proc.close()


def test_header_and_request_line_limits(server):
    port = server()
    # A long token (Nova's default max_header_line), not a megabyte.
    assert _status(port, token='t' * 16000) == 200
    assert _status(port, token='t' * 16500) == 431
    assert _status(port, token='t' * (1 << 20)) == 431
    # Long query strings (lists of traits), up to gunicorn's most.
    assert _status(port, path='/?' + 'q' * 8000) == 200
    assert _status(port, path='/?' + 'q' * 9000) == 414


def test_max_header_line_is_configurable(server):
    port = server(32768)
    assert _status(port, token='t' * 32000) == 200
    assert _status(port, token='t' * 33000) == 431
