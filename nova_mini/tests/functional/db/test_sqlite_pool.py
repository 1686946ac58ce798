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

"""The SQLite pool is built from SQLAlchemy's private parts (see
nova_mini/db/sqlite_pool.py): these tests fail loudly when SQLAlchemy or
oslo.db change what it relies on.
"""

import os
import threading

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import enginefacade
import pytest
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import sqlite_pool


@pytest.fixture
def engine(tmp_path):
    """An engine as the daemons get it: oslo.db's, with db/api.py's hook."""
    manager = enginefacade.transaction_context()
    manager.configure(
        connection='sqlite:///%s' % os.path.join(tmp_path, 'pool.sqlite'),
        sqlite_fk=True)
    manager.append_on_engine_create(db_api._on_engine_create)
    engine = manager.writer.get_engine()
    yield engine
    engine.dispose()


def test_oslo_db_still_gives_sqlite_files_a_null_pool(tmp_path):
    # If this fails, oslo.db pools SQLite files itself (or picks another
    # pool): sqlite_pool.py may no longer be needed.
    manager = enginefacade.transaction_context()
    manager.configure(connection='sqlite:///%s' % os.path.join(
        tmp_path, 'plain.sqlite'))
    engine = manager.writer.get_engine()
    try:
        assert type(engine.pool) is sa.pool.NullPool
    finally:
        engine.dispose()


def test_the_private_attributes_used_are_still_there(tmp_path):
    pool = sa.create_engine('sqlite:///%s' % os.path.join(
        tmp_path, 'attrs.sqlite'), poolclass=sa.pool.NullPool).pool
    for name in ('_creator', '_recycle', '_orig_logging_name',
                 '_reset_on_return', '_dialect', 'dispatch', 'echo'):
        assert hasattr(pool, name), (
            'sqlalchemy.pool.Pool has no %s any more: update '
            'nova_mini/db/sqlite_pool.py' % name)
    assert callable(pool._creator)


def test_the_engine_gets_a_queue_pool_sized_by_the_options(engine):
    assert type(engine.pool) is sa.pool.QueuePool
    assert engine.pool.size() == sqlite_pool.DEFAULTS['max_pool_size']
    assert engine.pool.timeout() == sqlite_pool.DEFAULTS['pool_timeout']


def test_options_size_the_pool(tmp_path):
    engine = sa.create_engine('sqlite:///%s' % os.path.join(
        tmp_path, 'sized.sqlite'), poolclass=sa.pool.NullPool)
    assert sqlite_pool.pool_file_connections(
        engine, {'max_pool_size': 3, 'max_overflow': 1, 'pool_timeout': 7,
                 'connection': 'ignored'})
    assert engine.pool.size() == 3
    assert engine.pool._max_overflow == 1
    assert engine.pool.timeout() == 7
    # An engine already pooled (a :memory: StaticPool) is left alone.
    assert not sqlite_pool.pool_file_connections(engine, {})


def test_connections_are_reused_with_every_listener(engine):
    with engine.connect() as conn:
        first = conn.connection.dbapi_connection
        # db/api.py's pragmas and oslo.db's foreign keys moved with the
        # pool's dispatch.
        assert conn.exec_driver_sql(
            'PRAGMA journal_mode').scalar() == 'wal'
        assert conn.exec_driver_sql('PRAGMA busy_timeout').scalar() == 30000
        assert conn.exec_driver_sql('PRAGMA foreign_keys').scalar() == 1
    with engine.connect() as conn:
        assert conn.connection.dbapi_connection is first


def test_oslo_db_error_translation_still_applies(engine):
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE t (k TEXT UNIQUE)')
        conn.exec_driver_sql("INSERT INTO t VALUES ('a')")
    with pytest.raises(db_exc.DBDuplicateEntry):
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO t VALUES ('a')")


def test_threads_share_the_pool(engine):
    seen = []

    def read():
        with engine.connect() as conn:
            seen.append(conn.exec_driver_sql('SELECT 1').scalar())

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [1] * 8
    assert engine.pool.checkedout() == 0
