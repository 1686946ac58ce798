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

"""fuzz_targets.Deadline (the fuzz tests' cut of a long request) and the
test's own time limit: pytest-timeout arms the same SIGALRM timer, which a
deadline must hand back with what was left of it.
"""

import signal
import time

import pytest
import sqlalchemy as sa

from nova_mini.tests.fixtures import fuzz_targets


@pytest.fixture
def deadline():
    engine = sa.create_engine('sqlite://')
    yield fuzz_targets.Deadline(engine)
    engine.dispose()


@pytest.fixture
def outer_timer():
    """A 30 s SIGALRM timer of the test's own, as pytest-timeout's; the
    signals it got.
    """
    fired = []
    previous = signal.signal(signal.SIGALRM,
                             lambda signum, _frame: fired.append(signum))
    # (pytest-timeout's own timer, if armed, is put back after the test)
    saved = signal.setitimer(signal.ITIMER_REAL, 30)
    yield fired
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)
    if saved[0]:
        signal.setitimer(signal.ITIMER_REAL, *saved)


def test_a_deadline_gives_back_the_outer_timer(deadline, outer_timer):
    handler = signal.getsignal(signal.SIGALRM)
    with deadline(5):
        assert 4 < signal.getitimer(signal.ITIMER_REAL)[0] <= 5
    assert signal.getsignal(signal.SIGALRM) is handler
    assert 25 < signal.getitimer(signal.ITIMER_REAL)[0] < 30
    assert outer_timer == []


def test_an_outer_timer_due_in_a_deadline_fires_after_it(
        deadline, outer_timer):
    signal.setitimer(signal.ITIMER_REAL, 0.05)
    with deadline(5):
        time.sleep(0.2)     # the outer timer comes due meanwhile
    # It fires once the deadline is over (put back due in 1 ms).
    end = time.monotonic() + 10
    while not outer_timer and time.monotonic() < end:
        time.sleep(0.01)
    assert outer_timer == [signal.SIGALRM]


def test_a_request_past_its_deadline_is_cut(deadline, outer_timer):
    with pytest.raises(fuzz_targets.RequestCut, match='cut after 0 s'):
        with deadline(0.1):
            time.sleep(5)       # the request that the deadline cuts
    assert 20 < signal.getitimer(signal.ITIMER_REAL)[0] < 30
    assert outer_timer == []
