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

"""A nova-mini-conductor's worker pool: the hardware operations it runs at
once, at most [conductor] workers_pool_size (Ironic's option).

A request first takes a slot (``slot()``), so that a full pool refuses it
(503 NoFreeConductorWorker) before anything is written; the work then
runs on the slot's thread (run()). A stopping conductor takes no new
work and waits, bounded, for the work in progress.
"""

from concurrent import futures
import threading

from oslo_log import log as logging

from nova_mini import exception_baremetal

LOG = logging.getLogger(__name__)


class Slot(object):
    """A place in the pool, taken by WorkerPool.slot: given to run,
    or given back with cancel (the request failed before its work
    started).
    """

    def __init__(self, pool):
        self._pool = pool
        self.used = False

    def cancel(self):
        """Give the place back (once; nothing if it ran)."""
        if not self.used:
            self.used = True
            self._pool._free()


class WorkerPool(object):
    """At most size operations at once, each on its own thread.

    :param size: [conductor] workers_pool_size.
    :param host: the conductor's host (for its errors).
    """

    def __init__(self, size, host):
        self.size = size
        self.host = host
        self._slots = threading.BoundedSemaphore(size)
        self._executor = futures.ThreadPoolExecutor(
            max_workers=size, thread_name_prefix='conductor-worker')
        self._lock = threading.Lock()
        self._running = set()
        self._stopping = False

    def slot(self):
        """Take a place for one operation.

        :raises nova_mini.exception_baremetal.NoFreeConductorWorker: all
            taken.
        :raises nova_mini.exception_baremetal.ConductorShuttingDown: the
            conductor is stopping.
        """
        if self._stopping:
            raise exception_baremetal.ConductorShuttingDown(
                host=self.host,
                retry_after=exception_baremetal.NO_FREE_WORKER_RETRY_AFTER)
        if not self._slots.acquire(blocking=False):
            raise exception_baremetal.NoFreeConductorWorker()
        return Slot(self)

    def _free(self):
        self._slots.release()

    def run(self, slot, function, *args):
        """Run function(*args) on the thread of slot; what it
        raises is logged (it records its own outcome).

        :returns: a concurrent.futures.Future.
        """
        slot.used = True

        def work():
            try:
                return function(*args)
            except Exception:
                LOG.exception('Conductor operation %s failed',
                              getattr(function, '__name__', function))
            finally:
                self._free()

        with self._lock:
            future = self._executor.submit(work)
            self._running.add(future)
        future.add_done_callback(self._done)
        return future

    def _done(self, future):
        with self._lock:
            self._running.discard(future)

    @property
    def in_progress(self):
        """How many operations run now."""
        with self._lock:
            return len(self._running)

    def stop(self):
        """Take no more work (slot raises ConductorShuttingDown)."""
        self._stopping = True

    def wait(self, timeout=None):
        """Wait for the operations in progress, at most timeout
        seconds (None: no bound).

        :returns: whether they all ended.
        """
        with self._lock:
            running = list(self._running)
        done, not_done = futures.wait(running, timeout=timeout)
        return not not_done

    def shutdown(self):
        """Free the threads of ended operations (running ones go on)."""
        self._executor.shutdown(wait=False)
