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

"""nova-mini-api's master process keeps its host in the conductors
registry (nova_mini.cmd.api.APIServer): registered once it listens,
refreshed every heartbeat interval, offline once it stopped on SIGTERM.
The server runs in a child process with a stand-in WSGI app, on the
module's database. Under uwsgi or mod_wsgi, each process building
nova_mini.wsgi.api's application registers and refreshes its host.
"""

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time

import sqlalchemy as sa

from nova_mini.db import models

_SERVER = textwrap.dedent('''
    import sys

    from nova_mini.cmd import api
    from nova_mini import conf


    def app(environ, start_response):
        start_response('200 OK', [('Content-Type', 'text/plain')])
        return [b'ok']


    conf.CONF([], project='nova_mini')
    conf.CONF.set_override('connection', sys.argv[1], group='database')
    conf.CONF.set_override('host', 'api-under-test')
    conf.CONF.set_override('heartbeat_interval', 1, group='conductor')
    api.APIServer('conductor-test', lambda: app, host='127.0.0.1',
                  port=int(sys.argv[2]), workers=1, threads=1,
                  graceful_timeout=5).run()
''')


def _free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def _row(engine):
    with engine.connect() as connection:
        return connection.execute(sa.select(
            models.Conductor.__table__).where(
                models.Conductor.hostname == 'api-under-test')).first()


def _wait_for(predicate, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError('not in %d seconds' % timeout)


def test_the_service_registers_refreshes_and_goes_offline(db, tmp_path):
    script = tmp_path / 'server.py'
    script.write_text(_SERVER)
    proc = subprocess.Popen(
        [sys.executable, str(script), db.url, str(_free_port())],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        env=dict(os.environ))
    try:
        first = _wait_for(lambda: _row(db.engine))
        assert first.online
        assert first.drivers == ['fake-hardware']
        assert first.conductor_group == ''
        # The heartbeat thread refreshes it every second.
        _wait_for(lambda: _row(db.engine).updated_at > first.updated_at,
                  timeout=10)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 0, proc.stderr.read().decode()
    last = _row(db.engine)
    assert not last.online
    assert last.created_at == first.created_at


_WSGI_PROCESS = textwrap.dedent('''
    import time

    from nova_mini.wsgi import api

    assert callable(api.application)
    print('built', flush=True)
    time.sleep(60)      # alive (its heartbeat thread runs) until killed
''')


def test_the_wsgi_application_registers_and_refreshes(db, tmp_path):
    config = tmp_path / 'nova_mini.conf'
    config.write_text('[DEFAULT]\nhost = api-under-test\n'
                      '[api]\nauth_strategy = noauth2\n'
                      '[conductor]\nheartbeat_interval = 1\n'
                      '[database]\nconnection = %s\n' % db.url)
    script = tmp_path / 'wsgi_process.py'
    script.write_text(_WSGI_PROCESS)
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=dict(os.environ, NOVA_MINI_CONFIG_FILE=str(config)))
    try:
        output = []
        while not output or output[-1] not in (b'built\n', b''):
            output.append(proc.stdout.readline())
        assert output[-1] == b'built\n', b''.join(output)
        first = _wait_for(lambda: _row(db.engine))
        assert first.online
        _wait_for(lambda: _row(db.engine).updated_at > first.updated_at,
                  timeout=10)
    finally:
        proc.kill()
        proc.wait()
