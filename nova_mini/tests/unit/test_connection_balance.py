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

"""New connections go to the least loaded worker of the embedded WSGI
server (nova_mini.connection_balance and nova_mini.service.ThreadWorker).
"""

import collections
import http.client
import os
import subprocess
import sys
import tempfile
import textwrap
import time

from nova_mini import connection_balance
from nova_mini.tests.fixtures import processes
from nova_mini.tests.unit import test_service_drain as drain
from nova_mini_deploy import util as deploy_util


class _Clock(object):
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def _load(*others):
    """A ConnectionLoad whose slot 0 is ours and whose other slots hold
    live workers (this process's pid) with ``others`` connections.
    """
    load = connection_balance.ConnectionLoad(len(others) + 2)
    load.claim(0, os.getpid())
    for slot, conns in enumerate(others, start=1):
        load.claim(slot, os.getpid())
        load.publish(slot, conns)
    return load


def test_least_other_ignores_own_free_and_dead_slots():
    load = _load(3, 5)
    load.publish(0, 0)
    assert load.least_other(0) == 3
    assert load.least_other(1) == 0
    dead = subprocess.Popen([sys.executable, '-c', 'pass'])
    dead.wait()
    load.claim(3, dead.pid)          # a worker that has exited
    assert load.least_other(0) == 3
    assert connection_balance.ConnectionLoad(2).least_other(0) is None


def test_free_slot_skips_used_and_resets_the_slot():
    load = _load(4)
    assert load.free_slot({0, 1}) == 2
    assert load.free_slot({0}) == 1
    assert load.least_other(0) is None     # slot 1 released for reuse
    assert load.free_slot({0, 1, 2}) is None


def test_yields_only_to_a_less_loaded_worker():
    clock = _Clock()
    yielder = connection_balance.Yielder(_load(2), 0, clock)
    assert not yielder.should_yield(1)
    assert not yielder.should_yield(2)
    assert yielder.should_yield(3)
    alone = connection_balance.Yielder(_load(), 0, clock)
    assert not alone.should_yield(50)


def test_yields_for_a_bounded_time_per_client():
    clock = _Clock()
    yielder = connection_balance.Yielder(_load(0), 0, clock)
    looks = 0
    while yielder.should_yield(4):
        looks += 1
        clock.now += connection_balance.YIELD_STEP
    # The peer never took the client: this worker does, after YIELD_FOR.
    assert looks == round(connection_balance.YIELD_FOR /
                          connection_balance.YIELD_STEP)
    # A later client starts a new wait.
    clock.now += 1
    assert yielder.should_yield(4)


_DAEMON = textwrap.dedent('''
    import os
    import sys

    from nova_mini import service


    def app(environ, start_response):
        body = str(os.getpid()).encode()
        start_response('200 OK', [('Content-Type', 'text/plain'),
                                  ('Content-Length', str(len(body)))])
        return [body]


    service.WSGIServer('balance-test', lambda: app, host='127.0.0.1',
                       port=int(sys.argv[1]), workers=2, threads=4,
                       graceful_timeout=5).run()
''')


def test_kept_alive_connections_are_spread_over_the_workers(tmp_path):
    script = tmp_path / 'daemon.py'
    script.write_text(_DAEMON)
    port = deploy_util.free_port()
    proc = processes.Daemon(
        [sys.executable, str(script), str(port)], capture=True,
        env={k: v for k, v in os.environ.items() if k != 'NOTIFY_SOCKET'},
        cwd=tempfile.gettempdir())
    conns = []
    try:
        # Wait until both workers answer (the second may boot later).
        seen = set()
        deadline = time.monotonic() + 60
        while len(seen) < 2 and time.monotonic() < deadline:
            assert proc.poll() is None, proc.output()
            answer = drain._get(port, '/')
            if answer[0] == 200:
                seen.add(answer[1])
            else:
                time.sleep(0.1)
        assert len(seen) == 2, seen
        # Clients that keep their connections open, opened one after the
        # other: each new one goes to the worker holding fewer.
        served = collections.Counter()
        for _i in range(8):
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
            conn.request('GET', '/')
            served[conn.getresponse().read()] += 1
            conns.append(conn)
        # Each connection stays on its worker.
        for conn in conns:
            conn.request('GET', '/')
            assert conn.getresponse().read() in served
    finally:
        for conn in conns:
            conn.close()
        proc.close()
    assert sorted(served.values()) == [4, 4], served
