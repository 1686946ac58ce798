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

"""retry.call with bounds of its own (Policy.fixed), a narrower idea of
what is transient (retry_if) and the last error raised when it gives up
(answer_busy=False), as the conductor heartbeat uses it; and
retry.is_deadlock over each backend's errors. The pauses are 0: nothing
here waits.
"""

import math
import sqlite3

from oslo_db import exception as db_exc
import psycopg.errors
import pymysql
import pytest
import sqlalchemy as sa

from nova_mini.db import retry
from nova_mini import exception


def _wrapped(driver_error):
    # As SQLAlchemy raises a driver's error.
    return sa.exc.OperationalError('UPDATE conductors', {}, driver_error)


def _mysql_deadlock():
    return _wrapped(pymysql.err.OperationalError(
        1213, 'Deadlock found when trying to get lock; try restarting '
        'transaction'))


def _sqlite_locked():
    return _wrapped(sqlite3.OperationalError('database is locked'))


class _Failing(object):
    """A transaction that fails with ``make()``'s error ``times`` times,
    then returns 'done'.
    """

    def __init__(self, make, times):
        self.make = make
        self.times = times
        self.calls = 0
        self.errors = []

    def __call__(self, *args, **kwargs):
        self.calls += 1
        self.args = (args, kwargs)
        if self.calls <= self.times:
            error = self.make()
            self.errors.append(error)
            raise error
        return 'done'


def _policy(max_retries):
    return retry.Policy.fixed(interval=0, max_retries=max_retries)


def test_fixed_policy_has_the_values_given():
    policy = retry.Policy.fixed(interval=0.02, max_retries=4,
                                max_interval=0.2)
    assert (policy.interval, policy.increase, policy.max_interval,
            policy.max_retries, policy.timeout) == (0.02, True, 0.2, 4,
                                                    math.inf)
    policy = retry.Policy.fixed(interval=0.5, max_retries=-1,
                                increase=False, timeout=3)
    assert (policy.max_interval, policy.increase, policy.timeout) == \
        (0.5, False, 3)
    assert policy.retry_after() == 3


def test_deadlocks_of_each_backend_are_recognised():
    deadlocks = [
        db_exc.DBDeadlock(),
        _mysql_deadlock(),
        db_exc.DBError(_mysql_deadlock()),
        _wrapped(psycopg.errors.DeadlockDetected('deadlock detected')),
    ]
    for error in deadlocks:
        assert retry.is_deadlock(error), error
        # A deadlock is one of the busy errors that writers retry.
        assert retry.is_busy(error), error
    others = [
        _sqlite_locked(),
        # InnoDB's lock wait timeout, PostgreSQL's serialization failure.
        _wrapped(pymysql.err.OperationalError(
            1205, 'Lock wait timeout exceeded; try restarting transaction')),
        _wrapped(psycopg.errors.SerializationFailure(
            'could not serialize access due to concurrent update')),
        db_exc.DBConnectionError(),
        _wrapped(pymysql.err.OperationalError(
            2013, 'Lost connection to MySQL server during query')),
        ValueError('deadlock'),
        _wrapped(pymysql.err.IntegrityError(1062, 'Duplicate entry')),
    ]
    for error in others:
        assert not retry.is_deadlock(error), error


def test_retry_if_retries_only_the_errors_it_accepts():
    # SQLite's busy database: is_busy retries it, is_deadlock does not.
    locked = _Failing(_sqlite_locked, 1)
    assert retry.call(_policy(4), locked) == 'done'
    assert locked.calls == 2
    locked = _Failing(_sqlite_locked, 1)
    with pytest.raises(sa.exc.OperationalError) as caught:
        retry.call(_policy(4), locked, retry_if=retry.is_deadlock)
    assert caught.value is locked.errors[0]
    assert locked.calls == 1

    deadlocked = _Failing(_mysql_deadlock, 2)
    retried = []
    assert retry.call(_policy(4), deadlocked, ('a',), {'b': 1},
                      before_retry=lambda: retried.append(1),
                      retry_if=retry.is_deadlock) == 'done'
    assert deadlocked.calls == 3
    assert deadlocked.args == (('a',), {'b': 1})
    assert retried == [1, 1]


def test_without_answer_busy_the_last_error_is_raised():
    deadlocked = _Failing(_mysql_deadlock, 100)
    with pytest.raises(sa.exc.OperationalError) as caught:
        retry.call(_policy(4), deadlocked, retry_if=retry.is_deadlock,
                   answer_busy=False)
    # The first run and 4 retries, then the fifth deadlock as it is.
    assert deadlocked.calls == 5
    assert caught.value is deadlocked.errors[-1]


def test_by_default_the_bounds_answer_busy():
    # The writers' behaviour (db/api.py): unchanged.
    locked = _Failing(_sqlite_locked, 100)
    with pytest.raises(exception.DatabaseBusy) as caught:
        retry.call(_policy(2), locked)
    assert locked.calls == 3
    assert not isinstance(caught.value, exception.DatabaseUnavailable)
    assert caught.value.__cause__ is locked.errors[-1]
    deadlocked = _Failing(_mysql_deadlock, 100)
    with pytest.raises(exception.DatabaseBusy):
        retry.call(_policy(0), deadlocked, retry_if=retry.is_deadlock)
    assert deadlocked.calls == 1
