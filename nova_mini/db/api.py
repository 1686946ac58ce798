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
"""

import re
import threading

from oslo_db.sqlalchemy import enginefacade
import sqlalchemy as sa

from nova_mini.db import sqlite_pool

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
        sqlite_pool.pool_file_connections(engine, _pool_options)


def configure(conf):
    """Point the facade at [database]; once per process, before first use.

    The facade reads every [database] option itself, from oslo.config's
    global ``CONF`` (which ``nova_mini.conf.CONF`` is), when it starts;
    only what is not an option is configured here.

    :param conf: the configuration (``nova_mini.conf.CONF``).
    """
    global _is_configured
    with _configured:
        if _is_configured:
            return
        _pool_options.update(conf.database.items())
        # thread_checkin (a sleep(0) after each transaction) only helps
        # eventlet; with real threads it is a needless GIL hand-off.
        context_manager.configure(sqlite_fk=True, thread_checkin=False)
        context_manager.append_on_engine_create(_on_engine_create)
        _is_configured = True


def get_engine():
    """Return the writer engine of the facade (opened on first use)."""
    return context_manager.writer.get_engine()
