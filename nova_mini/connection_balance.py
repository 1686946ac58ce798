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

"""Open connections per worker process, shared by the workers of one
server, so that new connections go to the least loaded worker.

Every worker of the embedded WSGI server waits on the same listening
socket, and the kernel wakes them all for a new client: whichever runs
first takes it. Clients that keep their connection alive (a load
balancer, a benchmark, the OpenStack clients' sessions) then stay on the
worker that happened to be awake, and a split of 7 connections to 1 over
2 workers leaves one process (one GIL) doing the work of both. Here each
worker publishes how many connections it holds; a worker that holds more
than another live worker lets that one take the new client, for a few
milliseconds at most, then takes it itself (a busy peer never leaves a
client waiting longer than that).
"""

import multiprocessing
import os
import time

# How long a worker lets the less loaded ones take a waiting client, and
# how long it sleeps between looks.
YIELD_FOR = 0.02
YIELD_STEP = 0.001
# Looks further apart than this belong to different clients.
_EPISODE_GAP = 0.005


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ConnectionLoad(object):
    """Slots in shared memory, one per worker process: its pid and its
    number of open connections. Made in the master before any fork.

    :param slots: how many workers may run at once (replacements of a
        dead worker included).
    """

    def __init__(self, slots):
        self._pids = multiprocessing.RawArray('i', slots)
        self._conns = multiprocessing.RawArray('i', slots)

    def free_slot(self, used):
        """The first slot not in ``used`` (those of live workers), or None
        when every slot is taken (that worker then accepts as gunicorn
        does).
        """
        for slot in range(len(self._pids)):
            if slot not in used:
                self._pids[slot] = 0
                self._conns[slot] = 0
                return slot
        return None

    def claim(self, slot, pid):
        """Called in the worker once forked."""
        self._conns[slot] = 0
        self._pids[slot] = pid

    def publish(self, slot, conns):
        self._conns[slot] = conns

    def least_other(self, slot):
        """The fewest connections of another live worker, or None."""
        least = None
        for other in range(len(self._pids)):
            pid = self._pids[other]
            if other == slot or pid == 0:
                continue
            conns = self._conns[other]
            if least is not None and conns >= least:
                continue
            if _alive(pid):
                least = conns
        return least


class Yielder(object):
    """A worker's decision to let another take a waiting client.

    :param load: the server's ConnectionLoad.
    :param slot: the worker's slot.
    :param clock: a monotonic clock (tests give their own).
    """

    def __init__(self, load, slot, clock=time.monotonic):
        self.load = load
        self.slot = slot
        self._clock = clock
        self._since = None
        self._last = None

    def should_yield(self, conns):
        """True when the worker holding ``conns`` connections should leave
        the waiting client to a less loaded one for now.
        """
        least = self.load.least_other(self.slot)
        if least is None or conns <= least:
            return False
        now = self._clock()
        if self._last is None or now - self._last > _EPISODE_GAP:
            self._since = now
        if now - self._since >= YIELD_FOR:
            self._last = None
            return False
        self._last = now
        return True
