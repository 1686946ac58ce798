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

"""The daemons as a service manager sees them: READY=1 and STOPPING=1 on
a real notify socket, a clean exit on SIGTERM (after the requests in
flight), and one clear line, exit status 1, when they cannot start.
"""

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import uuid

import pytest
import requests

from nova_mini.tests.fixtures import processes
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

START_TIMEOUT = 60


@pytest.fixture
def notify_socket():
    """A bound AF_UNIX datagram socket; yields (socket, NOTIFY_SOCKET)."""
    # AF_UNIX paths must be short: not under pytest's long tmp_path.
    directory = tempfile.mkdtemp(prefix='nm-notify-')
    path = os.path.join(directory, 'notify')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(START_TIMEOUT)
    yield sock, path
    sock.close()
    shutil.rmtree(directory)


@pytest.fixture
def abstract_notify_socket():
    """The same on an abstract socket address (NOTIFY_SOCKET=@name)."""
    name = 'nova-mini-test-%s' % uuid.uuid4().hex
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind('\0' + name)
    sock.settimeout(START_TIMEOUT)
    yield sock, '@' + name
    sock.close()


def _start(stack, script_name, notify_address, sections):
    """Start ``script_name`` with the stack's config plus ``sections``: a
    processes.Daemon in a session of its own (its workers are killed with
    it).
    """
    extra = stack.nova.write_extra_config(
        'extra-%s' % uuid.uuid4().hex[:6], sections)
    log = open(os.path.join(stack.nova.log_dir, 'extra-%s.log'
                            % script_name), 'ab')
    proc = processes.Daemon(
        [nova.script(script_name), '--config-file', stack.nova.conf_path,
         '--config-file', extra], stop_timeout=START_TIMEOUT,
        kill_group=True, stdin=subprocess.DEVNULL, stdout=log,
        stderr=subprocess.STDOUT,
        env=util.clean_env(NOTIFY_SOCKET=notify_address),
        start_new_session=True)
    log.close()
    return proc


def _receive_until(sock, wanted):
    """Datagram lines up to the one equal to ``wanted`` (gunicorn, when it
    sees NOTIFY_SOCKET, adds STATUS=... lines of its own).
    """
    lines = []
    deadline = time.monotonic() + START_TIMEOUT
    while wanted not in lines:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            lines += sock.recv(4096).decode().splitlines()
        except socket.timeout:
            pytest.fail('no %s within %ss; got %s'
                        % (wanted, START_TIMEOUT, lines))
    return lines


@contextlib.contextmanager
def _extra_daemon_config(stack, script_name):
    """(config sections, URL answering once ready or None) of an extra
    ``script_name``.
    """
    port = util.free_port()
    if script_name == nova.API:
        yield ({'api': {'bind_port': port, 'workers': 1}},
               'http://127.0.0.1:%d/compute/' % port)
    elif script_name == nova.METADATA:
        yield ({'metadata': {'bind_port': port, 'workers': 1}},
               'http://127.0.0.1:%d/openstack' % port)
    else:
        # NOTE: a virtual host of its own, so that it takes none of the
        # stack's RPC: every scheduler of a virtual host consumes the one
        # "scheduler" queue, whatever its exchange.
        name = 'nova_mini_notify_%s' % uuid.uuid4().hex[:8]
        with stack.rabbit.virtual_hosts(name) as urls:
            yield ({'DEFAULT': {'transport_url': urls[0],
                                'host': 'notify-test'}}, None)


def _check_ready_and_stopping(stack, script_name, sock, address):
    with _extra_daemon_config(stack, script_name) as (sections, url):
        with _start(stack, script_name, address, sections) as proc:
            assert 'READY=1' in _receive_until(sock, 'READY=1')
            if url:
                util.wait_until(lambda: nova.http_status(url) == 200, 30,
                                'GET %s' % url)
            proc.send_signal(signal.SIGTERM)
            assert 'STOPPING=1' in _receive_until(sock, 'STOPPING=1')
            assert proc.wait(START_TIMEOUT) == 0


@pytest.mark.parametrize('script_name', nova.DAEMONS)
def test_notify_ready_and_stopping(stack, notify_socket, script_name):
    _check_ready_and_stopping(stack, script_name, *notify_socket)


def test_notify_abstract_socket(stack, abstract_notify_socket):
    _check_ready_and_stopping(stack, nova.SCHEDULER, *abstract_notify_socket)


def test_stack_daemons_sent_ready(stack):
    """Each daemon of the stack told the harness's socket it was ready."""
    for name in nova.DAEMONS:
        proc = stack.nova.processes[name]
        assert 'READY=1' in proc.notify.drain(), name


def test_sigterm_lets_request_in_flight_finish(stack, extra_api,
                                               admin_token):
    """SIGTERM while a POST body is still arriving: the request completes
    (200, flavor created), then the server exits 0.
    """
    proc, port = extra_api(workers=1)
    name = 'inflight-%s' % uuid.uuid4().hex[:8]
    body = json.dumps({'flavor': {'name': name, 'ram': 128, 'vcpus': 1,
                                  'disk': 0}}).encode()
    head = ('POST /compute/v2.1/flavors HTTP/1.1\r\n'
            'Host: 127.0.0.1:%d\r\n'
            'X-Auth-Token: %s\r\n'
            'Content-Type: application/json\r\n'
            'Content-Length: %d\r\n'
            'Connection: close\r\n\r\n' % (port, admin_token, len(body)))
    half = len(body) // 2
    with socket.create_connection(('127.0.0.1', port), timeout=60) as conn:
        conn.sendall(head.encode() + body[:half])
        # A worker thread has read the headers and half the body: it now
        # waits for the rest.
        helpers.wait_requests_read(port, [conn.getsockname()[1]])
        proc.send_signal(signal.SIGTERM)
        # The signal is handled once the master and the worker have
        # closed the listening socket; the request is still in flight.
        util.wait_until(lambda: not helpers.listening(port), 30,
                        'the API closing port %d after SIGTERM' % port)
        assert proc.running, 'exited with a request in flight'
        conn.sendall(body[half:])
        response = b''
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            response += chunk
    status_line, _, rest = response.partition(b'\r\n')
    assert status_line == b'HTTP/1.1 200 OK', response
    created = json.loads(rest.partition(b'\r\n\r\n')[2])['flavor']
    assert created['name'] == name
    assert proc.wait(60) == 0
    assert not util.port_open('127.0.0.1', port)

    # It was really stored: the stack's API serves it.
    resp = requests.get('%s/flavors/%s' % (stack.nova.compute_url,
                                           created['id']),
                        headers={'X-Auth-Token': admin_token}, timeout=30)
    assert resp.status_code == 200
    requests.delete('%s/flavors/%s' % (stack.nova.compute_url,
                                       created['id']),
                    headers={'X-Auth-Token': admin_token}, timeout=30)


BAD_VALUE = ({'api': {'bind_port': 'notaport'}},
             ['configuration error', 'bind_port', 'notaport'])
NO_DATABASE = ({'database': {
    'connection': 'postgresql://nobody@127.0.0.1:1/x'}},
    [' ERROR ', 'postgresql://nobody@127.0.0.1:1/x', 'is not usable'])
NO_DATABASE_SERVER = ({'database': {
    'connection': 'postgresql+psycopg2://nobody@127.0.0.1:1/x'}},
    [' ERROR ', 'port 1 failed: Connection refused'])
NO_BROKER = ({'DEFAULT': {
    'transport_url': 'rabbit://guest:guest@127.0.0.1:1/'}},
    [' ERROR ', 'rabbit://guest@127.0.0.1:1/', 'Connection refused'])

CASES = [(daemon, case) for daemon in nova.DAEMONS
         for case in ('bad_value', 'no_database', 'no_database_server')]
CASES.append((nova.SCHEDULER, 'no_broker'))


@pytest.mark.parametrize('script_name, case', CASES)
def test_startup_failure_is_one_line(stack, script_name, case):
    sections, expected = {'bad_value': BAD_VALUE,
                          'no_database': NO_DATABASE,
                          'no_database_server': NO_DATABASE_SERVER,
                          'no_broker': NO_BROKER}[case]
    bad = stack.nova.write_extra_config('bad-%s' % case, sections)
    proc = subprocess.run(
        [nova.script(script_name), '--config-file', stack.nova.conf_path,
         '--config-file', bad],
        capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL, env=util.clean_env())
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert 'Traceback' not in output
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1, output
    for text in expected:
        assert text in lines[0]
    assert 'guest:guest' not in lines[0]    # no password in the log
