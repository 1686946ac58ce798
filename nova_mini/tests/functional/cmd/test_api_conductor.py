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
nova_mini.wsgi.api's application registers and refreshes its host. A
host a nova-mini-conductor holds is refused, the refusal logged once.
"""

import os
import signal
import subprocess
import sys
import textwrap

import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.fixtures import processes
from nova_mini_deploy import util
from nova_mini_deploy import util as deploy_util

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


def _row(engine):
    with engine.connect() as connection:
        return connection.execute(sa.select(
            models.Conductor.__table__).where(
                models.Conductor.hostname == 'api-under-test')).first()


def test_the_service_registers_refreshes_and_goes_offline(db, tmp_path):
    script = tmp_path / 'server.py'
    script.write_text(_SERVER)
    with processes.Daemon(
            [sys.executable, str(script), db.url, str(deploy_util.free_port())],
            capture=True, env=dict(os.environ)) as proc:
        first = util.wait_until(lambda: _row(db.engine), 30,
                                'the conductor row')
        assert first.online
        assert first.drivers == ['fake-hardware']
        assert first.conductor_group == ''
        # The heartbeat thread refreshes it every second.
        util.wait_until(
            lambda: _row(db.engine).updated_at > first.updated_at, 10,
            'the conductor row refreshed')
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert code == 0, proc.output()
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
    with processes.Daemon(
            [sys.executable, str(script)], stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, NOVA_MINI_CONFIG_FILE=str(config))) as proc:
        output = []
        while not output or output[-1] not in (b'built\n', b''):
            output.append(proc.stdout.readline())
        assert output[-1] == b'built\n', b''.join(output)
        first = util.wait_until(lambda: _row(db.engine), 30,
                                'the conductor row')
        assert first.online
        util.wait_until(
            lambda: _row(db.engine).updated_at > first.updated_at, 10,
            'the conductor row refreshed')


def test_a_host_a_conductor_holds_is_refused(db, tmp_path):
    # A nova-mini-conductor holds the host alive: the API would keep it
    # alive once killed, so the API refuses to start and leaves the row.
    conductor_obj.register_host(nm_context.get_admin_context(),
                                'api-under-test', ['redfish'])
    before = _row(db.engine)
    script = tmp_path / 'server.py'
    script.write_text(_SERVER)
    proc = subprocess.run(
        [sys.executable, str(script), db.url, str(deploy_util.free_port())],
        capture_output=True, text=True, timeout=60, env=dict(os.environ))
    assert proc.returncode == 1
    assert ('Conductor api-under-test already registered by another '
            'service (drivers redfish): nova-mini-api and '
            'nova-mini-conductor need a [DEFAULT] host of their own.'
            in proc.stderr + proc.stdout)
    after = _row(db.engine)
    assert (after.drivers, after.updated_at) == (['redfish'],
                                                 before.updated_at)


def test_the_refusal_is_logged_once(tmp_path):
    # The console script, logging as configured (oslo.log): one ERROR
    # line, the refusal said once (not repeated as the exception's text).
    sections = ('[DEFAULT]\nhost = api-under-test\n'
                '[api]\nauth_strategy = noauth2\nbind_host = 127.0.0.1\n'
                'bind_port = %d\nworkers = 1\n' % deploy_util.free_port())
    with console_scripts.synced_database(tmp_path, sections) as config_file:
        conductor_obj.register_host(nm_context.get_admin_context(),
                                    'api-under-test', ['redfish'])
    result = console_scripts.run('nova-mini-api', config_file)
    output = result.stderr + result.stdout
    assert result.returncode == 1, output
    lines = [line for line in output.splitlines() if 'ERROR' in line]
    assert len(lines) == 1, output
    assert lines[0].endswith(
        'Could not register conductor api-under-test: Conductor '
        'api-under-test already registered by another service (drivers '
        'redfish): nova-mini-api and nova-mini-conductor need a [DEFAULT] '
        'host of their own.'), output
    assert output.count('already registered') == 1, output
