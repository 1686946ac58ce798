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

"""Where replies of vendordata targets are kept: an oslo.cache region.

With ``[cache] enabled = true`` the region is oslo.cache's, configured by
the ``[cache]`` group (``dogpile.cache.pymemcache`` with
``memcache_servers``, so that every metadata worker and host shares one
cache). Otherwise it is an in-process ``dogpile.cache.memory`` region over
a bounded LRU mapping of ``[api] vendordata_dynamic_cache_size`` entries.

Only JSON is stored: the region serializes every entry to JSON bytes
itself, whatever the backend, so the clients store bytes as they are and
never pickle anything. Reading is where a backend could still unpickle: a
memcached client unpickles any value stored with its pickle flag, and
anyone who can reach memcached can plant one under our keys. So only the
backends of ``PICKLE_FREE_BACKENDS`` are taken, any other stops the daemon
at start: those whose clients hand back the bytes as stored (Redis,
Valkey, dbm, the in-process ones), and pymemcache, which is given a codec
that reads nothing but plain bytes. The in-process ones get the bounded
LRU mapping as their dict.
The store is an optimisation: a failure of the cache backend is logged and
taken as a miss, never as a failed request.

When the region is not in this process (memcached, Redis), each worker
keeps the fresh entries it has read from it (``DynamicJSON``'s near
cache), so that a hit costs no round trip.

When the region is a memcached one, ``JSONStore.lock`` gives a lock that
every worker sharing it sees (memcached's ``add``), so that workers that
miss the same entry at once make one call to the target, not one each.
"""

import collections
import collections.abc
import json
import math
import threading
import time
import uuid

from dogpile.cache import api as dogpile_api
from dogpile.cache.backends import memcached as dogpile_memcached
from dogpile.cache.backends import memory as dogpile_memory
from dogpile.cache import region as dogpile_region
import oslo_cache
from oslo_cache.backends import dictionary as oslo_cache_dict
from oslo_log import log as logging

from nova_mini import exception

LOG = logging.getLogger(__name__)

#: The [cache] backends the vendordata cache takes: none of them ever
#: unpickles what it reads (see the module's docstring).
PYMEMCACHE = 'dogpile.cache.pymemcache'
IN_PROCESS_BACKENDS = ('dogpile.cache.memory', 'dogpile.cache.memory_pickle',
                       'oslo_cache.dict')
PICKLE_FREE_BACKENDS = (PYMEMCACHE,) + IN_PROCESS_BACKENDS + (
    'dogpile.cache.null', 'dogpile.cache.dbm',
    'dogpile.cache.redis', 'dogpile.cache.redis_sentinel',
    'dogpile.cache.redis_cluster', 'dogpile.cache.valkey',
    'dogpile.cache.valkey_sentinel', 'dogpile.cache.valkey_cluster')

# pymemcache's flag for values stored as plain bytes (pymemcache.serde).
_FLAG_BYTES = 0

# How often a worker that lost the shared lock looks again (seconds):
# first soon, as most holders finish quickly, then less often.
_POLL_FIRST = 0.01
_POLL_MAX = 0.1

# Failed ``add``s in a row with no holder to be seen: memcached is not
# answering (python-memcached reports errors as a failed add), go on alone.
_NO_HOLDER_STRIKES = 3


def _serialize(value):
    return json.dumps(value, separators=(',', ':'),
                      sort_keys=True).encode('utf-8')


def _deserialize(raw):
    try:
        return json.loads(raw)
    except (TypeError, ValueError) as exc:
        raise dogpile_api.CantDeserializeException() from exc


class BytesOnlySerde:
    """pymemcache codec: bytes in, bytes out; anything else is refused on
    write and read as a miss (pymemcache's default codec unpickles).
    """

    def serialize(self, key, value):
        if not isinstance(value, bytes):
            raise TypeError('the vendordata cache stores bytes only, not %s'
                            % type(value).__name__)
        return value, _FLAG_BYTES

    def deserialize(self, key, value, flags):
        return value if flags == _FLAG_BYTES else None


class LRUDict(collections.abc.MutableMapping):
    """A thread-safe mapping of at most ``size`` items that drops the least
    recently used first (dogpile's memory backend takes any mapping).
    """

    def __init__(self, size):
        self.size = size
        self._items = collections.OrderedDict()
        self._lock = threading.Lock()

    def __getitem__(self, key):
        with self._lock:
            self._items.move_to_end(key)
            return self._items[key]

    def get(self, key, default=None):
        """Return the value of ``key`` (now the most recently used), or
        ``default``.
        """
        with self._lock:
            if key not in self._items:
                return default
            self._items.move_to_end(key)
            return self._items[key]

    def __setitem__(self, key, value):
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __delitem__(self, key):
        with self._lock:
            del self._items[key]

    def pop(self, key, *default):
        """Remove ``key`` and return its value (``default`` if absent, as
        dict.pop).
        """
        with self._lock:
            return self._items.pop(key, *default)

    def __iter__(self):
        with self._lock:
            return iter(list(self._items))

    def __len__(self):
        return len(self._items)


def check_backend(conf):
    """Refuse a ``[cache] backend`` that may unpickle what it reads.

    :raises nova_mini.exception.VendorDataConfigError: naming it and the
        backends to use instead.
    """
    backend = conf.cache.backend
    if backend in PICKLE_FREE_BACKENDS:
        return
    raise exception.VendorDataConfigError(
        reason='[cache] backend %s cannot hold the vendordata cache: its '
               'client may unpickle values planted in the cache, or it '
               'does not store bytes as given. Use %s for memcached, or '
               'one of: %s.' % (backend, PYMEMCACHE, ', '.join(
                   name for name in PICKLE_FREE_BACKENDS
                   if name != PYMEMCACHE)))


def make_region(conf):
    """The configured dogpile region of the vendordata cache.

    :raises nova_mini.exception.VendorDataConfigError: see check_backend.
    """
    region = dogpile_region.make_region(serializer=_serialize,
                                        deserializer=_deserialize)
    oslo_cache.configure(conf)
    if not conf.cache.enabled:
        region.configure('dogpile.cache.memory', arguments={
            'cache_dict': LRUDict(conf.api.vendordata_dynamic_cache_size)})
        return region
    check_backend(conf)
    oslo_cache.configure_cache_region(conf, region)
    backend = region.actual_backend
    if conf.cache.backend == PYMEMCACHE:
        # NOTE: dogpile's pymemcache backend reads this when it creates its
        # clients, on first use; a test checks a planted pickle is ignored.
        backend.serde = BytesOnlySerde()
    elif conf.cache.backend in IN_PROCESS_BACKENDS:
        # Their dicts would grow with every instance and request body.
        bounded = LRUDict(conf.api.vendordata_dynamic_cache_size)
        if hasattr(backend, '_cache'):
            backend._cache = bounded
        else:
            backend.cache = bounded
    return region


class JSONStore:
    """get/set/delete of JSON-able values in the region; errors are
    misses.
    """

    def __init__(self, region):
        self.region = region

    @classmethod
    def from_conf(cls, conf):
        """Build the store of the region ``[cache]`` describes (make_region).
        """
        return cls(make_region(conf))

    def get(self, key):
        """Return the value of ``key``, or None if missing or unreadable."""
        try:
            value = self.region.get(key, ignore_expiration=True)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: reading %s failed: %s', key, exc)
            return None
        return None if value is dogpile_api.NO_VALUE else value

    def set(self, key, value):
        """Store ``value`` under ``key``; a failure is logged, not raised."""
        try:
            self.region.set(key, value)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: storing %s failed: %s', key, exc)

    def delete(self, key):
        """Delete ``key``; a failure is logged, not raised."""
        try:
            self.region.delete(key)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: deleting %s failed: %s', key,
                        exc)

    @property
    def local(self):
        """True when the cache is this process's own memory."""
        return isinstance(self.region.actual_backend,
                          (dogpile_memory.MemoryBackend,
                           oslo_cache_dict.DictCacheBackend))

    @property
    def shared(self):
        """True when other processes read and write this cache."""
        return isinstance(self.region.actual_backend,
                          dogpile_memcached.GenericMemcachedBackend)

    def lock(self, key, ttl):
        """Return a lock for ``key`` that every worker sharing the cache sees.

        :param key: the entry the lock guards.
        :param ttl: the seconds after which a lock not released expires.
        :returns: a SharedLock, or None when the cache is this process's own
            (a thread lock is enough then).
        """
        if not self.shared:
            return None
        backend = self.region.actual_backend
        # NOTE: a pymemcache client built with default_noreply would answer
        # True to every add without waiting for memcached: ask for a reply.
        add_kwargs = ({'noreply': False}
                      if isinstance(backend,
                                    dogpile_memcached.PyMemcacheBackend)
                      else {})
        mangler = self.region.key_mangler or (lambda name: name)
        return SharedLock(lambda: backend.client, mangler('lock:' + key),
                          ttl, add_kwargs)


class SharedLock:
    """A lock held in memcached, seen by every worker sharing the cache.

    Taking it is memcached's ``add`` of a random token under the lock's
    key with an expiry, so a holder that dies (killed worker, lost
    connection) blocks the others for ``ttl`` seconds at most. ``release``
    deletes the key only if it still holds this holder's token: a holder
    that outlived its ``ttl`` never frees the lock of the next one
    (memcached has no conditional delete: the check and the delete are two
    commands, one round trip apart).
    """

    def __init__(self, client_fn, key, ttl, add_kwargs=None):
        self._client_fn = client_fn
        self.key = key
        self.ttl = max(1, int(math.ceil(ttl)))
        self._add_kwargs = add_kwargs or {}
        self._token = uuid.uuid4().hex.encode()
        self._strikes = 0

    def try_acquire(self):
        """Try once to take the lock.

        :returns: True if taken; False if another holder has it.
        :raises RuntimeError: the cache cannot say (refuses the lock and
            shows no holder, several times running); the caller then goes on
            without the lock.
        """
        client = self._client_fn()
        if client.add(self.key, self._token, self.ttl, **self._add_kwargs):
            self._strikes = 0
            return True
        if client.get(self.key) is not None:
            self._strikes = 0
            return False
        # Freed between the two commands, or memcached is unreachable and
        # its client reports a failed add rather than an error.
        self._strikes += 1
        if self._strikes >= _NO_HOLDER_STRIKES:
            raise RuntimeError('memcached refuses the lock %s and shows no '
                               'holder' % self.key)
        return False

    def acquire_unless(self, poll, timeout):
        """Take the lock, unless ``poll()`` returns something other than None
        first (what the holder made).

        The caller goes on without the lock when there is nothing to wait
        for any more: the holder let go without leaving anything to poll
        (its call failed, or its answer may not be kept), or ``timeout``
        seconds passed; every other waiter does so at the same time, rather
        than one after the other.

        :param poll: returns the value the holder made, or None.
        :param timeout: the most seconds to wait.
        :returns: ``(value, held)``: ``(value, False)`` if polled,
            ``(None, True)`` if taken, ``(None, False)`` otherwise.
        :raises Exception: the cache fails (as try_acquire).
        """
        deadline = time.monotonic() + timeout
        interval = _POLL_FIRST
        waited = False
        while True:
            value = poll()
            if value is not None:
                return value, False
            if self.try_acquire():
                # The holder may have finished between the poll and now.
                value = poll()
                if value is not None or waited:
                    self.release()
                    return value, False
                return None, True
            waited = True
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None, False
            time.sleep(min(interval, remaining))
            interval = min(interval * 2, _POLL_MAX)

    def release(self):
        """Free the lock if it still holds this holder's token."""
        client = self._client_fn()
        if client.get(self.key) == self._token:
            client.delete(self.key)
