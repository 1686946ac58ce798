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

"""Nodes' reservations on every backend: one winner among concurrent
conductors, NodeLocked after the retries, a release that only clears the
host's own reservation, the context manager.
"""

import threading
import time

import pytest
import sqlalchemy as sa

from nova_mini.conductor import task_manager
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

THREADS = 8


def _stored(engine, node_id):
    with engine.connect() as connection:
        return connection.execute(sa.select(
            models.Node.__table__.c.reservation,
            models.Node.__table__.c.last_error).where(
                models.Node.__table__.c.id == node_id)).one()


@pytest.fixture
def admin():
    return nm_context.get_admin_context()


@pytest.fixture
def node(db, admin):
    return builders.create_node(admin, 'n1')


def test_concurrent_conductors_one_winner(engine, admin, node):
    for round_ in range(3):
        won = []

        def take(index):
            if task_manager.reserve(nm_context.get_admin_context(),
                                    node.uuid, 'host-%d' % index):
                won.append(index)

        assert threads.race(take, THREADS) == []
        assert len(won) == 1, won
        assert _stored(engine, node.id).reservation == 'host-%d' % won[0]
        # The losers cannot release it; the winner can.
        loser = (won[0] + 1) % THREADS
        assert not task_manager.release(admin, node.id, 'host-%d' % loser)
        assert _stored(engine, node.id).reservation == 'host-%d' % won[0]
        assert task_manager.release(admin, node.id, 'host-%d' % won[0])
        assert _stored(engine, node.id).reservation is None


def test_concurrent_acquire_raises_node_locked_for_the_others(
        engine, node):
    entered = []

    def work(index):
        with task_manager.acquire(nm_context.get_admin_context(),
                                  node.uuid, 'host-%d' % index,
                                  attempts=1):
            entered.append(index)
            time.sleep(0.3)

    errors = threads.race(work, 4)
    assert len(entered) == 1
    assert len(errors) == 3
    for _index, exc in errors:
        assert isinstance(exc, exception_baremetal.NodeLocked)
        assert exc.format_message() == (
            'Node %s is locked by host host-%d, please retry after the '
            'current operation is completed.' % (node.uuid, entered[0]))
    assert _stored(engine, node.id).reservation is None


def test_node_locked_after_the_configured_retries(conf, admin, node):
    conf.config(node_locked_retry_attempts=3, group='conductor')
    conf.config(node_locked_retry_interval=1, group='conductor')
    assert task_manager.reserve(admin, node.id, 'other')
    started = time.monotonic()
    with pytest.raises(exception_baremetal.NodeLocked) as caught:
        task_manager.reserve_or_raise(admin, node.uuid, 'me')
    # Three tries, two pauses between them.
    assert 1.9 < time.monotonic() - started < 10
    assert caught.value.kwargs == {'node': node.uuid, 'host': 'other'}


def test_a_reservation_released_during_the_retries_is_taken(
        conf, engine, admin, node):
    conf.config(node_locked_retry_interval=1, group='conductor')
    assert task_manager.reserve(admin, node.id, 'other')
    timer = threading.Timer(
        0.3, task_manager.release,
        (nm_context.get_admin_context(), node.id, 'other'))
    timer.start()
    try:
        task_manager.reserve_or_raise(admin, node.name, 'me')
    finally:
        timer.join()
    assert _stored(engine, node.id).reservation == 'me'


def test_acquire_releases_at_the_end_even_on_error(engine, admin, node):
    with pytest.raises(RuntimeError):
        with task_manager.acquire(admin, node.uuid, 'me') as task:
            assert task.node.uuid == node.uuid
            assert task.node.reservation == 'me'
            assert _stored(engine, node.id).reservation == 'me'
            raise RuntimeError('boom')
    assert _stored(engine, node.id).reservation is None


def test_a_handed_over_task_stays_reserved_until_released(engine, admin,
                                                          node):
    with task_manager.acquire(admin, node.id, 'me') as task:
        task.hand_over()
    assert _stored(engine, node.id).reservation == 'me'
    assert task.write(last_error='half way')
    assert task.release(last_error='done', power_state='power on')
    assert tuple(_stored(engine, node.id)) == (None, 'done')
    assert task.node.power_state == 'power on'
    assert task.node.reservation is None
    # Once only.
    assert not task.release(last_error='again')
    assert _stored(engine, node.id).last_error == 'done'


def test_a_release_after_a_takeover_writes_nothing(engine, admin, node):
    with task_manager.acquire(admin, node.id, 'me') as task:
        task.hand_over()
    # Taken over: cleared, then reserved by the host that took it.
    assert task_manager.release(admin, node.id, 'me')
    assert task_manager.reserve(admin, node.id, 'new-host')
    assert not task.write(last_error='stale')
    assert not task.release(power_state='power on')
    assert tuple(_stored(engine, node.id)) == ('new-host', None)


def test_unknown_node(db, admin):
    with pytest.raises(exception_baremetal.NodeNotFound):
        with task_manager.acquire(admin, 'nope', 'me', attempts=1):
            pass
    assert task_manager.reserved_by(admin, ['me']) == []


def test_reserved_by(admin, node):
    other = builders.create_node(admin, 'n2')
    builders.create_node(admin, 'n3')
    assert task_manager.reserve(admin, node.id, 'a')
    assert task_manager.reserve(admin, other.uuid, 'b')
    assert task_manager.reserved_by(admin, ['a', 'b', 'c']) == [
        (node.id, node.uuid, 'a'), (other.id, other.uuid, 'b')]
    assert task_manager.reserved_by(admin, []) == []
