"""The database engine facade shared by every object that persists.

Readers and writers use ``context_manager.reader`` / ``.writer`` (oslo.db
enginefacade); the facade reads [database] on first use, so importing this
module opens no connection (important before gunicorn forks).
"""

import threading

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

context_manager = enginefacade.transaction_context()
_configured = threading.Lock()
_is_configured = False


def _sqlite_pragmas(dbapi_conn, _record):
    # WAL lets API workers read while another process writes, and a busy
    # timeout turns lock contention into a wait instead of an error.
    cursor = dbapi_conn.cursor()
    cursor.execute('PRAGMA journal_mode=WAL')
    cursor.execute('PRAGMA busy_timeout=30000')
    cursor.close()


def _on_engine_create(engine):
    if engine.dialect.name == 'sqlite':
        sa.event.listen(engine, 'connect', _sqlite_pragmas)


def configure(conf):
    """Point the facade at [database]; once per process, before first use."""
    global _is_configured
    with _configured:
        if _is_configured:
            return
        options = dict(conf.database.items())
        context_manager.configure(sqlite_fk=True, **_known(options))
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
