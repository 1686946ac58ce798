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

"""The 50-traits-per-node limit under concurrency, through real HTTP.

A nova-mini-api of its own (4 workers x 8 threads) on a database of its
own (a SQLite file, or a fresh PostgreSQL database), hammered by many
client threads at once:

* concurrent single adds of 80 distinct traits: exactly 50 succeed, every
  other answer is the limit error (400, Ironic's error format), and the
  node never shows more than 50 traits, not even for a moment;
* concurrent replaces with 51 traits: all refused, and the previous set
  stays intact, as seen by readers during the race and after it;
* concurrent valid replaces (50 traits), invalid replaces (51) and single
  adds mixed: never more than 50, a replace is never seen half-done.

Every loop is bounded in count and in time (``DEADLINE`` seconds a phase).
"""

import concurrent.futures
import json
import threading
import time
import uuid

import pytest
import requests

from nova_mini.tests.harness import postgresql
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

VERSION = '1.37'
LIMIT = 50
CLIENT_THREADS = 24
DEADLINE = 120          # seconds, per phase
REQUEST_TIMEOUT = 60


@pytest.fixture(scope='module', params=['sqlite', pytest.param(
    'postgresql', marks=pytest.mark.postgresql)])
def race_api(request, stack, tmp_path_factory, admin_token):
    """Base URL of a nova-mini-api with 4 workers of 8 threads on a fresh
    database of the backend, and the headers of an admin. One per backend
    for the module: each test races on a node of its own.
    """
    pg = None
    name = None
    if request.param == 'sqlite':
        connection = 'sqlite:///%s' % (
            tmp_path_factory.mktemp('race') / 'race.sqlite')
    else:
        pg = postgresql.TemporaryDatabase(prefix='nova_mini_race')
        connection = pg.url
    try:
        port = util.free_port()
        name = 'nova-mini-api-race-%s' % uuid.uuid4().hex[:6]
        sections = {'database': {'connection': connection,
                                 'max_pool_size': 8, 'max_overflow': 8},
                    'api': {'threads_per_worker': 8, 'bind_port': port,
                            'workers': 4}}
        conf = stack.nova.write_extra_config(name, sections)
        config_files = [stack.nova.conf_path, conf]
        stack.nova.manage('db', 'sync', config_files=config_files)
        stack.nova.start(nova.API, name=name, port=port,
                         config_files=config_files)
        headers = {'X-Auth-Token': admin_token,
                   'X-OpenStack-Ironic-API-Version': VERSION}
        yield 'http://127.0.0.1:%d/baremetal/v1' % port, headers
    finally:
        if name is not None:
            stack.nova.stop(name, timeout=10)
        if pg is not None:
            pg.drop()


class Client(object):
    """One requests session per thread (keep-alive), bounded timeouts."""

    def __init__(self, base, headers):
        self.base = base
        self.headers = headers
        self._local = threading.local()

    @property
    def session(self):
        if not hasattr(self._local, 'session'):
            self._local.session = requests.Session()
            self._local.session.headers.update(self.headers)
        return self._local.session

    def request(self, method, path, **kwargs):
        return self.session.request(method, self.base + path,
                                    timeout=REQUEST_TIMEOUT, **kwargs)

    def traits(self, node):
        resp = self.request('GET', '/nodes/%s/traits' % node)
        assert resp.status_code == 200, resp.text
        return resp.json()['traits']


def ironic_error(resp):
    """The faultstring of an Ironic-format error body (asserting the
    format: ``{"error_message": "<JSON of faultcode/faultstring>"}``).
    """
    body = resp.json()
    assert list(body) == ['error_message'], body
    inner = json.loads(body['error_message'])
    assert inner.get('faultcode') == 'Client', inner
    return inner['faultstring']


def assert_limit_error(resp):
    assert resp.status_code == 400, (resp.status_code, resp.text)
    assert resp.headers.get('X-OpenStack-Ironic-API-Version') == VERSION
    message = ironic_error(resp)
    assert '50' in message and 'trait' in message.lower(), message


class Watcher(object):
    """Reads the node's traits in a loop while a phase runs; keeps every
    distinct snapshot, so the test can check what readers could see.
    """

    def __init__(self, client, node):
        self.client = client
        self.node = node
        self.snapshots = set()
        self.reads = 0
        self.errors = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        end = time.monotonic() + DEADLINE
        while not self._stop.is_set() and time.monotonic() < end:
            try:
                resp = self.client.request('GET',
                                           '/nodes/%s/traits' % self.node)
            except requests.RequestException as exc:
                self.errors.append(repr(exc))
                continue
            if resp.status_code != 200:
                self.errors.append((resp.status_code, resp.text))
                continue
            self.snapshots.add(frozenset(resp.json()['traits']))
            self.reads += 1

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(REQUEST_TIMEOUT + 5)

    @property
    def most(self):
        return max((len(s) for s in self.snapshots), default=0)


def run_all(client, calls):
    """Run ``calls`` (``(method, path, json)``) from CLIENT_THREADS threads;
    ``[(call, response or exception)]``. Gives up (failing the test) after
    DEADLINE seconds.
    """
    def one(call):
        method, path, body = call
        try:
            return call, client.request(method, path, json=body)
        except requests.RequestException as exc:
            return call, exc

    results = []
    with concurrent.futures.ThreadPoolExecutor(CLIENT_THREADS) as pool:
        futures = [pool.submit(one, call) for call in calls]
        done, pending = concurrent.futures.wait(futures, timeout=DEADLINE)
        for future in pending:
            future.cancel()
        assert not pending, '%d of %d requests unanswered after %ds' % (
            len(pending), len(calls), DEADLINE)
        results = [f.result() for f in futures]
    transport = [r for _c, r in results if isinstance(r, Exception)]
    assert not transport, transport[:5]
    return results


# Local: the node goes to this race's own API and database, which
# helpers.insert_node (the stack's database) does not reach.
def make_node(client):
    resp = client.request('POST', '/nodes', json={
        'name': 'race-%s' % uuid.uuid4().hex[:8], 'driver': 'fake-hardware'})
    assert resp.status_code == 201, resp.text
    return resp.json()['uuid']


def test_concurrent_adds_stop_at_fifty(race_api):
    base, headers = race_api
    client = Client(base, headers)
    node = make_node(client)
    # 80: 30 more than fit, more than one a racing client.
    traits = ['CUSTOM_T%03d' % i for i in range(80)]

    with Watcher(client, node) as watcher:
        results = run_all(client, [
            ('PUT', '/nodes/%s/traits/%s' % (node, t), None)
            for t in traits])

    added = [call[1].rsplit('/', 1)[1] for call, resp in results
             if resp.status_code == 204]
    refused = [resp for _call, resp in results if resp.status_code != 204]
    for resp in refused:
        assert_limit_error(resp)
    assert len(added) == LIMIT, (len(added), len(refused))
    assert sorted(client.traits(node)) == sorted(added)
    assert watcher.most <= LIMIT, watcher.most
    assert not watcher.errors, watcher.errors[:5]
    assert watcher.reads > 0


def test_concurrent_replaces_over_the_limit_change_nothing(race_api):
    base, headers = race_api
    client = Client(base, headers)
    node = make_node(client)
    before = ['CUSTOM_KEEP_%02d' % i for i in range(20)]
    resp = client.request('PUT', '/nodes/%s/traits' % node,
                          json={'traits': before})
    assert resp.status_code == 204, resp.text

    # 48 replaces (two a racing client), each with 51 traits of its own
    # (most of them new).
    calls = []
    for k in range(2 * CLIENT_THREADS):
        traits = ['CUSTOM_R%02d_%02d' % (k, i) for i in range(LIMIT + 1)]
        calls.append(('PUT', '/nodes/%s/traits' % node, {'traits': traits}))
    with Watcher(client, node) as watcher:
        results = run_all(client, calls)

    for _call, resp in results:
        assert_limit_error(resp)
    assert sorted(client.traits(node)) == sorted(before)
    # Not even for a moment did a reader see anything else.
    assert watcher.snapshots == {frozenset(before)}, sorted(
        len(s) for s in watcher.snapshots)
    assert not watcher.errors, watcher.errors[:5]


def test_mixed_replaces_and_adds(race_api):
    base, headers = race_api
    client = Client(base, headers)
    node = make_node(client)
    start = ['CUSTOM_START_%02d' % i for i in range(10)]
    resp = client.request('PUT', '/nodes/%s/traits' % node,
                          json={'traits': start})
    assert resp.status_code == 204, resp.text

    # Six valid sets of exactly 50, disjoint from each other and from the
    # single adds, so that any snapshot can be told apart.
    valid = {k: frozenset('CUSTOM_V%d_%02d' % (k, i) for i in range(LIMIT))
             for k in range(6)}
    adds = ['CUSTOM_ADD_%03d' % i for i in range(60)]
    calls = []
    for i in range(60):
        calls.append(('PUT', '/nodes/%s/traits/%s' % (node, adds[i]), None))
        if i % 5 == 0:
            calls.append(('PUT', '/nodes/%s/traits' % node,
                          {'traits': sorted(valid[(i // 5) % 6])}))
        if i % 5 == 2:
            calls.append(('PUT', '/nodes/%s/traits' % node, {
                'traits': sorted(valid[(i // 5) % 6]) + ['CUSTOM_ONE_MORE']}))
    with Watcher(client, node) as watcher:
        results = run_all(client, calls)

    for (method, path, body), resp in results:
        if body is not None and len(body['traits']) > LIMIT:
            assert_limit_error(resp)
        elif body is not None:
            assert resp.status_code == 204, resp.text
        elif resp.status_code != 204:
            assert_limit_error(resp)

    final = frozenset(client.traits(node))
    assert len(final) <= LIMIT
    assert watcher.most <= LIMIT, watcher.most
    assert not watcher.errors, watcher.errors[:5]
    from_valid = set().union(*valid.values())
    seen = watcher.snapshots | {final}
    for snapshot in seen:
        assert 'CUSTOM_ONE_MORE' not in snapshot
        if snapshot & from_valid:
            # A replace is all or nothing: whatever a reader saw of a valid
            # set, it saw all of it (adds after it fail: it is full).
            assert snapshot in valid.values(), sorted(snapshot)[:5]
