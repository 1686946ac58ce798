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

"""Workers sharing the vendordata cache in a real memcached call a target
once for an entry they all miss at the same moment: the lock of the entry
is in memcached, it expires when its holder dies, and waiting for it is
bounded."""

import concurrent.futures
import json
import threading
import time

from pymemcache.client import base as memcache_client
import pytest

from nova_mini.metadata.vendordata import cache_store
from nova_mini.metadata.vendordata import dynamic_json
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import memcached
from nova_mini.tests.fixtures import vendordata as helpers

# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load
serve = helpers.serve
memcached_server = helpers.memcached_server

DOCUMENT = {'domain': 'ad.example.org'}
THREADS_PER_WORKER = 16


@pytest.fixture
def slow_upstream():
    """A target that takes 0.5 s and lets its answer be cached a minute."""
    server = http_servers.ReplyServer(http_servers.json_reply(
        DOCUMENT, headers={'Cache-Control': 'max-age=60'}, delay=0.5))
    server.setUp()
    try:
        yield server
    finally:
        server.cleanUp()


@pytest.fixture
def worker(load, memcached_server, slow_upstream):
    """``worker()``: the providers of one more metadata worker (its own
    DynamicJSON, thread locks and pool), on the test's memcached, with the
    smallest timeouts (a lock then lives 3 + 1 + 1 = 5 s).
    """
    def _worker():
        return load(**{
            'vendordata_providers': ['DynamicJSON'],
            'vendordata_dynamic_targets': ['ad@' + slow_upstream.url],
            'vendordata_dynamic_connect_timeout': 3,
            'vendordata_dynamic_read_timeout': 1,
            **helpers.memcached_options(memcached_server)})
    return _worker


def _dynamic(providers):
    return dict(providers.providers)['DynamicJSON']


def _lock_key(dynamic, instance):
    """The memcached key of the lock of the instance's entry."""
    body = json.dumps(dynamic_json.request_body(instance),
                      sort_keys=True).encode()
    key = dynamic._cache_key(dynamic.targets[0], instance, body)
    return dynamic.store.lock(key, 1).key


def _raw(memcached_server):
    return memcache_client.Client(memcached_server.address)


def test_two_workers_of_sixteen_threads_call_a_cold_entry_once(
        worker, slow_upstream, memcached_server):
    workers = [worker(), worker()]
    assert _dynamic(workers[0]) is not _dynamic(workers[1])
    assert _dynamic(workers[0]).store.shared
    instance = helpers.make_instance()
    start = threading.Barrier(len(workers) * THREADS_PER_WORKER)

    def read(providers):
        start.wait()
        return providers.vendor_data2(instance)

    with concurrent.futures.ThreadPoolExecutor(
            len(workers) * THREADS_PER_WORKER) as pool:
        answers = list(pool.map(
            read, [providers for providers in workers
                   for _i in range(THREADS_PER_WORKER)]))
    assert answers == [{'ad': DOCUMENT}] * len(answers)
    assert slow_upstream.calls == 1
    # The winner released its lock: nothing is left in memcached for it.
    key = _lock_key(_dynamic(workers[0]), instance)
    assert _raw(memcached_server).get(key) is None


def test_each_instance_and_target_has_its_own_lock(worker, slow_upstream):
    workers = [worker(), worker()]
    instances = [helpers.make_instance() for _i in range(4)]
    jobs = [(providers, instance) for instance in instances
            for providers in workers for _i in range(4)]
    start = threading.Barrier(len(jobs))

    def read(job):
        providers, instance = job
        start.wait()
        return providers.vendor_data2(instance)

    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        answers = list(pool.map(read, jobs))
    elapsed = time.monotonic() - began
    assert answers == [{'ad': DOCUMENT}] * len(jobs)
    # One call per instance, made side by side rather than one by one.
    assert slow_upstream.calls == len(instances)
    assert sorted(body['instance-id']
                  for body in slow_upstream.json_bodies()) == sorted(
        instance.uuid for instance in instances)
    assert elapsed < 0.5 * len(instances)


def test_the_lock_of_a_holder_that_died_expires(worker, slow_upstream,
                                                memcached_server):
    providers = worker()
    instance = helpers.make_instance()
    key = _lock_key(_dynamic(providers), instance)
    # What a worker killed while calling the target leaves behind.
    assert _raw(memcached_server).add(key, b'dead-worker', expire=1,
                                      noreply=False)
    began = time.monotonic()
    assert providers.vendor_data2(instance) == {'ad': DOCUMENT}
    elapsed = time.monotonic() - began
    assert slow_upstream.calls == 1
    # Waited for the expiry (memcached counts whole seconds), not for the
    # whole time a call may take (5 s).
    assert 0.5 < elapsed < 3


def test_waiting_for_a_holder_is_bounded(worker, slow_upstream,
                                         memcached_server):
    providers = worker()
    instance = helpers.make_instance()
    key = _lock_key(_dynamic(providers), instance)
    # A holder that never stores anything nor lets go (a lock left with no
    # expiry by something else).
    assert _raw(memcached_server).add(key, b'stuck', expire=0,
                                      noreply=False)
    began = time.monotonic()
    assert providers.vendor_data2(instance) == {'ad': DOCUMENT}
    elapsed = time.monotonic() - began
    assert slow_upstream.calls == 1
    # The lock's lifetime (3 + 1 + 1 s) and one more second, then the call.
    assert 6 <= elapsed < 8.5
    assert _raw(memcached_server).get(key) == b'stuck'


def test_a_waiting_worker_serves_the_holders_entry(worker, slow_upstream,
                                                   memcached_server):
    first, second = worker(), worker()
    instance = helpers.make_instance()
    reader = concurrent.futures.ThreadPoolExecutor(1)
    try:
        winner = reader.submit(first.vendor_data2, instance)
        # Once the first worker holds the lock and is calling the target:
        deadline = time.monotonic() + 5
        while slow_upstream.calls == 0:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        assert second.vendor_data2(instance) == {'ad': DOCUMENT}
        assert winner.result(timeout=10) == {'ad': DOCUMENT}
    finally:
        reader.shutdown()
    assert slow_upstream.calls == 1


def test_release_frees_only_the_holders_own_lock(memcached_server):
    client = _raw(memcached_server)
    # A raw pymemcache client does not wait for answers unless told to.
    replies = {'noreply': False}
    mine = cache_store.SharedLock(lambda: client, 'lock:test', 1, replies)
    assert mine.try_acquire()
    other = cache_store.SharedLock(lambda: client, 'lock:test', 60, replies)
    assert not other.try_acquire()
    # The first holder outlived its lock, which another one then took.
    deadline = time.monotonic() + 5
    while not other.try_acquire():
        assert time.monotonic() < deadline
        time.sleep(0.1)
    mine.release()
    assert not mine.try_acquire()
    other.release()
    assert client.get('lock:test') is None
    assert mine.try_acquire()
    mine.release()


def test_a_memcached_that_is_down_is_no_wait(load, slow_upstream, caplog):
    server = memcached.MemcachedServer()
    server.setUp()
    url = server.url
    server.cleanUp()
    providers = load(**{
        'vendordata_providers': ['DynamicJSON'],
        'vendordata_dynamic_targets': ['ad@' + slow_upstream.url],
        'cache.enabled': True,
        'cache.backend': 'dogpile.cache.pymemcache',
        'cache.memcache_servers': [url]})
    instance = helpers.make_instance()
    began = time.monotonic()
    for _i in range(2):
        assert providers.vendor_data2(instance) == {'ad': DOCUMENT}
    # Two calls of 0.5 s, no wait for a lock nobody can hold.
    assert time.monotonic() - began < 3
    assert slow_upstream.calls == 2
    assert 'Vendordata cache: ' in caplog.text


def _race(jobs):
    """Run ``jobs`` (callables) at once; ``(answers, seconds)``."""
    start = threading.Barrier(len(jobs))

    def run(job):
        start.wait()
        return job()

    began = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as pool:
        answers = list(pool.map(run, jobs))
    return answers, time.monotonic() - began


# What nothing is left in the cache for: an answer that may not be kept, a
# failure. The requests that waited share the call rather than call after
# it one by one (16 x 0.5 s).
UNKEPT = [
    pytest.param(http_servers.json_reply(
        DOCUMENT, headers={'Cache-Control': 'no-store'}, delay=0.5),
        {'ad': DOCUMENT}, id='no-store'),
    pytest.param(http_servers.json_reply(
        {'error': 'down'}, status=503, delay=0.5), {}, id='failure'),
]


@pytest.mark.parametrize('reply, expected', UNKEPT)
def test_requests_of_a_worker_share_a_call_nothing_is_kept_of(
        load, serve, reply, expected):
    target = serve(reply)
    providers = load(vendordata_providers=['DynamicJSON'],
                     vendordata_dynamic_targets=['ad@' + target.url])
    instance = helpers.make_instance()
    answers, seconds = _race(
        [lambda: providers.vendor_data2(instance)] * THREADS_PER_WORKER)
    assert answers == [expected] * THREADS_PER_WORKER
    assert target.calls == 1
    assert seconds < 2


@pytest.mark.parametrize('reply, expected', UNKEPT)
def test_workers_waiting_for_a_call_nothing_is_kept_of_call_at_once(
        load, serve, memcached_server, reply, expected):
    target = serve(reply)
    workers = [load(**{
        'vendordata_providers': ['DynamicJSON'],
        'vendordata_dynamic_targets': ['ad@' + target.url],
        'cache.enabled': True,
        'cache.backend': 'dogpile.cache.pymemcache',
        'cache.memcache_servers': [memcached_server.url]})
        for _i in range(3)]
    instance = helpers.make_instance()
    answers, seconds = _race(
        [lambda providers=providers: providers.vendor_data2(instance)
         for providers in workers for _i in range(8)])
    assert answers == [expected] * len(answers)
    # One call per worker at most: the first worker's, then the others'
    # side by side once it let go of the lock (not one after the other).
    assert 1 <= target.calls <= len(workers)
    assert seconds < 0.5 * 2 + 0.8
