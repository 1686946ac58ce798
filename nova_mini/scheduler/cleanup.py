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

"""The scheduler's periodic clean-up of what a dead scheduler left.

oslo.messaging acknowledges a cast when a scheduler takes it, before the
build runs: the builds a killed scheduler had in hand are not delivered
again. Every scheduler therefore runs, every ``[filter_scheduler]
cleanup_interval`` seconds, in a thread of its own:

1. builds not finished ``[DEFAULT] rpc_response_timeout`` seconds after
   they began are moved to ERROR with a fault (the API does the same
   when it shows them; this does it for servers nobody looks at);
2. nodes claimed by an instance that is gone, in ERROR, or on another
   node are freed (nova_mini.scheduler.orphan_claims), once they have been
   left alone for the same time.

Both steps are conditional UPDATEs, so any number of schedulers may run
them at the same moment.
"""

import threading

from oslo_log import log as logging

from nova_mini import context as nm_context
from nova_mini.objects.compute import instance_build
from nova_mini.scheduler import orphan_claims

LOG = logging.getLogger(__name__)


def run_once(context, build_timeout):
    """Expire overdue builds, then free orphan claims.

    :param context: an admin request context.
    :param build_timeout: the seconds a build may last.
    :returns: ``(builds failed, list of Orphan freed)``.
    """
    expired = instance_build.expire_overdue(context, None, build_timeout)
    if expired:
        LOG.warning('%d builds were not finished within %ds (their '
                    'scheduler stopped?): moved to ERROR', expired,
                    build_timeout)
    freed = orphan_claims.release_orphans(context, build_timeout)
    for orphan in freed:
        LOG.warning('Freed node %s, claimed by instance %s which is not on '
                    'it', orphan.node_uuid, orphan.instance_uuid)
    return expired, freed


class PeriodicCleanup(object):
    """A thread running run_once every ``interval`` seconds until stopped.

    :param interval: seconds between runs (0: never started).
    :param build_timeout: the seconds a build may last (``[DEFAULT]
        rpc_response_timeout``).
    """

    def __init__(self, interval, build_timeout):
        self.interval = interval
        self.build_timeout = build_timeout
        self._stopping = threading.Event()
        self._thread = None

    def start(self):
        """Start the thread (nothing if the interval is 0)."""
        if not self.interval:
            LOG.info('Periodic clean-up disabled ([filter_scheduler] '
                     'cleanup_interval = 0)')
            return
        self._thread = threading.Thread(target=self._run,
                                        name='scheduler-cleanup',
                                        daemon=True)
        self._thread.start()

    def stop(self, timeout=None):
        """Ask the thread to stop and wait for it (a run in progress
        finishes first).

        :param timeout: seconds to wait at most (None: no bound).
        """
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self):
        context = nm_context.get_admin_context()
        while not self._stopping.wait(self.interval):
            try:
                run_once(context, self.build_timeout)
            except Exception:
                # The database may be down for a while: try again at the
                # next run rather than end the thread.
                LOG.exception('Periodic clean-up failed; trying again in '
                              '%ds', self.interval)
