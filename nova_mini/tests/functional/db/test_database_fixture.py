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

"""The database fixture itself: fresh databases, cleaned up, migrated ones
taken from a template or a pool and given back empty, and a PostgreSQL
server started from Debian's binaries when none answers."""

import os

import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import migration
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import database as db_fixture
from nova_mini_deploy import util as deploy_util


def test_sqlite_database_is_a_fresh_file_removed_after():
    # Inside another fixture, so that "pointed back where it was" is seen
    # through the facade's public get_engine(): the outer fixture's engine.
    outer = db_fixture.DatabaseFixture('sqlite', sync=False)
    outer.setUp()
    try:
        fixture = db_fixture.DatabaseFixture('sqlite')
        fixture.setUp()
        try:
            path = fixture.engine.url.database
            assert os.path.isfile(path)
            assert fixture.engine is not outer.engine
            assert db_api.get_engine() is fixture.engine
            builders.create_flavor(nm_context.get_admin_context(), 'f',
                                   memory_mb=1, vcpus=1, root_gb=0)
            assert fixture.row_counts()['flavors'] == 1
            fixture.clear()
            assert fixture.row_counts()['flavors'] == 0
        finally:
            fixture.cleanUp()
        assert not os.path.exists(path)
        assert db_api.get_engine() is outer.engine
    finally:
        outer.cleanUp()


@pytest.mark.postgresql
def test_postgresql_database_is_created_and_dropped():
    admin_url = db_fixture.postgresql_admin_url()
    engine = sa.create_engine(admin_url, poolclass=sa.pool.NullPool)
    query = sa.text('SELECT count(*) FROM pg_database WHERE datname = :n')
    database = db_fixture.PostgreSQLDatabase(admin_url)
    try:
        with engine.connect() as connection:
            assert connection.execute(query, {'n': database.name}).scalar()
    finally:
        database.drop()
    try:
        with engine.connect() as connection:
            assert not connection.execute(
                query, {'n': database.name}).scalar()
    finally:
        engine.dispose()


def test_missing_binaries_fail_with_a_clear_message():
    with pytest.raises(db_fixture.PostgreSQLUnavailable) as caught:
        db_fixture.find_binaries('/nonexistent/postgresql/*/bin')
    message = str(caught.value)
    assert 'No PostgreSQL server answers' in message
    assert '/nonexistent/postgresql/*/bin' in message
    assert db_fixture.PG_URL_ENV in message


def test_no_server_and_no_binaries_is_an_error_not_a_skip(monkeypatch):
    monkeypatch.setenv(db_fixture.PG_URL_ENV,
                       'postgresql://postgres@127.0.0.1:%d/postgres'
                       % deploy_util.free_port())
    monkeypatch.setattr(db_fixture, '_started_server', None)
    real_find = db_fixture.find_binaries
    monkeypatch.setattr(db_fixture, 'find_binaries',
                        lambda pattern=None: real_find('/nonexistent/*/bin'))
    with pytest.raises(db_fixture.PostgreSQLUnavailable):
        db_fixture.postgresql_admin_url()


def test_bare_postgresql_urls_get_an_installed_driver():
    url = db_fixture.with_driver('postgresql://u@h:1/d')
    assert url.startswith('postgresql+psycopg')
    assert db_fixture.with_driver('postgresql+psycopg2://u@h:1/d') == \
        'postgresql+psycopg2://u@h:1/d'
    assert db_fixture.with_driver('sqlite:///x') == 'sqlite:///x'


@pytest.mark.postgresql
def test_a_server_is_started_when_none_answers(monkeypatch):
    if not os.path.isdir('/usr/lib/postgresql'):
        pytest.fail('PostgreSQL binaries are needed in /usr/lib/postgresql')
    monkeypatch.setenv(db_fixture.PG_URL_ENV,
                       'postgresql://postgres@127.0.0.1:%d/postgres'
                       % deploy_util.free_port())
    monkeypatch.setattr(db_fixture, '_started_server', None)
    url = db_fixture.postgresql_admin_url()
    server = db_fixture._started_server
    try:
        assert server is not None and url == server.url
        assert db_fixture.server_answers(url)
        # Further calls reuse it.
        assert db_fixture.postgresql_admin_url() == url
        database = db_fixture.PostgreSQLDatabase(url)
        database.drop()
    finally:
        base_dir = server.base_dir
        server.stop()
    assert not os.path.exists(base_dir)
    assert not db_fixture.server_answers(url, timeout=1)


def _flavor_ids(engine):
    with engine.connect() as connection:
        return list(connection.execute(
            sa.text('SELECT id FROM flavors ORDER BY id')).scalars())


def _add_flavors(names):
    for name in names:
        builders.create_flavor(nm_context.get_admin_context(), name,
                               memory_mb=1, vcpus=1, root_gb=0)


def test_sqlite_migrated_database_is_a_copy_at_head():
    first = db_fixture.DatabaseFixture('sqlite')
    first.setUp()
    try:
        _add_flavors(['a'])
        second = db_fixture.DatabaseFixture('sqlite')
        second.setUp()
        try:
            assert second.url != first.url
            assert migration.db_version(second.engine) == \
                migration.head_revision()
            assert second.filled_tables() == {}
        finally:
            second.cleanUp()
        assert _flavor_ids(first.engine) == [1]
    finally:
        first.cleanUp()


def _server_backend_params():
    return [pytest.param('postgresql', marks=pytest.mark.postgresql),
            pytest.param('mariadb', marks=pytest.mark.mariadb)]


@pytest.mark.parametrize('backend', _server_backend_params())
def test_migrated_database_is_given_back_empty(backend):
    # A database given back is the next one taken: no rows, counters
    # restarted (flavor ids as in a new database), schema at head.
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    name = fixture.database.name
    try:
        _add_flavors(['a', 'b', 'c'])
        assert _flavor_ids(fixture.engine) == [1, 2, 3]
    finally:
        fixture.cleanUp()
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    try:
        assert fixture.database.name == name
        assert fixture.filled_tables() == {}
        assert migration.db_version(fixture.engine) == \
            migration.head_revision()
        _add_flavors(['d'])
        assert _flavor_ids(fixture.engine) == [1]
    finally:
        fixture.cleanUp()


@pytest.mark.parametrize('backend', _server_backend_params())
def test_open_session_left_behind_is_ended(backend):
    # A transaction holding row locks, as a test that failed half-way may
    # leave: giving the database back neither waits for it nor keeps its
    # rows.
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    name = fixture.database.name
    leftover = sa.create_engine(fixture.url, poolclass=sa.pool.NullPool)
    connection = leftover.connect()
    try:
        _add_flavors(['a'])
        transaction = connection.begin()
        connection.execute(sa.text("UPDATE flavors SET name = 'b'"))
        fixture.cleanUp()
        fixture = db_fixture.DatabaseFixture(backend)
        fixture.setUp()
        assert fixture.database.name == name
        assert fixture.filled_tables() == {}
        assert transaction.is_active  # Never ended on this side.
    finally:
        try:
            connection.close()
        except sa.exc.DBAPIError:
            pass  # Ended by the fixture.
        leftover.dispose()
        fixture.cleanUp()


@pytest.mark.parametrize('backend', _server_backend_params())
def test_altered_schema_is_dropped_not_reused(backend):
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    database = fixture.database
    try:
        with fixture.engine.begin() as connection:
            connection.execute(sa.text(
                'ALTER TABLE flavors ADD COLUMN extra INTEGER'))
    finally:
        fixture.cleanUp()
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    try:
        assert fixture.database.name != database.name
        assert 'extra' not in {column['name'] for column in sa.inspect(
            fixture.engine).get_columns('flavors')}
    finally:
        fixture.cleanUp()
    engine = sa.create_engine(database.admin_url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            if backend == 'postgresql':
                query = 'SELECT count(*) FROM pg_database WHERE datname = :n'
            else:
                query = ('SELECT count(*) FROM information_schema.schemata '
                         'WHERE schema_name = :n')
            assert connection.execute(
                sa.text(query), {'n': database.name}).scalar() == 0
    finally:
        engine.dispose()
