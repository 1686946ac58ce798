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

"""db_api.autocommit (statements standing alone, SQLite and PostgreSQL),
db_api.cursor_transaction and the pool's ping after idle (db/api.py), on
each backend.
"""

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models

pytestmark = pytest.mark.usefixtures('db')

_FLAVORS = models.Flavor.__table__


def _insert(context, name, ram=1):
    context.session.execute(_FLAVORS.insert().values(
        flavorid=name, name=name, memory_mb=ram, vcpus=1, root_gb=0,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, is_public=True,
        disabled=False))


def _ram(engine, name):
    with engine.connect() as connection:
        return connection.execute(sa.select(_FLAVORS.c.memory_mb).where(
            _FLAVORS.c.name == name)).scalar()


def _in_transaction(context):
    """Whether the context's connection is inside a database transaction
    (as the driver sees it) right now.
    """
    connection = context.session.connection()
    dbapi = connection.connection.dbapi_connection
    if connection.dialect.name == 'sqlite':
        return dbapi.in_transaction
    if connection.dialect.name == 'postgresql':
        return not dbapi.autocommit
    return True


@db_api.context_manager.writer
def _make(context, name):
    _insert(context, name)


@db_api.autocommit
@db_api.context_manager.writer
def _set_ram_alone(context, name, ram, seen):
    context.session.execute(_FLAVORS.update().where(
        _FLAVORS.c.name == name).values(memory_mb=ram))
    seen.append(_in_transaction(context))


@db_api.context_manager.writer
def _set_ram_in_transaction(context, name, ram, seen):
    context.session.execute(_FLAVORS.update().where(
        _FLAVORS.c.name == name).values(memory_mb=ram))
    seen.append(_in_transaction(context))


def test_statements_stand_alone(engine, backend):
    context = nm_context.get_admin_context()
    _make(context, 'f')
    seen = []
    _set_ram_alone(context, 'f', 2, seen)
    assert _ram(engine, 'f') == 2
    # No transaction was open after the UPDATE (it committed by itself),
    # except on MariaDB, which keeps its transactions.
    assert seen == [backend == 'mariadb']
    # The pooled connection is back in the default mode for the next.
    _set_ram_in_transaction(context, 'f', 3, seen)
    assert seen == [backend == 'mariadb', True]
    assert _ram(engine, 'f') == 3


def test_inside_a_transaction_it_is_part_of_it(engine):
    context = nm_context.get_admin_context()
    _make(context, 'f')
    seen = []

    @db_api.context_manager.writer
    def outer(context):
        # The first statement of the outer transaction is the nested
        # function's: the transaction must still be one.
        _set_ram_alone(context, 'f', 5, seen)
        _insert(context, 'g')
        raise RuntimeError('undo')

    with pytest.raises(RuntimeError):
        outer(context)
    assert seen == [True]
    assert _ram(engine, 'f') == 1
    assert _ram(engine, 'g') is None


class _Reader:
    @db_api.autocommit
    def names(self, context, chunk):
        with db_api.context_manager.reader.using(context):
            seen = [_in_transaction(context)]
            db_api.cursor_transaction(context)
            # A server-side cursor on PostgreSQL (a named cursor, which
            # exists only inside a transaction).
            result = context.session.execute(
                sa.select(_FLAVORS.c.name).order_by(_FLAVORS.c.name),
                execution_options={'stream_results': True,
                                   'max_row_buffer': chunk})
            names = []
            for rows in iter(lambda: result.fetchmany(chunk), []):
                names.extend(row.name for row in rows)
            result.close()
            return names, seen


def test_a_cursor_after_statements_alone(backend):
    context = nm_context.get_admin_context()
    for index in range(7):
        _make(context, 'f%d' % index)
    names, seen = _Reader().names(context, 2)
    assert names == ['f%d' % index for index in range(7)]
    assert seen == [backend == 'mariadb']


def _kill_connections(engine, backend):
    """End every other session of the test database on the server side
    (from a connection of its own, outside the pool).
    """
    killer = sa.create_engine(engine.url, poolclass=sa.pool.NullPool)
    with killer.connect() as connection:
        if backend == 'postgresql':
            connection.execute(sa.text(
                'SELECT pg_terminate_backend(pid) FROM pg_stat_activity '
                'WHERE datname = current_database() '
                'AND pid <> pg_backend_pid()'))
        else:
            ids = connection.execute(sa.text(
                'SELECT id FROM information_schema.processlist '
                'WHERE db = DATABASE() AND id <> CONNECTION_ID()')).scalars()
            for session_id in list(ids):
                connection.execute(sa.text('KILL %d' % session_id))
        connection.commit()
    killer.dispose()


@db_api.context_manager.reader
def _count(context):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_FLAVORS)).scalar()


@pytest.mark.parametrize('idle', [False, True])
def test_ping_only_after_idle(engine, backend, monkeypatch, idle):
    if backend == 'sqlite':
        pytest.skip('an SQLite connection is a file: nothing to lose')
    context = nm_context.get_admin_context()
    _make(context, 'f')
    assert _count(context) == 1         # a pooled connection, just used
    # A connection checked in this long ago or more is pinged first.
    monkeypatch.setattr(db_api, 'PING_AFTER_IDLE', 0.0 if idle else 60.0)
    db_api.get_engine().pool.dispose()
    assert _count(context) == 1         # a new pooled connection
    _kill_connections(engine, backend)
    if idle:
        # The ping finds it dead: the pool connects again.
        assert _count(context) == 1
    else:
        # Not pinged: its first statement finds it dead (a reader answers
        # 503), and the pool has let it go.
        with pytest.raises(db_exc.DBConnectionError):
            _count(context)
        assert _count(context) == 1
