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

"""A small thread-safe cache whose entries expire: what the scheduler
remembers for a few seconds (rare requests, the bounds of its walks).
"""

import collections
import threading
import time


class ExpiringCache(object):
    """At most ``size`` entries, each kept ``seconds`` after it was put;
    when full, the least recently put or read entry goes.

    :param size: the number of entries kept at most.
    :param seconds: how long an entry is kept.
    """

    def __init__(self, size, seconds):
        self.size = size
        self.seconds = seconds
        self._entries = collections.OrderedDict()   # key -> (value, until)
        self._lock = threading.Lock()

    def get(self, key, default=None):
        """The value of ``key``, or ``default`` if none or expired."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return default
            if entry[1] <= time.monotonic():
                del self._entries[key]
                return default
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key, value):
        """Keep ``value`` for ``key`` for the next ``seconds``."""
        with self._lock:
            self._entries[key] = (value, time.monotonic() + self.seconds)
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def __len__(self):
        return len(self._entries)
