"""The database engine facade shared by every object that persists.

Readers and writers use ``context_manager.reader`` / ``.writer`` (oslo.db
enginefacade); the facade reads [database] on first use, so importing this
module opens no connection (important before gunicorn forks).
"""

import re
import threading

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

context_manager = enginefacade.transaction_context()
_configured = threading.Lock()
_is_configured = False
_pool_options = {}      # [database], as configure() last saw it


def _sqlite_pragmas(dbapi_conn, _record):
    # WAL lets API workers read while another process writes, and a busy
    # timeout turns lock contention into a wait instead of an error.
    cursor = dbapi_conn.cursor()
    cursor.execute('PRAGMA journal_mode=WAL')
    cursor.execute('PRAGMA busy_timeout=30000')
    cursor.close()


def _sqlite_regexp(dbapi_conn, _record):
    # NOTE: oslo.db's REGEXP matches NULL as the text 'None'; server list
    # filters (objects/instance_filters.py) need NULL to match nothing,
    # as in the other databases. Python's re caches compiled patterns.
    def regexp(pattern, value):
        return None if value is None else (
            re.search(pattern, value) is not None)
    dbapi_conn.create_function('regexp', 2, regexp, deterministic=True)


def _on_engine_create(engine):
    if engine.dialect.name == 'sqlite':
        sa.event.listen(engine, 'connect', _sqlite_pragmas)
        sa.event.listen(engine, 'connect', _sqlite_regexp)
        _pool_sqlite_file(engine)


def _pool_sqlite_file(engine):
    """Keep SQLite file connections in a pool, as for the other backends.

    oslo.db gives SQLite files a NullPool, so every transaction opened a
    new connection (open, the pragmas above, close): about a third of the
    database time of a simple API request. The same pool sizes as the
    other backends apply ([database] max_pool_size, max_overflow,
    pool_timeout). The listeners registered so far (pragmas, oslo.db's)
    move to the new pool with the pool's dispatch.
    """
    old = engine.pool
    if not isinstance(old, sa.pool.NullPool):
        return      # :memory: databases keep oslo.db's StaticPool
    options = _pool_options
    engine.pool = sa.pool.QueuePool(
        old._creator,
        pool_size=_option(options, 'max_pool_size', 5),
        max_overflow=_option(options, 'max_overflow', 10),
        timeout=_option(options, 'pool_timeout', 30),
        recycle=old._recycle, echo=old.echo,
        logging_name=old._orig_logging_name,
        reset_on_return=old._reset_on_return,
        _dispatch=old.dispatch, dialect=old._dialect)
    old.dispose()


def _option(options, name, default):
    value = options.get(name)
    return default if value is None else value


def configure(conf):
    """Point the facade at [database]; once per process, before first use."""
    global _is_configured
    with _configured:
        if _is_configured:
            return
        options = dict(conf.database.items())
        _pool_options.update(options)
        # thread_checkin (a sleep(0) after each transaction) only helps
        # eventlet; with real threads it is a needless GIL hand-off.
        context_manager.configure(sqlite_fk=True, thread_checkin=False,
                                  **_known(options))
        context_manager.append_on_engine_create(_on_engine_create)
        _is_configured = True


def _known(options):
    # [database] also holds options the facade does not take (backend,
    # asyncio_*); passing them would only log warnings.
    factory = enginefacade._TransactionFactory()
    accepted = (set(factory._facade_cfg) | set(factory._engine_cfg) |
                set(factory._maker_cfg) | set(factory._transaction_ctx_cfg) |
                set(factory._url_cfg))
    return {k: v for k, v in options.items() if k in accepted}


def get_engine():
    return context_manager.writer.get_engine()
