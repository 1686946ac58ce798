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

"""A database server that is down, stopping or starting (db/retry.py
``is_unreachable``, db/api.py): told apart from every other database error
with the drivers' own errors, raised as oslo.db's ``DBConnectionError`` by
an engine set up as the daemons' are, and the same engine works again once
the server is back, without being disposed of.

The server is a PostgreSQL cluster of the test's own (initdb/pg_ctl),
stopped with ``pg_ctl stop -m fast`` as an operator restarting it would.
"""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import engines
import psycopg2
import pymysql
import pytest
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import retry
from nova_mini import exception
from nova_mini.tests.harness import postgresql
from nova_mini_deploy import util


def _refused_psycopg2():
    try:
        psycopg2.connect(host='127.0.0.1', port=util.free_port(),
                         user='postgres', dbname='x', connect_timeout=3)
    except psycopg2.OperationalError as exc:
        return exc
    raise AssertionError('nothing should listen there')


def _refused_pymysql():
    try:
        pymysql.connect(host='127.0.0.1', port=util.free_port(),
                        user='root', connect_timeout=3)
    except pymysql.err.OperationalError as exc:
        return exc
    raise AssertionError('nothing should listen there')


def _wrapped(driver_error):
    """The driver's error as SQLAlchemy raises it."""
    return sa.exc.OperationalError('SELECT 1', {}, driver_error)


def test_drivers_errors_of_an_unreachable_server_are_recognised():
    for driver_error in (_refused_psycopg2(), _refused_pymysql()):
        assert retry.is_unreachable(driver_error), driver_error
        assert retry.is_unreachable(_wrapped(driver_error))
        assert retry.is_unreachable(db_exc.DBError(_wrapped(driver_error)))
        assert retry.is_busy(_wrapped(driver_error))
    for message in (
            'connection to server at "127.0.0.1", port 5433 failed: '
            'FATAL:  the database system is shutting down',
            'connection to server at "127.0.0.1", port 5433 failed: '
            'FATAL:  the database system is starting up',
            # A server in the instant of starting or stopping may accept
            # the connection and close it at once.
            'connection to server at "127.0.0.1", port 5433 failed: '
            'Connection reset by peer\n\tIs the server running on that '
            'host and accepting TCP/IP connections?',
            'could not receive data from server: Connection reset by peer',
            'could not send data to server: Broken pipe',
            'terminating connection due to administrator command\n'
            'server closed the connection unexpectedly'):
        assert retry.is_unreachable(
            _wrapped(psycopg2.OperationalError(message))), message
    # psycopg2's subclasses of OperationalError named after the SQLSTATE.
    assert retry.is_unreachable(_wrapped(psycopg2.errors.AdminShutdown(
        'terminating connection due to administrator command')))
    assert retry.is_unreachable(db_exc.DBConnectionError())
    assert retry.is_unreachable(pymysql.err.OperationalError(
        2013, 'Lost connection to MySQL server during query'))


def test_other_database_errors_are_not_unreachable():
    for error in (
            _wrapped(psycopg2.OperationalError('database is locked')),
            _wrapped(psycopg2.OperationalError(
                'canceling statement due to lock timeout')),
            _wrapped(pymysql.err.OperationalError(
                1205, 'Lock wait timeout exceeded')),
            # A login refused is a configuration to fix, not an outage.
            _wrapped(psycopg2.OperationalError(
                'connection to server at "127.0.0.1", port 5432 failed: '
                'FATAL:  password authentication failed for user "nova"')),
            # The words in a statement or in a value are not the driver's.
            sa.exc.ProgrammingError(
                "SELECT 'connection refused'", {},
                psycopg2.ProgrammingError('syntax error')),
            db_exc.DBDuplicateEntry(),
            ValueError('connection refused')):
        assert not retry.is_unreachable(error), error


@pytest.fixture(scope='module')
def cluster():
    with postgresql.PrivateCluster() as pg:
        yield pg


@pytest.fixture
def daemon_engine(cluster):
    """An oslo.db engine set up as the daemons' are (db/api.py)."""
    if not cluster.running:
        cluster.start()
    engine = engines.create_engine(cluster.admin_url, max_pool_size=5,
                                   max_overflow=5)
    db_api._on_engine_create(engine)
    yield engine
    engine.dispose()


def _one(engine):
    with engine.connect() as connection:
        return connection.execute(sa.text('SELECT 1')).scalar()


@pytest.mark.postgresql
def test_stopped_server_is_a_connection_error_then_recovers(
        cluster, daemon_engine):
    # Pooled connections exist when the server goes away.
    connections = [daemon_engine.connect() for _ in range(3)]
    for connection in connections:
        connection.close()
    held = daemon_engine.connect()
    held.execute(sa.text('SELECT 1'))
    cluster.stop(mode='fast')
    try:
        # A connection in use when the server stopped.
        with pytest.raises(db_exc.DBConnectionError):
            held.execute(sa.text('SELECT 1'))
        held.close()
        # New checkouts while it is down: refused, not a plain
        # OperationalError (which the API would answer 500).
        for _ in range(3):
            with pytest.raises(db_exc.DBConnectionError) as caught:
                _one(daemon_engine)
            assert retry.is_unreachable(caught.value)
            assert retry.is_busy(caught.value)
    finally:
        cluster.start()
    # Back: the same engine, not disposed of, connects again at once.
    assert [_one(daemon_engine) for _ in range(5)] == [1] * 5


@pytest.mark.postgresql
def test_writer_gives_up_with_database_unavailable(cluster, daemon_engine):
    policy = retry.Policy.fixed(interval=0.01, max_interval=0.05,
                                max_retries=-1, timeout=0.5)
    assert policy.retry_after() == 1
    cluster.stop(mode='fast')
    try:
        with pytest.raises(exception.DatabaseUnavailable) as caught:
            retry.call(policy, _one, (daemon_engine,))
    finally:
        cluster.start()
    message = caught.value.format_message()
    assert message.startswith('The database cannot be reached')
    assert 'Retry the request in 1 seconds' in message
    # The API's 503 mapping covers it (a kind of DatabaseBusy).
    assert isinstance(caught.value, exception.DatabaseBusy)
    assert retry.call(policy, _one, (daemon_engine,)) == 1
