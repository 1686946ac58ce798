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

"""The heartbeat of a service (nova-mini-api, nova-mini-conductor) in the
conductors registry
(nova_mini.objects.baremetal.conductor): registered when the service is ready,
refreshed every ``[conductor] heartbeat_interval`` seconds by a daemon
thread, marked offline when it stops cleanly.

It runs in the service's master process, which serves no request: it
opens its own database connection for each beat (no pool), so that the
workers forked from the master inherit none (each builds its own
database engine). On SQLite each of its transactions takes the write
lock when it begins (``BEGIN IMMEDIATE``, waiting up to ``[database]
write_wait_timeout`` for it), as the services' writers do (see
nova_mini.db.api): a transaction that read first and then wrote would
fail at once with "database is locked" when another service registered
meanwhile (two services starting together).
"""

import functools
import threading

from oslo_config import cfg
from oslo_log import log as logging
import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy import pool

from nova_mini import conf
from nova_mini.db import retry
from nova_mini.objects.baremetal import conductor

LOG = logging.getLogger(__name__)


def _sqlite_write_transactions(engine):
    """Make each transaction of the SQLite ``engine`` begin with ``BEGIN
    IMMEDIATE`` (pysqlite's own implicit BEGIN, deferred and issued only
    before the first write, turned off), its statements waiting for a
    busy database up to ``[database] write_wait_timeout`` seconds.
    """
    try:
        timeout = conf.CONF.database.write_wait_timeout
    except cfg.NoSuchOptError:
        # (Its default, where the option is not registered.)
        timeout = 30.0

    def connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute('PRAGMA busy_timeout=%d' % int(timeout * 1000))
        cursor.close()

    def begin(connection):
        connection.exec_driver_sql('BEGIN IMMEDIATE')

    sa.event.listen(engine, 'connect', connect)
    sa.event.listen(engine, 'begin', begin)


def engine_for(connection):
    """Return the engine of the heartbeat of the database URL
    ``connection``: no pool, and on SQLite transactions that write (see
    _sqlite_write_transactions).
    """
    engine = sa.create_engine(connection, poolclass=pool.NullPool)
    if engine.dialect.name == 'sqlite':
        _sqlite_write_transactions(engine)
    return engine


# Runs of a heartbeat transaction that deadlocked (MariaDB, MySQL,
# PostgreSQL: the database rolled it back whole), in all; after a short
# pause with jitter, so that the two transactions do not meet again.
# Deadlocks only (retry.is_deadlock), not every busy database
# (retry.is_busy): on SQLite each transaction already waited
# ``[database] write_wait_timeout`` for the lock before "database is
# locked", and a database out of reach would only hold a service's
# start-up longer; the next beat tries again anyway. Fixed values:
# ``[database]``'s may not be registered where this runs.
DEADLOCK_ATTEMPTS = 5
_DEADLOCK_RETRY = retry.Policy.fixed(
    interval=0.02, max_interval=0.2, max_retries=DEADLOCK_ATTEMPTS - 1)


class Heartbeat(object):
    """Keep ``hostname`` alive in the conductors registry.

    :param connection: the database URL (``[database] connection``).
    :param hostname: the host registered (``[DEFAULT] host``).
    :param interval: seconds between two refreshes.
    :param mark_offline: whether ``stop`` marks the host offline (not
        when several independent processes refresh the same host).
    :param drivers: the hardware types registered (None: those of
        nova-mini-api, conductor.api_drivers()); ``stop`` withdraws only
        these while another process of the host keeps others. A host
        whose row is alive for the other kind of service (nova-mini-api,
        nova-mini-conductor) is refused: ``start`` raises
        ConductorAlreadyRegistered, ``beat`` leaves the row as it is.
    """

    def __init__(self, connection, hostname, interval, mark_offline=True,
                 drivers=None):
        self.hostname = hostname
        self.interval = interval
        self.mark_offline = mark_offline
        self.drivers = list(conductor.api_drivers() if drivers is None
                            else drivers)
        self._engine = engine_for(connection)
        self._stopped = threading.Event()
        self._thread = None

    def _transaction(self, action):
        retry.call(_DEADLOCK_RETRY, self._attempt, (action,),
                   retry_if=retry.is_deadlock, answer_busy=False)

    def _attempt(self, action):
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
            self._transaction(functools.partial(
                conductor.register, drivers=self.drivers))
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
            self._transaction(functools.partial(
                conductor.heartbeat, drivers=self.drivers))
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
            self._transaction(functools.partial(
                conductor.unregister, drivers=self.drivers))
        except Exception as exc:
            LOG.warning('Could not mark conductor %s offline: %s',
                        self.hostname, exc)
        else:
            LOG.info('Conductor %s is offline', self.hostname)
        self._engine.dispose()
