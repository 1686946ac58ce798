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

"""The count after a create: over the quota undoes it, a database that
cannot be reached for the count keeps it (it is committed, and the answer
must say so).
"""

import logging

from oslo_db import exception as db_exc
import pytest

from nova_mini import exception
from nova_mini.objects.compute import quota_recheck


def _recheck(failure):
    undone = []

    def check():
        if failure is not None:
            raise failure

    quota_recheck.recheck(check, lambda: undone.append(True),
                          exception.KeypairLimitExceeded, 'Key pair k')
    return undone


def test_within_the_quota_is_kept():
    assert _recheck(None) == []


def test_over_the_quota_is_undone_and_refused():
    undone = []

    def check():
        raise exception.KeypairLimitExceeded()

    with pytest.raises(exception.KeypairLimitExceeded):
        quota_recheck.recheck(check, lambda: undone.append(True),
                              exception.KeypairLimitExceeded, 'Key pair k')
    assert undone == [True]


@pytest.mark.parametrize('failure', [
    exception.DatabaseUnavailable(waited=2, retry_after=5),
    exception.DatabaseBusy(waited=2, retry_after=1),
    db_exc.DBConnectionError()], ids=['unavailable', 'busy', 'disconnect'])
def test_a_count_the_database_cannot_answer_keeps_the_create(failure,
                                                             caplog):
    caplog.set_level(logging.WARNING)
    assert _recheck(failure) == []
    assert 'Key pair k is stored' in caplog.text


def test_other_errors_go_through_untouched():
    with pytest.raises(ZeroDivisionError):
        _recheck(ZeroDivisionError())
