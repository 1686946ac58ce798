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

"""Write transactions that wait for a busy database instead of failing.

Every database answers a writer that cannot have its locks in its own
words: SQLite ``database is locked`` (a plain ``OperationalError``, which
oslo.db passes through untranslated), PostgreSQL ``deadlock detected``
(oslo.db's ``DBDeadlock``) or ``could not serialize access``, MySQL and
MariaDB errors 1213 and 1205 (``DBDeadlock``), a pool with no free
connection in time, a connection lost (``DBConnectionError``). Each is
transient: the whole transaction is run again, after a pause that grows
(``[database] write_retry_interval`` .. ``write_max_retry_interval``,
doubling if ``db_inc_retry_interval``, with jitter), at most
``db_max_retries`` times and for at most ``write_wait_timeout`` seconds.
Past either bound the caller gets ``DatabaseBusy`` (``DatabaseUnavailable``
when the database could not be reached at all), which the API answers
with 503 and ``Retry-After``.

A database that is down or restarting is met first when a connection is
opened: PostgreSQL's driver then says ``Connection refused``, ``the
database system is shutting down``, ``... is starting up`` or, in the
instant a server starts or stops, ``Connection reset by peer``, which
neither SQLAlchemy nor oslo.db takes for a lost connection (oslo.db
passes them on as plain ``OperationalError``). ``is_unreachable`` knows them;
``db/api.py`` adds it to each engine's dialect, so that oslo.db raises
``DBConnectionError`` for them and the pool drops its connections, as for
any other lost connection.

``call`` is the one retry loop of a transaction. Code that may run where
``[database]`` is not registered gives its own bounds (``Policy.fixed``),
and may retry fewer errors (``retry_if``, e.g. ``is_deadlock``) and get
the last error rather than ``DatabaseBusy`` (the conductor heartbeat).
"""

import math
import random
import re
import time
import types

from oslo_db import exception as db_exc
from oslo_log import log as logging
import sqlalchemy.exc as sa_exc

from nova_mini import exception

LOG = logging.getLogger(__name__)

# Lock and snapshot errors that oslo.db leaves as OperationalError (or
# wraps in DBError): SQLite's busy and locked codes, PostgreSQL's
# serialization failure and lock timeout.
_BUSY_MESSAGES = re.compile(
    r'database is locked|database table is locked|database is busy|'
    r'could not serialize access|lock timeout|deadlock', re.IGNORECASE)


# A database server that is down, starting or stopping, or a connection
# it closed: the messages of libpq (psycopg2) and of MySQL/MariaDB
# (PyMySQL), in the driver's exception.
_UNREACHABLE_MESSAGES = re.compile(
    r'connection refused|could not connect to server|timeout expired|'
    r'connection reset by peer|broken pipe|connection timed out|'
    r'could not (?:receive|send) data (?:from|to) server|'
    r'no route to host|network is unreachable|'
    r'could not translate host name|'
    r'server closed the connection unexpectedly|terminating connection|'
    r'the database system is (?:starting up|shutting down|in recovery|'
    r'not yet accepting connections)|no connection to the server|'
    r'connection already closed|'
    r"can't connect to (?:local )?(?:mysql|mariadb) server|"
    r'lost connection to (?:mysql|mariadb) server|'
    r'(?:mysql|mariadb) server has gone away|server shutdown in progress',
    re.IGNORECASE)

# MySQL/MariaDB client and server error numbers of the same: cannot
# connect (2002, 2003), gone away (2006), lost (2013), server shutting
# down (1053), connection killed (1927).
_UNREACHABLE_MYSQL_ERRORS = frozenset((1053, 1927, 2002, 2003, 2006, 2013))


# A deadlock, which the database broke by rolling one transaction back
# whole: MySQL/MariaDB error 1213 (ER_LOCK_DEADLOCK), PostgreSQL SQLSTATE
# 40P01 (psycopg's ``sqlstate``, psycopg2's ``pgcode``).
_MYSQL_DEADLOCK = 1213
_POSTGRESQL_DEADLOCK = '40P01'


# What a request meets when the database is away, or busy for longer than
# the configured bound (the API answers both 503).
UNAVAILABLE = (exception.DatabaseBusy, db_exc.DBConnectionError)


def _driver_error(exc):
    """The driver's exception behind ``exc`` (an oslo.db or SQLAlchemy
    wrapper), or ``exc`` itself.
    """
    if isinstance(exc, db_exc.DBError) and exc.inner_exception is not None:
        exc = exc.inner_exception
    if isinstance(exc, sa_exc.DBAPIError) and exc.orig is not None:
        exc = exc.orig
    return exc


def is_unreachable(exc):
    """Tell whether ``exc`` says that the database server cannot be
    reached: down, starting, stopping, or the connection lost.

    :param exc: an exception of a driver (psycopg2, PyMySQL, sqlite3), or
        SQLAlchemy's or oslo.db's wrapping one.
    :returns: True if the connection, not the statement, failed.
    """
    if isinstance(exc, db_exc.DBConnectionError):
        return True
    if isinstance(exc, sa_exc.DBAPIError) and exc.connection_invalidated:
        return True
    error = _driver_error(exc)
    args = getattr(error, 'args', ())
    if args and isinstance(args[0], int):
        if args[0] in _UNREACHABLE_MYSQL_ERRORS:
            return True
    # Only the driver's own errors are read: a statement's text (in
    # SQLAlchemy's message) could hold any words.
    # (psycopg2 raises subclasses named after the SQLSTATE, such as
    # AdminShutdown.)
    if not any(cls.__name__ in ('OperationalError', 'InterfaceError')
               for cls in type(error).__mro__):
        return False
    return bool(_UNREACHABLE_MESSAGES.search(str(error)))


def is_busy(exc):
    """Tell whether ``exc`` is a transient lock, deadlock, pool or
    connection error of any backend, after which the whole transaction
    may run again.

    :param exc: an exception raised by a transaction.
    :returns: True if a retry may succeed.
    """
    if isinstance(exc, db_exc.DBDeadlock) or is_unreachable(exc):
        return True
    if isinstance(exc, sa_exc.TimeoutError):
        # QueuePool: no connection free within pool_timeout.
        return True
    if isinstance(exc, db_exc.DBError) and not isinstance(
            exc, (db_exc.DBDuplicateEntry, db_exc.DBReferenceError,
                  db_exc.DBConstraintError, db_exc.DBDataError)):
        exc = exc.inner_exception or exc
    if isinstance(exc, sa_exc.OperationalError):
        return bool(_BUSY_MESSAGES.search(str(exc.orig or exc)))
    return False


def is_deadlock(exc):
    """Tell whether ``exc`` is a deadlock of MySQL, MariaDB or PostgreSQL:
    the database rolled the whole transaction back, and running it again
    may succeed. Narrower than ``is_busy``: not a lock wait that timed
    out, not SQLite's busy database, not a lost connection.

    :param exc: an exception raised by a transaction (oslo.db's,
        SQLAlchemy's or the driver's).
    :returns: True for a deadlock.
    """
    if isinstance(exc, db_exc.DBDeadlock):
        return True
    error = _driver_error(exc)
    args = getattr(error, 'args', ())
    if args and args[0] == _MYSQL_DEADLOCK:
        return True
    sqlstate = (getattr(error, 'sqlstate', None)
                or getattr(error, 'pgcode', None))
    return sqlstate == _POSTGRESQL_DEADLOCK


class Policy(object):
    """How long and how often a writer waits: ``[database]``, read at each
    use (so that a changed option applies at once).

    :param conf: the configuration (``nova_mini.conf.CONF``).
    """

    def __init__(self, conf):
        self._group = conf.database

    @property
    def interval(self):
        return self._group.write_retry_interval

    @property
    def increase(self):
        return self._group.db_inc_retry_interval

    @property
    def max_interval(self):
        return self._group.write_max_retry_interval

    @property
    def max_retries(self):
        return self._group.db_max_retries

    @property
    def timeout(self):
        return self._group.write_wait_timeout

    @classmethod
    def fixed(cls, interval, max_retries, max_interval=None, increase=True,
              timeout=math.inf):
        """A policy of the values given rather than of ``[database]``,
        for code that may run where those options are not registered
        (nova_mini.conductor_heartbeat).

        :param interval: the first pause, in seconds.
        :param max_retries: runs after the first (-1: no bound).
        :param max_interval: the longest pause (default ``interval``).
        :param increase: whether each pause doubles, up to
            ``max_interval``.
        :param timeout: seconds after which no retry starts (default no
            bound: ``max_retries`` alone bounds the retries).
        """
        group = types.SimpleNamespace(
            write_retry_interval=interval,
            db_inc_retry_interval=increase,
            write_max_retry_interval=(interval if max_interval is None
                                      else max_interval),
            db_max_retries=max_retries,
            write_wait_timeout=timeout)
        return cls(types.SimpleNamespace(database=group))

    def retry_after(self):
        """Seconds a client should wait before sending the write again."""
        return max(1, int(round(min(self.timeout, 10))))


def call(policy, function, args=(), kwargs=None, before_retry=None,
         retry_if=is_busy, answer_busy=True):
    """Call ``function`` (one whole transaction) until it does not fail
    with a transient database error, within ``policy``'s bounds.

    :param policy: a Policy.
    :param function: the transaction; called again from the start.
    :param args: its positional arguments.
    :param kwargs: its keyword arguments.
    :param before_retry: called (without arguments) before each retry,
        e.g. to put back what the failed attempt changed in memory.
    :param retry_if: tells whether an exception of ``function`` is
        transient (default ``is_busy``; ``is_deadlock`` retries deadlocks
        only).
    :param answer_busy: whether the bounds reached raise DatabaseBusy
        (for the API's 503 and ``Retry-After``); if not, the last error
        is raised as it is.
    :returns: what ``function`` returns.
    :raises nova_mini.exception.DatabaseBusy: when the bounds are reached
        (DatabaseUnavailable if the database could not be reached), if
        ``answer_busy``.
    :raises: any other exception of ``function`` as it is.
    """
    start = time.monotonic()
    interval = policy.interval
    timeout = policy.timeout
    max_retries = policy.max_retries
    attempt = 0
    kwargs = kwargs or {}
    while True:
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            if not retry_if(exc):
                raise
            attempt += 1
            waited = time.monotonic() - start
            pause = random.uniform(interval / 2, interval)
            exhausted = (0 <= max_retries < attempt
                         or waited + pause > timeout)
            if exhausted:
                LOG.warning('%s: the database stayed busy for %.1f s '
                            '(%d attempts); %s: %s',
                            getattr(function, '__qualname__', function),
                            waited, attempt,
                            'answering busy' if answer_busy else 'giving up',
                            exc)
                if not answer_busy:
                    raise
                busy = (exception.DatabaseUnavailable if is_unreachable(exc)
                        else exception.DatabaseBusy)
                raise busy(waited=waited,
                           retry_after=policy.retry_after()) from exc
            LOG.debug('%s: database busy (%s), attempt %d, again in '
                      '%.3f s', getattr(function, '__qualname__', function),
                      exc, attempt, pause)
            time.sleep(pause)
            if before_retry is not None:
                before_retry()
            if policy.increase:
                interval = min(interval * 2, policy.max_interval)
