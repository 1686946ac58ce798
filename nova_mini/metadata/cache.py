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

"""The rendered documents of instances, kept for a few seconds.

A document is kept under a key that holds the instance's ``updated_at``
(and the values the document is made of, for databases whose stamps
have whole seconds): every change to an instance moves that stamp, so a
changed instance asks for a new key and is never served an old document;
the old one just ages out. The instance itself is read on every request (a deleted one answers
404 at once), only the rendering is saved.

Each worker process has its own cache (a bounded LRU whose entries expire
after ``[metadata] metadata_cache_expiration`` seconds): the documents are
cheap to rebuild, and sharing them is not worth a round trip.
"""

import threading

import cachetools


class DocumentCache(object):
    """Rendered documents per instance state, for ``ttl`` seconds.

    :param ttl: seconds an entry lives; 0 keeps nothing.
    :param maxsize: most entries kept.
    """

    def __init__(self, ttl, maxsize):
        self._entries = (cachetools.TTLCache(maxsize=maxsize, ttl=ttl)
                         if ttl > 0 else None)
        # The gthread workers serve requests in several threads, and
        # cachetools' caches are not thread-safe.
        self._lock = threading.Lock()

    @classmethod
    def from_conf(cls, conf):
        """Build the cache ``[metadata]`` describes."""
        return cls(conf.metadata.metadata_cache_expiration,
                   conf.metadata.metadata_cache_size)

    def get(self, key, make):
        """Return the entry of ``key``, made with ``make()`` (outside the lock)
        if missing or expired.

        :param key: a hashable key.
        :param make: builds the entry.
        :returns: the entry.
        """
        if self._entries is None:
            return make()
        with self._lock:
            value = self._entries.get(key)
        if value is None:
            # Two threads may both make it; the documents are the same
            # but for their random seed, and either may win.
            value = make()
            with self._lock:
                self._entries[key] = value
        return value

    def __len__(self):
        if self._entries is None:
            return 0
        with self._lock:
            return len(self._entries)
