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

"""The thread of a conductor's periodic pass (the power state sync, the
sensor data): ``run_once()`` every ``interval`` seconds, the first one
interval after the start, until stopped; a pass that raises is logged and
the next one runs all the same.
"""

import threading

from oslo_log import log as logging

LOG = logging.getLogger(__name__)


class Periodic(object):
    """The base of a periodic pass run on a daemon thread.

    A subclass gives ``run_once()`` (one pass) and may name its thread
    (``_THREAD_NAME``), the logger (``_LOG``: its module's) and the message
    (``_FAILED``) of a pass that raised. Its passes may watch ``_stopped``
    (set by stop) to begin no more work once stopping.
    """

    _THREAD_NAME = 'conductor-periodic'
    _LOG = LOG
    _FAILED = 'Periodic pass failed'

    def __init__(self):
        self._stopped = threading.Event()
        self._thread = None

    def run_once(self):
        raise NotImplementedError()

    def _start(self, interval):
        """Run a pass every ``interval`` seconds on a new daemon thread."""
        self._stopped.clear()
        self._thread = threading.Thread(
            target=self._run, args=(interval,), daemon=True,
            name=self._THREAD_NAME)
        self._thread.start()

    def _run(self, interval):
        while not self._stopped.wait(interval):
            try:
                self.run_once()
            except Exception:
                self._LOG.exception(self._FAILED)

    def _join(self, timeout):
        """Wait at most ``timeout`` seconds (None: no bound) for the
        thread, if any, to end, and forget it.

        :returns: whether it ended (True without a thread).
        """
        if self._thread is None:
            return True
        self._thread.join(timeout)
        ended = not self._thread.is_alive()
        self._thread = None
        return ended

    def stop(self, timeout=None):
        """Stop: no pass begins after this, and the pass in progress, if
        any, is waited for at most ``timeout`` seconds (None: no bound).

        :returns: whether it ended.
        """
        self._stopped.set()
        return self._join(timeout)
