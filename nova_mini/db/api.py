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

"""The database engine facade shared by every object that persists.

Readers and writers use ``context_manager.reader`` / ``.writer`` (oslo.db
enginefacade); the facade reads [database] on first use, so importing this
module opens no connection (important before gunicorn forks).

A function decorated with ``context_manager.writer`` that opens the
transaction (no transaction of the context is under way) is run again as
a whole when the database is busy: locked, deadlocked, out of pooled
connections, disconnected (``db/retry.py``, the same for every backend;
the hook into oslo.db is ``db/enginefacade_retry.py``).
A writer called inside another transaction is not retried by itself: the
outermost writer retries the whole transaction.

A function decorated with ``autocommit`` (outside ``context_manager``'s
decorator) runs its statements each standing alone, in the database's
autocommit mode: for a transaction of one statement (a claim) or of reads
that need no common snapshot, the BEGIN and COMMIT round trips go.
"""

import functools
import inspect
import math
import threading
import time

from oslo_versionedobjects import base as ovo_base
import sqlalchemy as sa

from nova_mini.db import enginefacade_retry
from nova_mini.db import regexp
from nova_mini.db import retry
from nova_mini.db import sqlite_pool

_configured = threading.Lock()
_is_configured = False
_pool_options = {}      # [database], as configure() last saw it
_retry_policy = None    # a retry.Policy, made by configure()


class _Writing(threading.local):
    active = False      # whether this thread runs an outermost writer
    alone = False       # whether its statements stand alone (autocommit)


_writing = _Writing()


def _objects_in(values):
    for value in values:
        if isinstance(value, ovo_base.VersionedObject):
            yield value
            if isinstance(value, ovo_base.ObjectListBase):
                yield from _objects_in(value.objects)
        elif isinstance(value, (list, tuple)):
            yield from _objects_in(value)


def _object_states(args, kwargs):
    """What a retry puts back: the state of each object argument (as a
    writer such as ``Instance.create`` inside ``InstanceList.create_all``
    sets fields and clears changes of the objects it was given).
    """
    return [(obj, dict(obj.__dict__), set(obj._changed_fields))
            for obj in _objects_in(list(args) + list(kwargs.values()))]


def _restore(states):
    for obj, attributes, changed in states:
        obj.__dict__.clear()
        obj.__dict__.update(attributes)
        obj._changed_fields = set(changed)


def _outermost_writer(transaction, args, kwargs):
    previous, _writing.active = _writing.active, True
    try:
        if _retry_policy is None:
            return transaction(*args, **kwargs)
        states = _object_states(args, kwargs)
        return retry.call(_retry_policy, transaction, args, kwargs,
                          before_retry=lambda: _restore(states))
    finally:
        _writing.active = previous


context_manager = enginefacade_retry.retrying_context_manager(
    _outermost_writer)


def autocommit(fn):
    """Decorator: run ``fn``'s transaction with each statement standing
    alone (SQLite: no BEGIN; PostgreSQL: the driver's autocommit mode), when
    the context has no transaction under way; inside another transaction,
    ``fn`` is part of it as usual.

    Only for a transaction of one write (a conditional UPDATE, whose
    outcome is its row count) or of reads that need no common snapshot;
    each statement still sees what was committed before it. Put it above
    ``context_manager``'s decorator (or around a ``using`` block); the
    context is the first argument, or the second after self/cls. A reader
    that opens a server-side cursor calls ``cursor_transaction`` first.
    MariaDB keeps its transactions.
    """
    names = list(inspect.signature(fn).parameters)
    index = 1 if names and names[0] in ('self', 'cls') else 0

    @functools.wraps(fn)
    def alone(*args, **kwargs):
        context = (kwargs[names[index]] if names[index] in kwargs
                   else args[index])
        if _writing.alone or enginefacade_retry.in_transaction(context):
            return fn(*args, **kwargs)
        _writing.alone = True
        try:
            return fn(*args, **kwargs)
        finally:
            _writing.alone = False

    return alone


def cursor_transaction(context):
    """Give the reader transaction of ``context`` a real transaction before
    it opens a server-side cursor (PostgreSQL's exist only inside one),
    should ``autocommit`` have left it without: the next statement begins
    it. A no-op elsewhere.
    """
    connection = context.session.connection()
    if connection.dialect.name == 'postgresql':
        dbapi_connection = connection.connection.dbapi_connection
        if dbapi_connection.autocommit:
            dbapi_connection.autocommit = False


def _sqlite_pragmas(dbapi_conn, _record):
    # WAL lets API workers read while another process writes, and a busy
    # timeout turns lock contention into a wait instead of an error.
    cursor = dbapi_conn.cursor()
    cursor.execute('PRAGMA journal_mode=WAL')
    cursor.execute('PRAGMA busy_timeout=%d' % int(_write_wait_seconds()
                                                  * 1000))
    cursor.close()


def _sqlite_begin(connection):
    # A writer's transaction begins with BEGIN IMMEDIATE, which takes the
    # write lock first, waiting for it (busy timeout), then reads the
    # newest data. With a deferred BEGIN (oslo.db's, kept for readers) a
    # writer would read first and, when another writer committed
    # meanwhile, fail at once on its first write ("database is locked",
    # without waiting: its snapshot is stale).
    # NOTE: this replaces oslo.db's own "begin" listener (one statement
    # per transaction instead of BEGIN, ROLLBACK, BEGIN IMMEDIATE); should
    # that listener still be there and have run first, the writer's
    # transaction is begun again.
    dbapi_connection = connection.connection.dbapi_connection
    if _writing.alone:
        # autocommit(): each statement is a transaction of its own.
        pass
    elif _writing.active:
        if dbapi_connection.in_transaction:
            connection.exec_driver_sql('ROLLBACK')
        connection.exec_driver_sql('BEGIN IMMEDIATE')
    elif not dbapi_connection.in_transaction:
        connection.exec_driver_sql('BEGIN')
    # oslo.db's mark of a begun transaction, cleared at commit or
    # rollback by its listeners.
    connection.info['in_transaction'] = True


def _replace_oslo_db_begin(engine):
    for listener in list(engine.dispatch.begin):
        if getattr(listener, '__name__', None) == '_sqlite_emit_begin':
            sa.event.remove(engine, 'begin', listener)
    sa.event.listen(engine, 'begin', _sqlite_begin)


def _postgresql_begin(connection):
    # autocommit(): no BEGIN before the first statement, no COMMIT after
    # the last (psycopg2's commit and rollback send nothing then).
    if _writing.alone:
        connection.connection.dbapi_connection.autocommit = True


def _postgresql_checkin(dbapi_conn, _record):
    # The pool's connections are in a transaction by default again.
    if dbapi_conn is not None and dbapi_conn.autocommit:
        dbapi_conn.autocommit = False


# A pooled connection used less than this many seconds ago is handed out
# without the pool's ping (oslo.db turns pool_pre_ping on): a busy
# process, such as a scheduler, saves a round trip per transaction. A
# connection lost meanwhile fails its first statement as a disconnect
# (a writer runs again, a reader answers 503), and the pool reconnects.
PING_AFTER_IDLE = 1.0


def _ping_when_idle(engine):
    returned = {}       # id(DB-API connection): time it was checked in
    ping = engine.dialect.do_ping

    def do_ping(dbapi_connection):
        when = returned.pop(id(dbapi_connection), None)
        if when is not None and time.monotonic() - when < PING_AFTER_IDLE:
            return True
        return ping(dbapi_connection)

    def checkin(dbapi_connection, _record):
        if dbapi_connection is not None:
            returned[id(dbapi_connection)] = time.monotonic()

    def forget(dbapi_connection, _record):
        returned.pop(id(dbapi_connection), None)

    engine.dialect.do_ping = do_ping
    sa.event.listen(engine.pool, 'checkin', checkin)
    sa.event.listen(engine.pool, 'close', forget)
    sa.event.listen(engine.pool, 'invalidate', lambda conn, rec, exc:
                    forget(conn, rec))


def _write_wait_seconds():
    # Read when a connection opens: [database] write_wait_timeout.
    if _retry_policy is not None:
        return _retry_policy.timeout
    return _pool_options.get('write_wait_timeout') or 30.0


def _postgresql_lock_timeout(dbapi_conn, _record):
    # A statement waiting for a row lock gives up after the bound (a
    # "lock timeout" error, which db/retry.py retries until its own
    # bound) instead of waiting for ever behind a stuck transaction.
    cursor = dbapi_conn.cursor()
    cursor.execute('SET lock_timeout = %d' % int(_write_wait_seconds()
                                                 * 1000))
    cursor.close()
    dbapi_conn.commit()


def _mysql_session(dbapi_conn, _record):
    # InnoDB's error 1205 (which oslo.db makes DBDeadlock) after the
    # bound, in whole seconds, instead of its default of 50.
    cursor = dbapi_conn.cursor()
    cursor.execute('SET SESSION innodb_lock_wait_timeout = %d'
                   % max(1, math.ceil(_write_wait_seconds())))
    # Each statement sees what was committed before it, as on PostgreSQL
    # (and as the code expects: a scheduler that lost a claim reads the
    # nodes again in the same transaction), not InnoDB's default
    # REPEATABLE READ snapshot taken at the transaction's first read.
    cursor.execute('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED')
    cursor.close()


def _unreachable_is_disconnect(dialect):
    """Make ``dialect`` take a server that is down, starting or stopping
    for a lost connection (``retry.is_unreachable``), as it already does
    for a connection closed under a statement.

    Then oslo.db raises ``DBConnectionError`` for it (which writers retry
    and the API answers 503) instead of a plain ``OperationalError`` (a
    500), and SQLAlchemy drops the pool's connections, which died with
    the server: once it is back, the next checkout connects again
    (``pool_pre_ping``, on by oslo.db's default, catches those it kept).
    """
    own = dialect.is_disconnect

    def is_disconnect(e, connection, cursor):
        return own(e, connection, cursor) or retry.is_unreachable(e)

    dialect.is_disconnect = is_disconnect


def _on_engine_create(engine):
    # A failed statement's error names its SQL but not its parameters:
    # they hold what rows keep (a node's BMC password in driver_info, a
    # server's user_data), and the error's text is logged by oslo.db and
    # by the API's unexpected-error handler.
    engine.hide_parameters = True
    _ping_when_idle(engine)
    if engine.dialect.name == 'sqlite':
        sa.event.listen(engine, 'connect', _sqlite_pragmas)
        sa.event.listen(engine, 'connect', regexp.sqlite_regexp)
        _replace_oslo_db_begin(engine)
        sqlite_pool.pool_file_connections(engine, _pool_options)
    elif engine.dialect.name in ('postgresql', 'mysql'):
        _unreachable_is_disconnect(engine.dialect)
        sa.event.listen(engine, 'connect',
                        _postgresql_lock_timeout
                        if engine.dialect.name == 'postgresql'
                        else _mysql_session)
        if engine.dialect.name == 'postgresql':
            sa.event.listen(engine, 'begin', _postgresql_begin)
            sa.event.listen(engine.pool, 'checkin', _postgresql_checkin)
        # oslo.db tried a connection before this hook, which the pool
        # keeps: without it, every connection passes the listener.
        engine.pool.dispose()


def configure(conf):
    """Point the facade at [database]; once per process, before first use.

    The facade reads every [database] option itself, from oslo.config's
    global ``CONF`` (which ``nova_mini.conf.CONF`` is), when it starts;
    only what is not an option is configured here.

    :param conf: the configuration (``nova_mini.conf.CONF``).
    """
    global _is_configured, _retry_policy
    with _configured:
        if _is_configured:
            return
        _pool_options.update(conf.database.items())
        _retry_policy = retry.Policy(conf)
        # thread_checkin (a sleep(0) after each transaction) only helps
        # eventlet; with real threads it is a needless GIL hand-off.
        context_manager.configure(sqlite_fk=True, thread_checkin=False)
        context_manager.append_on_engine_create(_on_engine_create)
        _is_configured = True


def get_engine():
    """Return the writer engine of the facade (opened on first use)."""
    return context_manager.writer.get_engine()
