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

"""The vendordata cache in a real memcached, shared by several metadata
workers, holding JSON only."""

import json
import pickle
import socket
import time

from pymemcache.client import base as memcache_client
import pytest

from nova_mini.metadata.vendordata import cache_store
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import memcached
from nova_mini.tests.fixtures import vendordata as helpers

# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load
memcached_server = helpers.memcached_server


@pytest.fixture
def upstream():
    server = http_servers.ReplyServer(http_servers.json_reply(
        {'domain': 'ad.example.org'},
        headers={'Cache-Control': 'max-age=60', 'ETag': '"v1"'}))
    server.setUp()
    try:
        yield server
    finally:
        server.cleanUp()


@pytest.fixture
def worker(load, memcached_server, upstream):
    """``worker()``: providers as one more metadata worker loads them,
    with [cache] on the test's memcached.
    """
    def _worker():
        return load(**{
            'vendordata_providers': ['DynamicJSON'],
            'vendordata_dynamic_targets': ['ad@' + upstream.url],
            **helpers.memcached_options(memcached_server)})
    return _worker


def _client(memcached_server):
    # No codec: the raw bytes and flags memcached holds.
    return memcache_client.Client(memcached_server.address)


def test_workers_share_entries(worker, upstream):
    first, second = worker(), worker()
    assert first is not second
    instance = helpers.make_instance()
    expected = {'ad': {'domain': 'ad.example.org'}}
    assert first.vendor_data2(instance) == expected
    assert second.vendor_data2(instance) == expected
    assert worker().vendor_data2(instance) == expected
    assert upstream.calls == 1


def _raw_get(address, key):
    """(flags, data) memcached holds under ``key``, read over the wire."""
    with socket.create_connection(address, timeout=5) as sock:
        sock.sendall(b'get %s\r\n' % key.encode())
        reply = b''
        while not reply.endswith(b'END\r\n'):
            chunk = sock.recv(65536)
            assert chunk, reply
            reply += chunk
    header, _sep, rest = reply.partition(b'\r\n')
    _value, _key, flags, length = header.split()[:4]
    return int(flags), rest[:int(length)]


def test_memcached_holds_json_bytes_never_a_pickle(worker, upstream,
                                                   memcached_server):
    providers = worker()
    instance = helpers.make_instance()
    providers.vendor_data2(instance)
    dynamic = dict(providers.providers)['DynamicJSON']
    key = dynamic.store.region.key_mangler(
        dynamic._cache_key(dynamic.targets[0], instance, _body(instance)))
    flags, data = _raw_get(memcached_server.address, key)
    assert flags == 0       # plain bytes (pickles have flag 1)
    metadata, _sep, payload = data.partition(b'|')
    assert set(json.loads(metadata)) == {'ct', 'v'}
    entry = json.loads(payload)
    assert entry['value'] == {'domain': 'ad.example.org'}
    assert entry['headers']['ETag'] == '"v1"'
    assert entry['headers']['Cache-Control'] == 'max-age=60'


def _body(instance):
    from nova_mini.metadata.vendordata import dynamic_json
    return json.dumps(dynamic_json.request_body(instance),
                      sort_keys=True).encode()


class _Planted:
    unpickled = False

    def __reduce__(self):
        return (_mark_unpickled, ())


def _mark_unpickled():
    _Planted.unpickled = True
    return {'value': {'evil': True}, 'headers': {}, 'fresh_until': 2e9}


def test_a_planted_pickle_is_never_unpickled(worker, upstream,
                                             memcached_server):
    providers = worker()
    instance = helpers.make_instance()
    dynamic = dict(providers.providers)['DynamicJSON']
    key = dynamic.store.region.key_mangler(
        dynamic._cache_key(dynamic.targets[0], instance, _body(instance)))
    # What pymemcache's default codec writes for an object: flag 1.
    _client(memcached_server).set(key, pickle.dumps(_Planted()), flags=1)
    assert providers.vendor_data2(instance) == {
        'ad': {'domain': 'ad.example.org'}}
    assert _Planted.unpickled is False
    assert upstream.calls == 1


def test_the_pymemcache_backend_gets_the_bytes_only_codec(worker):
    dynamic = dict(worker().providers)['DynamicJSON']
    backend = dynamic.store.region.actual_backend
    assert isinstance(backend.serde, cache_store.BytesOnlySerde)
    with pytest.raises(TypeError, match='stores bytes only'):
        backend.serde.serialize('k', {'not': 'bytes'})


def test_a_memcached_that_is_down_is_a_miss(load, upstream, caplog):
    server = memcached.MemcachedServer()
    server.setUp()
    url = server.url
    server.cleanUp()
    providers = load(**{
        'vendordata_providers': ['DynamicJSON'],
        'vendordata_dynamic_targets': ['ad@' + upstream.url],
        'cache.enabled': True,
        'cache.backend': 'dogpile.cache.pymemcache',
        'cache.memcache_servers': [url]})
    instance = helpers.make_instance()
    for _i in range(2):
        assert providers.vendor_data2(instance) == {
            'ad': {'domain': 'ad.example.org'}}
    assert upstream.calls == 2
    assert 'Vendordata cache: ' in caplog.text


def _gets(memcached_server):
    return _client(memcached_server).stats()[b'cmd_get']


def test_a_hit_is_no_round_trip_to_memcached(worker, upstream,
                                             memcached_server):
    first, second = worker(), worker()
    instance = helpers.make_instance()
    expected = {'ad': {'domain': 'ad.example.org'}}
    assert first.vendor_data2(instance) == expected     # calls, stores
    # Each worker reads what memcached holds once: the caller too, as
    # only what memcached held is kept.
    assert second.vendor_data2(instance) == expected
    assert first.vendor_data2(instance) == expected
    before = _gets(memcached_server)
    for _i in range(20):
        assert first.vendor_data2(instance) == expected
        assert second.vendor_data2(instance) == expected
    assert _gets(memcached_server) == before
    assert upstream.calls == 1
    # Another instance's entry is its own, read from memcached.
    other = helpers.make_instance()
    assert second.vendor_data2(other) == expected
    assert _gets(memcached_server) > before
    assert upstream.calls == 2


def test_a_worker_keeps_an_entry_only_while_it_is_fresh(load,
                                                        memcached_server):
    server = http_servers.ReplyServer(http_servers.json_reply(
        {'domain': 'ad.example.org'},
        headers={'Cache-Control': 'max-age=1'}))
    server.setUp()
    try:
        providers = load(**{
            'vendordata_providers': ['DynamicJSON'],
            'vendordata_dynamic_targets': ['ad@' + server.url],
            **helpers.memcached_options(memcached_server)})
        instance = helpers.make_instance()
        for _i in range(3):
            assert providers.vendor_data2(instance) == {
                'ad': {'domain': 'ad.example.org'}}
        assert server.calls == 1
        # The clock, not a synchronisation: max-age=1 runs out.
        time.sleep(1.2)
        assert providers.vendor_data2(instance) == {
            'ad': {'domain': 'ad.example.org'}}
        assert server.calls == 2
    finally:
        server.cleanUp()
