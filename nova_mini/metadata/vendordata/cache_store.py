"""Where replies of vendordata targets are kept: an oslo.cache region.

With ``[cache] enabled = true`` the region is oslo.cache's, configured by
the ``[cache]`` group (``dogpile.cache.pymemcache`` with
``memcache_servers``, so that every metadata worker and host shares one
cache). Otherwise it is an in-process ``dogpile.cache.memory`` region over
a bounded LRU mapping of ``[api] vendordata_dynamic_cache_size`` entries.

Only JSON is stored: the region serializes every entry to JSON bytes
itself, so the memcached clients store bytes as they are and never pickle
anything; and the pymemcache backend is given a codec that reads nothing
but bytes, so a value planted under one of our keys is never unpickled.
The store is an optimisation: a failure of the cache backend is logged and
taken as a miss, never as a failed request.
"""

import collections
import collections.abc
import json
import threading

from dogpile.cache import api as dogpile_api
from dogpile.cache import region as dogpile_region
import oslo_cache
from oslo_log import log as logging

LOG = logging.getLogger(__name__)

# pymemcache's flag for values stored as plain bytes (pymemcache.serde).
_FLAG_BYTES = 0


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
        with self._lock:
            return self._items.pop(key, *default)

    def __iter__(self):
        with self._lock:
            return iter(list(self._items))

    def __len__(self):
        return len(self._items)


def make_region(conf):
    """The configured dogpile region of the vendordata cache."""
    region = dogpile_region.make_region(serializer=_serialize,
                                        deserializer=_deserialize)
    oslo_cache.configure(conf)
    if conf.cache.enabled:
        oslo_cache.configure_cache_region(conf, region)
        backend = region.actual_backend
        # NOTE: dogpile's pymemcache backend reads this when it creates its
        # clients, on first use; a test checks a planted pickle is ignored.
        if hasattr(backend, 'serde'):
            backend.serde = BytesOnlySerde()
    else:
        region.configure('dogpile.cache.memory', arguments={
            'cache_dict': LRUDict(conf.api.vendordata_dynamic_cache_size)})
    return region


class JSONStore:
    """get/set/delete of JSON-able values in the region; errors are
    misses.
    """

    def __init__(self, region):
        self.region = region

    @classmethod
    def from_conf(cls, conf):
        return cls(make_region(conf))

    def get(self, key):
        try:
            value = self.region.get(key, ignore_expiration=True)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: reading %s failed: %s', key, exc)
            return None
        return None if value is dogpile_api.NO_VALUE else value

    def set(self, key, value):
        try:
            self.region.set(key, value)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: storing %s failed: %s', key, exc)

    def delete(self, key):
        try:
            self.region.delete(key)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: deleting %s failed: %s', key,
                        exc)
