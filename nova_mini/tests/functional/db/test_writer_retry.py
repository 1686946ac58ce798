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

"""Writers wait for a busy database (db/api.py, db/retry.py), on every
backend: a transaction that meets a lock or a deadlock runs again as a
whole, a nested writer leaves that to the outermost one, and past
``[database] write_wait_timeout`` the writer gives up with DatabaseBusy
(which the API answers 503 with Retry-After).
"""

import threading
import time

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.db import retry
from nova_mini import exception
from nova_mini import objects
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import database as db_fixture

_FLAVORS = models.Flavor.__table__
THREADS = 8
ROUNDS = 20


@pytest.fixture
def short_wait(conf):
    conf.config(write_wait_timeout=1.0, write_retry_interval=0.01,
                write_max_retry_interval=0.1, group='database')
    return conf


@pytest.fixture
def fresh_db(backend, short_wait):
    # A database of its own, whose connections open with the short wait
    # (SQLite busy_timeout, PostgreSQL lock_timeout, InnoDB's).
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


def _insert(context, name):
    context.session.execute(_FLAVORS.insert().values(
        flavorid=name, name=name, memory_mb=1, vcpus=1, root_gb=0,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, is_public=True,
        disabled=False))


def _names(engine):
    with engine.connect() as connection:
        return sorted(connection.execute(
            sa.select(_FLAVORS.c.name)).scalars())


def _ram(engine):
    with engine.connect() as connection:
        return connection.execute(sa.select(_FLAVORS.c.memory_mb)).scalar()


@db_api.context_manager.writer
def _set_ram(context, name, ram):
    context.session.execute(_FLAVORS.update().where(
        _FLAVORS.c.name == name).values(memory_mb=ram))


class _Holder(object):
    """Holds the write lock of ``name``'s row from another connection
    (SQLite: the database's write lock) until released.
    """

    def __init__(self, engine, name):
        self.connection = engine.connect()
        self.connection.execute(_FLAVORS.update().where(
            _FLAVORS.c.name == name).values(memory_mb=2))

    def release(self):
        self.connection.rollback()
        self.connection.close()


def test_deadlock_runs_the_whole_transaction_again(fresh_db):
    calls = []

    @db_api.context_manager.writer
    def write(context):
        calls.append(1)
        _insert(context, 'f%d' % len(calls))
        if len(calls) < 3:
            raise db_exc.DBDeadlock()

    write(nm_context.get_admin_context())
    assert len(calls) == 3
    # The failed attempts' rows were rolled back with them.
    assert _names(fresh_db.engine) == ['f3']


def test_nested_writer_leaves_the_retry_to_the_outer_one(fresh_db):
    inner_calls, outer_calls = [], []

    @db_api.context_manager.writer
    def inner(context):
        inner_calls.append(1)
        _insert(context, 'inner%d' % len(inner_calls))
        if len(inner_calls) == 1:
            raise db_exc.DBDeadlock()

    @db_api.context_manager.writer
    def outer(context):
        outer_calls.append(1)
        _insert(context, 'outer%d' % len(outer_calls))
        inner(context)

    outer(nm_context.get_admin_context())
    # The inner writer did not run again inside the failed transaction:
    # the outer one ran the whole transaction again.
    assert (len(outer_calls), len(inner_calls)) == (2, 2)
    assert _names(fresh_db.engine) == ['inner2', 'outer2']


def test_other_errors_are_not_retried(fresh_db):
    calls = []

    @db_api.context_manager.writer
    def write(context):
        calls.append(1)
        _insert(context, 'dup')
        _insert(context, 'dup')

    with pytest.raises(db_exc.DBDuplicateEntry):
        write(nm_context.get_admin_context())
    assert len(calls) == 1
    assert _names(fresh_db.engine) == []


def test_writer_waits_for_a_lock_released_in_time(fresh_db):
    context = nm_context.get_admin_context()
    db_api.context_manager.writer(_insert)(context, 'f')
    holder = _Holder(fresh_db.engine, 'f')
    timer = threading.Timer(0.4, holder.release)
    timer.start()
    try:
        start = time.monotonic()
        _set_ram(context, 'f', 64)
        assert time.monotonic() - start >= 0.3
    finally:
        timer.join()
    assert _ram(fresh_db.engine) == 64


def test_writer_gives_up_after_the_bound(fresh_db):
    context = nm_context.get_admin_context()
    db_api.context_manager.writer(_insert)(context, 'f')
    holder = _Holder(fresh_db.engine, 'f')
    try:
        start = time.monotonic()
        with pytest.raises(exception.DatabaseBusy) as caught:
            _set_ram(context, 'f', 64)
        waited = time.monotonic() - start
    finally:
        holder.release()
    # write_wait_timeout is 1 s: one lock wait of that, then no retry.
    assert 0.9 <= waited < 4, waited
    message = caught.value.format_message()
    assert 'Retry the request in 1 seconds' in message, message
    assert caught.value.retry_after == 1
    assert _ram(fresh_db.engine) == 1


def test_busy_errors_of_each_backend_are_recognised():
    def operational(message):
        return sa.exc.OperationalError('UPDATE', {}, Exception(message))

    assert retry.is_busy(operational('database is locked'))
    assert retry.is_busy(db_exc.DBError(operational('database is locked')))
    assert retry.is_busy(operational(
        'could not serialize access due to concurrent update'))
    assert retry.is_busy(operational(
        'canceling statement due to lock timeout'))
    assert retry.is_busy(db_exc.DBDeadlock())
    assert retry.is_busy(db_exc.DBConnectionError())
    assert retry.is_busy(sa.exc.TimeoutError('QueuePool limit'))
    assert not retry.is_busy(operational('no such table: flavors'))
    assert not retry.is_busy(db_exc.DBDuplicateEntry())
    assert not retry.is_busy(ValueError('database is locked'))


def test_read_then_write_transactions_lose_no_update(fresh_db):
    """Writers that read a value and write it back incremented, at once
    from many threads: no update is lost, and on SQLite none even has to
    run again (a writer's transaction begins with BEGIN IMMEDIATE, so it
    never reads a snapshot that a commit makes stale).
    """
    context = nm_context.get_admin_context()
    db_api.context_manager.writer(_insert)(context, 'f')
    db_api.context_manager.writer(_set_ram.__wrapped__)(context, 'f', 0)
    calls = []

    @db_api.context_manager.writer
    def increment(context):
        calls.append(1)
        ram = context.session.execute(
            sa.select(_FLAVORS.c.memory_mb).where(
                _FLAVORS.c.name == 'f').with_for_update()).scalar()
        context.session.execute(_FLAVORS.update().where(
            _FLAVORS.c.name == 'f').values(memory_mb=ram + 1))

    def work():
        for _ in range(ROUNDS):
            increment(nm_context.get_admin_context())

    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert _ram(fresh_db.engine) == THREADS * ROUNDS
    if fresh_db.backend == 'sqlite':
        assert len(calls) == THREADS * ROUNDS


# SQLite only: the other databases begin a transaction on their own.
@pytest.mark.parametrize('backend', ['sqlite'])
def test_sqlite_transactions_begin_with_one_statement(fresh_db):
    """On SQLite a writer's transaction begins with BEGIN IMMEDIATE
    alone (not oslo.db's BEGIN, rolled back and begun again), a reader's
    with oslo.db's deferred BEGIN.
    """
    context = nm_context.get_admin_context()
    db_api.context_manager.writer(_insert)(context, 'f')
    engine = db_api.context_manager.writer.get_engine()
    statements = []

    def record(conn, cursor, statement, *args):
        words = statement.strip().upper()
        statements.append(words if words.startswith(
            ('BEGIN', 'ROLLBACK', 'COMMIT')) else 'SQL')

    sa.event.listen(engine, 'before_cursor_execute', record)
    try:
        db_api.context_manager.writer(_set_ram.__wrapped__)(
            nm_context.get_admin_context(), 'f', 7)
        written = list(statements)
        del statements[:]
        db_api.context_manager.reader(
            lambda ctx: ctx.session.execute(sa.select(
                _FLAVORS.c.memory_mb)).all())(
            nm_context.get_admin_context())
        read = list(statements)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', record)
    assert written == ['BEGIN IMMEDIATE', 'SQL'], written
    assert _ram(fresh_db.engine) == 7
    assert read == ['BEGIN', 'SQL'], read


def test_a_retry_starts_from_the_objects_as_given(fresh_db):
    """A writer that creates objects it was given (as InstanceList's
    create_all does) and then meets a deadlock runs again with those
    objects as they were: not created, their changes still to write.
    """
    objects.register_all()
    context = nm_context.get_admin_context()
    flavors = [builders.make_flavor(context, 'f%d' % i, memory_mb=64 + i,
                                    vcpus=1, root_gb=0) for i in range(2)]
    calls = []

    @db_api.context_manager.writer
    def create_all(context, flavors):
        calls.append(1)
        for flavor in flavors:
            flavor._context = context
            flavor.create()
        if len(calls) == 1:
            raise db_exc.DBDeadlock()

    create_all(context, flavors)
    assert len(calls) == 2
    assert _names(fresh_db.engine) == ['f0', 'f1']
    assert [f.memory_mb for f in objects.FlavorList.get_all(context)] == [
        64, 65]
    assert [f.obj_what_changed() for f in flavors] == [set(), set()]


def test_connections_wait_for_locks_as_long_as_the_bound(fresh_db):
    # write_wait_timeout is 1 s (short_wait); every connection of the
    # pool has it, the first one (which oslo.db opens early) included.
    queries = {
        'sqlite': ('PRAGMA busy_timeout', [(1000,)]),
        'postgresql': ('SHOW lock_timeout', [('1s',)]),
        'mysql': ('SELECT @@session.innodb_lock_wait_timeout, '
                  '@@session.tx_isolation', [(1, 'READ-COMMITTED')]),
    }
    query, expected = queries[fresh_db.engine.dialect.name]
    connections = [fresh_db.engine.connect() for _ in range(3)]
    try:
        for connection in connections:
            assert [tuple(row) for row in connection.exec_driver_sql(
                query)] == expected
    finally:
        for connection in connections:
            connection.close()
