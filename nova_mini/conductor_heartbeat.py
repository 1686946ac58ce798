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

"""The heartbeat of a nova-mini-api service in the conductors registry
(nova_mini.objects.baremetal.conductor): registered when the service is ready,
refreshed every ``[conductor] heartbeat_interval`` seconds by a daemon
thread, marked offline when it stops cleanly.

It runs in the service's master process, which serves no request: it
opens its own database connection for each beat (no pool), so that the
workers forked from the master inherit none (each builds its own
database engine).
"""

import threading

from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy import pool

from nova_mini.objects.baremetal import conductor

LOG = logging.getLogger(__name__)


class Heartbeat(object):
    """Keep ``hostname`` alive in the conductors registry.

    :param connection: the database URL (``[database] connection``).
    :param hostname: the host registered (``[DEFAULT] host``).
    :param interval: seconds between two refreshes.
    :param mark_offline: whether ``stop`` marks the host offline (not
        when several independent processes refresh the same host).
    """

    def __init__(self, connection, hostname, interval, mark_offline=True):
        self.hostname = hostname
        self.interval = interval
        self.mark_offline = mark_offline
        self._engine = sa.create_engine(connection, poolclass=pool.NullPool)
        self._stopped = threading.Event()
        self._thread = None

    def _transaction(self, action):
        with orm.Session(self._engine) as session, session.begin():
            action(session, self.hostname)

    def start(self, required=True):
        """Register the host and start refreshing it.

        :param required: whether a failed registration is raised; if not,
            it is logged and the next beat registers the host.
        :raises Exception: the database refused the registration (the
            service cannot say where it runs), if ``required``.
        """
        try:
            self._transaction(conductor.register)
        except Exception as exc:
            if required:
                raise
            LOG.warning('Could not register conductor %s (the next '
                        'heartbeat will): %s', self.hostname, exc)
        else:
            LOG.info('Registered conductor %s; refreshed every %d seconds',
                     self.hostname, self.interval)
        self._stopped.clear()
        self._thread = threading.Thread(
            target=self._run, name='conductor-heartbeat', daemon=True)
        self._thread.start()

    def beat(self):
        """Refresh the host's row once; a failure is logged, not raised
        (the next beat tries again).

        :returns: whether the row was refreshed.
        """
        try:
            self._transaction(conductor.heartbeat)
        except Exception as exc:
            LOG.warning('Could not refresh conductor %s: %s',
                        self.hostname, exc)
            return False
        return True

    def _run(self):
        while not self._stopped.wait(self.interval):
            self.beat()

    def stop(self):
        """Stop refreshing and mark the host offline (logged if the
        database cannot be reached: the row then stops being alive when
        its heartbeat times out).
        """
        self._stopped.set()
        if self._thread is not None:
            self._thread.join(self.interval + 5)
            self._thread = None
        if not self.mark_offline:
            self._engine.dispose()
            return
        try:
            self._transaction(conductor.unregister)
        except Exception as exc:
            LOG.warning('Could not mark conductor %s offline: %s',
                        self.hostname, exc)
        else:
            LOG.info('Conductor %s is offline', self.hostname)
        self._engine.dispose()
