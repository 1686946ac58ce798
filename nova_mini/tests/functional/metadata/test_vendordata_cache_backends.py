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

"""Which oslo.cache backends the vendordata cache takes: only those that
never unpickle what they read, and whatever the backend, only JSON reaches
it.
"""

import json
import pickle

import pytest

from nova_mini import exception
from nova_mini.metadata.vendordata import cache_store
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import vendordata as helpers

vd_conf = helpers.vd_conf
load = helpers.load
make_instance = helpers.make_instance
serve = helpers.serve


def _cached(serve, load, backend):
    server = serve(http_servers.json_reply(
        {'domain': 'ad.example.org'},
        headers={'Cache-Control': 'max-age=60'}))
    return load(**{'vendordata_providers': ['DynamicJSON'],
                   'vendordata_dynamic_targets': ['ad@' + server.url],
                   'cache.enabled': True, 'cache.backend': backend})


@pytest.mark.parametrize('backend', [
    # Their clients unpickle any value stored with the pickle flag, which
    # anyone who can reach memcached can plant.
    'dogpile.cache.memcached', 'dogpile.cache.bmemcached',
    'dogpile.cache.pylibmc', 'oslo_cache.memcache_pool',
    # Stores what it is given as JSON of its own, not the region's bytes.
    'oslo_cache.etcd3gw',
])
def test_backends_that_may_unpickle_are_refused_at_start(serve, load,
                                                         backend):
    with pytest.raises(exception.VendorDataConfigError) as caught:
        _cached(serve, load, backend)
    message = str(caught.value)
    assert '[cache] backend %s' % backend in message
    assert 'dogpile.cache.pymemcache' in message


@pytest.mark.parametrize('backend', [
    'dogpile.cache.memory', 'dogpile.cache.memory_pickle', 'oslo_cache.dict',
])
def test_in_process_backends_hold_json_bytes_never_a_pickle(serve, load,
                                                            backend):
    providers = _cached(serve, load, backend)
    instance = make_instance()
    for _i in range(2):
        assert providers.vendor_data2(instance) == {
            'ad': {'domain': 'ad.example.org'}}
    store = dict(providers.providers)['DynamicJSON'].store
    backend = store.region.actual_backend
    raw = getattr(backend, '_cache', None) or backend.cache
    # Bounded, as the in-process cache without [cache].
    assert isinstance(raw, cache_store.LRUDict)
    (stored,) = [raw[key] for key in raw]
    if isinstance(stored, tuple):       # oslo_cache.dict: (value, expiry)
        stored = stored[0]
    assert isinstance(stored, bytes)
    assert not stored.startswith(b'\x80')       # pickle's opening byte
    metadata, _sep, payload = stored.partition(b'|')
    assert json.loads(payload)['value'] == {'domain': 'ad.example.org'}
    json.loads(metadata)


def test_a_value_planted_in_process_is_not_unpickled(serve, load):
    providers = _cached(serve, load, 'dogpile.cache.memory_pickle')
    instance = make_instance()
    providers.vendor_data2(instance)
    store = dict(providers.providers)['DynamicJSON'].store
    raw = store.region.actual_backend._cache
    (key,) = list(raw)
    raw[key] = pickle.dumps({'value': {'planted': True}})
    # A miss: the target is asked again.
    assert providers.vendor_data2(instance) == {
        'ad': {'domain': 'ad.example.org'}}


def test_the_allowed_backends_are_oslo_caches_choices_or_none():
    # A backend added here must be one oslo.cache knows (or a dogpile one
    # it passes through), never a typo.
    assert 'dogpile.cache.pymemcache' in cache_store.PICKLE_FREE_BACKENDS
    assert not set(cache_store.PICKLE_FREE_BACKENDS) & {
        'dogpile.cache.memcached', 'oslo_cache.memcache_pool'}
