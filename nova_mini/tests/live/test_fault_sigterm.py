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

"""SIGTERM to each daemon while it has slow requests in flight: they
complete with their normal answers, the daemon exits 0 within its bound,
and a client connecting after the signal is refused or served in full,
never left with half an answer.

The slow requests are real waits: API writes waiting for the database
(the test holds SQLite's write lock), vendordata from a target that
takes seconds to answer, builds waiting for the database in a scheduler.
"""

import concurrent.futures
import http.client
import http.server
import json
import os
import signal
import threading
import time
import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini.tests.live import test_metadata as md
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RUN = helpers.RUN
GRACEFUL = 20
SLOW = 3
SECRET = 'sigterm-proxy-secret-%s' % RUN


def _get(port, path, headers=None, sent=None):
    """GET on a new connection: ``(status, body)``, ``'refused'``, or the
    name of the error met (a reset, a truncated answer...). ``sent``, if
    given, is called with the connection's local port once the request is
    sent.
    """
    conn = http.client.HTTPConnection(util.LOCALHOST, port, timeout=60)
    try:
        conn.request('GET', path, headers=dict(headers or {},
                                               Connection='close'))
        if sent is not None:
            sent(conn.sock.getsockname()[1])
        response = conn.getresponse()
        return response.status, response.read()
    except ConnectionRefusedError:
        return 'refused'
    except (OSError, http.client.HTTPException) as exc:
        return type(exc).__name__
    finally:
        conn.close()


def _probe(port, path, until, expected):
    """New connections every 50 ms until ``until`` (monotonic): the
    outcomes other than refused or ``expected`` in full.
    """
    bad = []
    while time.monotonic() < until:
        outcome = _get(port, path)
        if outcome != 'refused' and outcome != expected:
            bad.append(outcome)
        time.sleep(0.05)    # the probes' pace, over the drain's length
    return bad


def _exit_within(proc, signalled, bound):
    """The daemon's exit status and the seconds it took after the signal
    (asserted within ``bound``).
    """
    code = proc.wait(bound + 5)
    elapsed = time.monotonic() - signalled
    assert code is not None, '%s still runs %ds after SIGTERM' % (
        proc.name, bound + 5)
    assert elapsed < bound, elapsed
    return code


def test_api_finishes_writes_in_flight(stack, extra_api, engine):
    # NOTE: one worker, so that the token check below leaves the token in
    # its cache: the slow part of the writes must be the database, not
    # Keystone (which takes seconds on a loaded machine).
    proc, port = extra_api(workers=1, sections={
        'api': {'graceful_shutdown_timeout': GRACEFUL}})
    url = 'http://%s:%d/compute/v2.1' % (util.LOCALHOST, port)
    headers = {'X-Auth-Token': stack.token('admin')}
    version_doc = _get(port, '/compute/')
    assert version_doc[0] == 200
    assert requests.get(url + '/flavors', headers=headers,
                        timeout=60).status_code == 200
    names = ['sigterm-%s-%d' % (RUN, i) for i in range(6)]
    sent = []       # the clients' local ports

    def create(name):
        conn = http.client.HTTPConnection(util.LOCALHOST, port, timeout=60)
        try:
            conn.request('POST', '/compute/v2.1/flavors', body=json.dumps(
                {'flavor': {'name': name, 'id': name, 'ram': 512,
                            'vcpus': 1, 'disk': 1}}),
                headers=dict(headers, Connection='close',
                             **{'Content-Type': 'application/json'}))
            sent.append(conn.sock.getsockname()[1])
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    with concurrent.futures.ThreadPoolExecutor(len(names)) as pool:
        with helpers.database_locked(stack):
            creating = [pool.submit(create, name) for name in names]
            # The worker has read the writes; they wait for the lock.
            util.wait_until(lambda: len(sent) == len(names), 60,
                            'the POSTs sent')
            helpers.wait_requests_read(port, sent, abort=lambda: any(
                f.done() for f in creating) and 'a POST was answered')
            assert not any(f.done() for f in creating)
            proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            bad = _probe(port, '/compute/', signalled + SLOW, version_doc)
        answers = [f.result() for f in creating]
        code = _exit_within(proc, signalled, GRACEFUL)
    assert code == 0
    assert bad == []
    # Each write answered as usual, and is stored.
    for name, (status, body) in zip(names, answers):
        assert status == 200, body
        assert (body['flavor']['id'], body['flavor']['ram']) == (name, 512)
    table = models.Flavor.__table__
    with engine.connect() as connection:
        stored = set(connection.execute(sa.select(table.c.flavorid).where(
            table.c.flavorid.in_(names))).scalars())
    assert stored == set(names)
    # After the exit nothing listens.
    assert _get(port, '/compute/') == 'refused'


class _SlowTarget(object):
    """A dynamic vendordata target answering after SLOW seconds."""

    def __init__(self):
        self.calls = 0
        target = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers['Content-Length'] or 0))
                target.calls += 1
                time.sleep(SLOW)
                body = json.dumps({'answered': 'slowly'}).encode()
                self.send_response(200)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Cache-Control', 'no-store')
                self.send_header('Content-Length', str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            (util.LOCALHOST, 0), Handler)
        self.url = 'http://%s:%d/' % (util.LOCALHOST,
                                      self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_metadata_finishes_slow_vendordata_in_flight(stack):
    server = helpers.boot(stack, helpers.make_flavor(stack),
                          'sigterm-md-%s' % RUN)
    target = _SlowTarget()
    name = 'nova-mini-metadata-sigterm-%s' % RUN
    port = util.free_port()
    extra = stack.nova.write_extra_config(name, {
        'metadata': {'bind_port': port, 'workers': 2,
                     'metadata_proxy_shared_secret': SECRET,
                     'graceful_shutdown_timeout': GRACEFUL},
        'api': {'vendordata_providers': 'DynamicJSON',
                'vendordata_dynamic_targets': 'slow@%s' % target.url,
                'vendordata_dynamic_read_timeout': SLOW * 3}})
    proc = stack.nova.start(nova.METADATA, name=name, port=port,
                            config_files=[stack.nova.conf_path, extra])
    headers = md.signed_headers(SECRET, server['id'], server['tenant_id'])
    path = '/openstack/latest/vendor_data2.json'
    root = _get(port, '/')
    assert root[0] == 200
    try:
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            sent = []
            reading = [pool.submit(_get, port, path, headers, sent.append)
                       for _i in range(4)]
            # The workers have read the GETs, which wait for the target.
            util.wait_until(lambda: len(sent) == len(reading), 60,
                            'the GETs sent')
            helpers.wait_requests_read(port, sent, abort=lambda: any(
                f.done() for f in reading) and 'a GET was answered')
            assert not any(f.done() for f in reading)
            proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            bad = _probe(port, '/', signalled + SLOW, root)
            answers = [f.result() for f in reading]
        code = _exit_within(proc, signalled, GRACEFUL)
    finally:
        stack.nova.stop(name, timeout=30)
        target.close()
        helpers.delete(stack, server['id'])
    assert code == 0
    assert bad == []
    assert target.calls >= 1
    for status, body in answers:
        assert status == 200, body
        assert json.loads(body) == {'slow': {'answered': 'slowly'}}


def _ids_named(engine, name):
    """The ids of the servers of a multi-create named ``name``."""
    table = models.Instance.__table__
    with engine.connect() as connection:
        return connection.execute(sa.select(table.c.uuid).where(
            table.c.name.like(name + '-%'))).scalars().all()


def _active(engine, uuids):
    """The servers of ``uuids`` that are ACTIVE."""
    table = models.Instance.__table__
    with engine.connect() as connection:
        return connection.execute(sa.select(table.c.uuid).where(
            table.c.uuid.in_(uuids),
            table.c.vm_state == 'active')).scalars().all()


@pytest.fixture
def vhost(stack):
    """A RabbitMQ virtual host of this test; (its name, transport URL)."""
    name = 'nova_mini_sigterm_%s' % uuid.uuid4().hex[:8]
    with stack.rabbit.virtual_hosts(name) as urls:
        yield name, urls[0]


def test_scheduler_finishes_builds_in_hand(stack, vhost, extra_api, engine):
    """The scheduler is signalled while its builds wait for the database:
    they end ACTIVE, it exits 0 within its bound, and the casts it had not
    begun are built by the other scheduler.
    """
    resource_class = 'baremetal-term-%s' % RUN
    flavor = helpers.make_flavor(stack, 'bm-term-%s' % RUN, resource_class)
    for _i in range(16):
        helpers.insert_node(engine, resource_class, name_prefix='term')
    vhost_name, transport_url = vhost
    default = {'transport_url': transport_url, 'rpc_response_timeout': 60}
    procs = {}
    for host in ('term-a', 'term-b'):
        name = 'nova-mini-scheduler-%s-%s' % (host, RUN)
        extra = stack.nova.write_extra_config(name, {
            'DEFAULT': dict(default, host=host),
            'filter_scheduler': {'graceful_shutdown_timeout': GRACEFUL,
                                 'host_subset_size': 8}})
        procs[host] = stack.nova.start(
            nova.SCHEDULER, name=name,
            config_files=[stack.nova.conf_path, extra])
    _api, port = extra_api(workers=1, sections={'DEFAULT': default})
    url = 'http://%s:%d/compute/v2.1' % (util.LOCALHOST, port)
    headers = {'X-Auth-Token': stack.token('demo')}
    victim = procs['term-a']
    try:
        # Frozen, the victim receives its share of the casts without
        # taking them.
        os.kill(victim.pid, signal.SIGSTOP)
        # Two multi-creates: two casts, one for each scheduler in turn.
        servers = []
        for index in range(2):
            name = 'term-%s-%d' % (RUN, index)
            helpers.create_server(url, headers, flavor, name, min_count=4,
                                  max_count=4)
            servers += _ids_named(engine, name)
        assert len(servers) == 8
        # The other scheduler took one cast and built its servers; the
        # victim holds the other, delivered but not taken.
        helpers.wait_queue(stack, vhost_name, (0, 1),
                           'the frozen scheduler holding a cast')
        util.wait_until(lambda: len(_active(engine, servers)) == 4, 60,
                        'the other scheduler building 4 servers')
        with helpers.database_locked(stack):
            os.kill(victim.pid, signal.SIGCONT)
            # It takes its cast; the builds wait for the database.
            helpers.wait_queue(stack, vhost_name, (0, 0),
                               'the victim taking its cast')
            victim.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            util.wait_until(
                lambda: helpers.log_has(victim, 'Taking no more requests'),
                GRACEFUL, 'the victim handling SIGTERM')
            assert victim.running, 'exited with builds in hand'
        code = _exit_within(victim, signalled, GRACEFUL)
        shown = [helpers.wait_for_build(url, headers, server_id, timeout=60)
                 for server_id in servers]
    finally:
        if victim.running:
            os.kill(victim.pid, signal.SIGCONT)
        for proc in procs.values():
            stack.nova.stop(proc.name, timeout=30)
    assert code == 0
    assert [s['status'] for s in shown] == ['ACTIVE'] * len(servers), [
        s.get('fault') for s in shown]
    with open(victim.log_path) as f:
        log = f.read()
    # The victim finished builds after the signal, then stopped.
    after = log[log.index('Taking no more requests'):]
    assert 'is ACTIVE on node' in after
    assert 'nova-mini-scheduler stopped' in after
