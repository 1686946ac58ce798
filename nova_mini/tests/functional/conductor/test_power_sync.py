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

"""The conductor's power state sync over the database: out-of-band
changes stored or undone as configured, maintenance with Ironic's reason
after the retries, only this conductor's nodes, none of those being
worked on.
"""

import threading
import time

import pytest
import sqlalchemy as sa

from nova_mini.conductor import hash_ring
from nova_mini.conductor import power_sync
from nova_mini.conductor import task_manager
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini import states
from nova_mini.tests.fixtures import builders

HOST = 'sync-1'
_NODES = models.Node.__table__


class BMCs(object):
    """Each node's BMC: its power state, or an error to raise."""

    def __init__(self):
        self.power = {}
        self.errors = {}
        self.sets = []

    def get_power_state(self, node):
        if node.uuid in self.errors:
            raise self.errors[node.uuid]
        return self.power[node.uuid]

    def set_power_state(self, node, target, timeout=None):
        self.sets.append((node.uuid, target))
        if node.uuid + ':set' in self.errors:
            raise self.errors[node.uuid + ':set']
        self.power[node.uuid] = states.POWER_TARGETS[target]


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def bmcs():
    return BMCs()


@pytest.fixture
def sync(conf, admin, bmcs):
    conductor_obj.register_host(admin, HOST, ['redfish'])
    ring = hash_ring.HashRingManager()
    return power_sync.PowerSync(HOST, ['redfish'],
                                hardware_for=lambda node: bmcs, ring=ring)


def _node(admin, bmcs, name, stored, actual, **values):
    values.setdefault('provision_state', states.ACTIVE)
    node = builders.create_node(admin, name, driver='redfish',
                                power_state=stored, **values)
    bmcs.power[node.uuid] = actual
    return node


def _row(engine, node):
    with engine.connect() as connection:
        return connection.execute(sa.select(_NODES).where(
            _NODES.c.id == node.id)).one()._mapping


def test_out_of_band_changes_are_undone_by_default(engine, admin, bmcs,
                                                   sync):
    same = _node(admin, bmcs, 'same', states.POWER_ON, states.POWER_ON)
    changed = _node(admin, bmcs, 'changed', states.POWER_ON,
                    states.POWER_OFF)
    unknown = _node(admin, bmcs, 'unknown', None, states.POWER_OFF)
    outcomes = sync.run_once(admin)
    assert outcomes == {power_sync.IN_SYNC: 1, power_sync.FORCED: 1,
                        power_sync.RECORDED: 1}
    assert bmcs.sets == [(changed.uuid, states.POWER_ON)]
    assert bmcs.power[changed.uuid] == states.POWER_ON
    assert _row(engine, changed)['power_state'] == states.POWER_ON
    assert _row(engine, changed)['reservation'] is None
    assert _row(engine, unknown)['power_state'] == states.POWER_OFF
    assert _row(engine, same)['power_state'] == states.POWER_ON
    assert sync.run_once(admin) == {power_sync.IN_SYNC: 3}


def test_out_of_band_changes_are_stored_when_not_forced(conf, engine,
                                                        admin, bmcs, sync):
    conf.config(force_power_state_during_sync=False, group='conductor')
    node = _node(admin, bmcs, 'n1', states.POWER_ON, states.POWER_OFF)
    assert sync.run_once(admin) == {power_sync.RECORDED: 1}
    assert bmcs.sets == []
    assert _row(engine, node)['power_state'] == states.POWER_OFF


def test_maintenance_after_the_retries(conf, engine, admin, bmcs, sync):
    conf.config(power_state_sync_max_retries=2, group='conductor')
    stuck = _node(admin, bmcs, 'stuck', states.POWER_ON, states.POWER_OFF)
    bmcs.errors[stuck.uuid + ':set'] = exception.Invalid('BMC busy')
    for _ in range(3):
        assert sync.run_once(admin) == {power_sync.FAILED: 1}
        assert not _row(engine, stuck)['maintenance']
    assert sync.run_once(admin) == {power_sync.MAINTENANCE: 1}
    row = _row(engine, stuck)
    reason = (
        "During sync_power_state, max retries exceeded for node %s, node "
        "state power off does not match expected state 'power on'. "
        "Updating DB state to 'power off' Switching node to maintenance "
        "mode." % stuck.uuid)
    assert (row['maintenance'], row['maintenance_reason'],
            row['last_error'], row['power_state']) == (
                True, reason, reason, states.POWER_OFF)
    assert len(bmcs.sets) == 3
    # In maintenance: no longer synced.
    assert sync.run_once(admin) == {}


def test_an_unreadable_bmc_goes_to_maintenance_with_its_error(
        conf, engine, admin, bmcs, sync):
    conf.config(power_state_sync_max_retries=0, group='conductor')
    node = _node(admin, bmcs, 'gone', states.POWER_ON, None)
    bmcs.errors[node.uuid] = exception.Invalid('Connection refused')
    assert sync.run_once(admin) == {power_sync.MAINTENANCE: 1}
    row = _row(engine, node)
    assert row['maintenance'] is True
    assert row['maintenance_reason'].endswith(
        "Switching node to maintenance mode. Error: Connection refused")
    assert row['power_state'] is None


def test_only_the_nodes_this_conductor_may_sync(engine, admin, bmcs, sync):
    mine = _node(admin, bmcs, 'mine', states.POWER_ON, states.POWER_OFF)
    skipped = [
        _node(admin, bmcs, 'reserved', states.POWER_ON, states.POWER_OFF),
        _node(admin, bmcs, 'maintenance', states.POWER_ON,
              states.POWER_OFF, maintenance=True),
        _node(admin, bmcs, 'pending', states.POWER_ON, states.POWER_OFF,
              target_power_state=states.POWER_OFF),
        _node(admin, bmcs, 'enroll', states.POWER_ON, states.POWER_OFF,
              provision_state=states.ENROLL),
        _node(admin, bmcs, 'deploying', states.POWER_ON, states.POWER_OFF,
              provision_state=states.DEPLOYING),
        _node(admin, bmcs, 'adopting', states.POWER_ON, states.POWER_OFF,
              provision_state=states.ADOPTING),
        builders.create_node(admin, 'fake', power_state=states.POWER_ON),
    ]
    assert task_manager.reserve(admin, skipped[0].id, 'another-host')
    assert [node.uuid for node in sync.nodes(admin)] == [mine.uuid]
    # Another conductor joining takes part of the nodes.
    conductor_obj.register_host(admin, 'sync-2', ['redfish'])
    sync.ring.reset()
    many = [_node(admin, bmcs, 'm%d' % i, states.POWER_ON, states.POWER_ON)
            for i in range(30)]
    synced = {node.uuid for node in sync.nodes(admin)}
    assert 0 < len(synced & {node.uuid for node in many}) < 30
    for node in many:
        assert (node.uuid in synced) == (
            sync.ring.host_for(admin, node) == HOST)


def test_the_thread_syncs_on_its_own(conf, engine, admin, bmcs, sync):
    conf.config(sync_power_state_interval=1, group='conductor')
    node = _node(admin, bmcs, 'n1', None, states.POWER_ON)
    sync.start()
    try:
        deadline = 50
        while _row(engine, node)['power_state'] is None and deadline:
            sync._stopped.wait(0.2)
            deadline -= 1
    finally:
        sync.stop(10)
    assert _row(engine, node)['power_state'] == states.POWER_ON


class _SlowBMCs(BMCs):
    """A BMC that answers only once released (one that does not answer)."""

    def __init__(self):
        super(_SlowBMCs, self).__init__()
        self.asked = threading.Event()
        self.release = threading.Event()
        self.read = []

    def get_power_state(self, node):
        self.read.append(node.uuid)
        self.asked.set()
        self.release.wait(30)
        return super(_SlowBMCs, self).get_power_state(node)


def test_stop_is_bounded_and_begins_no_other_node(conf, engine, admin):
    # One sync worker: the nodes are read one after the other.
    conf.config(sync_power_state_interval=1, sync_power_state_workers=1,
                group='conductor')
    bmcs = _SlowBMCs()
    conductor_obj.register_host(admin, HOST, ['redfish'])
    sync = power_sync.PowerSync(HOST, ['redfish'],
                                hardware_for=lambda node: bmcs,
                                ring=hash_ring.HashRingManager())
    nodes = [_node(admin, bmcs, 'slow-%d' % i, None, states.POWER_ON)
             for i in range(3)]
    mine = [node for node in nodes
            if sync.ring.host_for(admin, node) == HOST]
    assert mine
    sync.start()
    try:
        assert bmcs.asked.wait(30)
        started = time.monotonic()
        # The pass is still in a BMC: not ended within the bound.
        assert sync.stop(0.5) is False
        assert time.monotonic() - started < 5
    finally:
        bmcs.release.set()
    # The node being read when the stop came is the only one read.
    deadline = time.monotonic() + 30
    while any(_row(engine, node)['reservation'] for node in mine):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert len(bmcs.read) == 1
    assert sync.stop(5) is True
