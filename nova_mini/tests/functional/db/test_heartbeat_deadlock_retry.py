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

"""The conductor heartbeat runs a transaction that deadlocked again
(nova_mini.db.retry.call with retry_if=is_deadlock), on PostgreSQL as on
MariaDB, at most DEADLOCK_ATTEMPTS times, and then raises the deadlock
itself. Each server raises a real deadlock error (its own SQLSTATE and
error number) on demand, through its driver.
"""

import pytest
import sqlalchemy as sa

from nova_mini import conductor_heartbeat

# A deadlock error, raised by the server itself.
DEADLOCK = {
    'postgresql': "DO $$ BEGIN RAISE EXCEPTION 'deadlock detected' "
                  "USING ERRCODE = 'deadlock_detected'; END $$",
    'mariadb': "SIGNAL SQLSTATE '40001' SET MYSQL_ERRNO = 1213, "
               "MESSAGE_TEXT = 'Deadlock found when trying to get lock; "
               "try restarting transaction'",
}


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mariadb', marks=pytest.mark.mariadb)])
def backend(request):
    """This module's backends: PostgreSQL and MariaDB (overrides
    conftest's); SQLite has no deadlock.
    """
    return request.param


class _Deadlocking(object):
    """A heartbeat action that deadlocks ``times`` times."""

    def __init__(self, backend, times):
        self.statement = DEADLOCK[backend]
        self.times = times
        self.calls = []

    def __call__(self, session, hostname):
        self.calls.append(hostname)
        if len(self.calls) <= self.times:
            session.connection().exec_driver_sql(self.statement)
        return session.execute(sa.text('SELECT 1')).scalar()


@pytest.fixture
def heartbeat(empty_database):
    beat = conductor_heartbeat.Heartbeat(empty_database.url, 'c-1', 60,
                                         drivers=['redfish'])
    yield beat
    beat._engine.dispose()


def test_a_deadlocked_heartbeat_transaction_runs_again(backend, heartbeat):
    action = _Deadlocking(backend, conductor_heartbeat.DEADLOCK_ATTEMPTS - 1)
    heartbeat._transaction(action)
    assert action.calls == ['c-1'] * conductor_heartbeat.DEADLOCK_ATTEMPTS


def test_the_last_deadlock_is_raised_as_it_is(backend, heartbeat):
    action = _Deadlocking(backend, 100)
    with pytest.raises(sa.exc.OperationalError) as caught:
        heartbeat._transaction(action)
    assert len(action.calls) == conductor_heartbeat.DEADLOCK_ATTEMPTS
    assert 'eadlock' in str(caught.value.orig)
