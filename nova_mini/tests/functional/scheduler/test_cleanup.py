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

"""The scheduler's periodic clean-up on real databases (SQLite, PostgreSQL,
MariaDB): what a scheduler killed mid-build leaves (builds in BUILD, nodes
claimed or deployed for instances that are not on them) is failed and
freed, what live builds hold is left alone, and schedulers running it at
the same time free each node once.
"""

import datetime
import time
import uuid

import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.scheduler import cleanup
from nova_mini.scheduler import orphan_claims
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

TIMEOUT = 30
_NODES = models.Node.__table__
_INSTANCES = models.Instance.__table__


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _ago(seconds):
    return datetime.datetime.utcnow() - datetime.timedelta(seconds=seconds)


def _backdate(engine, table, uuid_, seconds, column):
    with engine.begin() as connection:
        connection.execute(table.update().where(table.c.uuid == uuid_).values(
            {column: _ago(seconds)}))


def _node(admin, engine, name, instance_uuid=None, state=states.AVAILABLE,
          age=TIMEOUT + 5, **values):
    """A node, claimed by ``instance_uuid`` in ``state``, last changed
    ``age`` seconds ago.
    """
    node = builders.create_node(admin, name, provision_state=state,
                                properties=builders.node_properties(),
                                resource_class='baremetal', **values)
    if instance_uuid:
        with engine.begin() as connection:
            connection.execute(_NODES.update().where(
                _NODES.c.id == node.id).values(
                    instance_uuid=instance_uuid,
                    instance_info={'traits': []}))
    _backdate(engine, _NODES, node.uuid, age, 'updated_at')
    return node.uuid


def _server(admin, engine, vm_state=instance_obj.BUILDING, node_uuid=None,
            age=0):
    server_uuid = str(uuid.uuid4())
    builders.boot_server(admin, server_uuid, vm_state=vm_state,
                         node_uuid=node_uuid)
    if age:
        _backdate(engine, _INSTANCES, server_uuid, age, 'created_at')
    return server_uuid


def _node_row(engine, node_uuid):
    with engine.connect() as connection:
        return connection.execute(sa.select(
            _NODES.c.instance_uuid, _NODES.c.provision_state,
            _NODES.c.power_state, _NODES.c.instance_info,
            _NODES.c.lessee).where(_NODES.c.uuid == node_uuid)).one()


def test_overdue_build_fails_with_a_fault(admin, engine):
    overdue = _server(admin, engine, age=TIMEOUT + 5)
    recent = _server(admin, engine, age=TIMEOUT - 10)
    expired, freed = cleanup.run_once(admin, TIMEOUT)
    assert (expired, freed) == (1, [])
    failed = objects.Instance.get_by_uuid(admin, overdue)
    assert failed.vm_state == instance_obj.ERROR
    assert failed.fault['code'] == 500
    assert failed.fault['message'].startswith(
        'Timed out waiting for a scheduler: the build was not finished '
        'within 30 seconds')
    assert objects.Instance.get_by_uuid(
        admin, recent).vm_state == instance_obj.BUILDING


def test_scheduler_killed_between_claim_and_deploy(admin, engine):
    """One run fails the build the dead scheduler held and frees its
    node.
    """
    server = _server(admin, engine, age=TIMEOUT + 5)
    node = _node(admin, engine, 'claimed', server)
    expired, freed = cleanup.run_once(admin, TIMEOUT)
    assert expired == 1
    assert freed == [orphan_claims.Orphan(node, server)]
    row = _node_row(engine, node)
    assert (row.instance_uuid, row.provision_state, row.instance_info) == (
        None, states.AVAILABLE, {})
    assert objects.Instance.get_by_uuid(
        admin, server).vm_state == instance_obj.ERROR


def test_deployed_node_of_a_failed_build_is_undeployed(admin, engine):
    """Killed after the deploy, before the instance became ACTIVE: the
    node is undeployed as a deletion would, its automatic lessee too.
    """
    server = _server(admin, engine, vm_state=instance_obj.ERROR)
    node = _node(admin, engine, 'deployed', server, state=states.ACTIVE,
                 power_state=states.POWER_ON, lessee='demo')
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(_NODES.c.uuid == node).values(
            instance_info={'traits': [], 'project_id': 'demo'}))
    _backdate(engine, _NODES, node, TIMEOUT + 5, 'updated_at')
    assert orphan_claims.release_orphans(admin, TIMEOUT) == [
        orphan_claims.Orphan(node, server)]
    row = _node_row(engine, node)
    assert (row.instance_uuid, row.provision_state, row.power_state,
            row.instance_info, row.lessee) == (
        None, states.AVAILABLE, states.POWER_OFF, {}, None)


@pytest.mark.parametrize('state', [states.RESCUE, states.RESCUEWAIT,
                                   states.RESCUEFAIL, states.UNRESCUEFAIL])
def test_rescued_node_of_a_gone_server_is_torn_down(admin, engine, state):
    """A node an operator rescued holds its server's instance; once the
    server is gone, it is freed as a deployed one.
    """
    gone = str(uuid.uuid4())
    node = _node(admin, engine, 'rescued', gone, state=state,
                 power_state=states.POWER_ON)
    assert orphan_claims.release_orphans(admin, TIMEOUT) == [
        orphan_claims.Orphan(node, gone)]
    row = _node_row(engine, node)
    assert (row.instance_uuid, row.provision_state, row.instance_info) == (
        None, states.AVAILABLE, {})


def test_rescued_node_of_a_live_server_is_kept(admin, engine):
    server = _server(admin, engine, vm_state=instance_obj.ACTIVE)
    node = _node(admin, engine, 'rescued', server, state=states.RESCUE)
    with engine.begin() as connection:
        connection.execute(_INSTANCES.update().where(
            _INSTANCES.c.uuid == server).values(node_uuid=node))
    assert orphan_claims.release_orphans(admin, TIMEOUT) == []
    row = _node_row(engine, node)
    assert (row.instance_uuid, row.provision_state) == (server,
                                                        states.RESCUE)


def test_orphans_freed_and_live_claims_kept(admin, engine):
    gone = str(uuid.uuid4())
    elsewhere = _server(admin, engine, vm_state=instance_obj.ACTIVE,
                        node_uuid=str(uuid.uuid4()))
    building = _server(admin, engine)
    failed = _server(admin, engine, vm_state=instance_obj.ERROR)
    deployed = _server(admin, engine, vm_state=instance_obj.ACTIVE)
    failed_on_node = _server(admin, engine, vm_state=instance_obj.ERROR)
    recent = _server(admin, engine, vm_state=instance_obj.ERROR)
    operator = str(uuid.uuid4())
    freed = {
        _node(admin, engine, 'gone', gone): gone,
        _node(admin, engine, 'elsewhere', elsewhere): elsewhere,
        _node(admin, engine, 'failed', failed): failed,
    }
    kept = {
        # A live build's claim, however old the node.
        _node(admin, engine, 'building', building): building,
        # Instances on their node, ACTIVE or failed later on it.
        _node(admin, engine, 'active', deployed, state=states.ACTIVE):
            deployed,
        _node(admin, engine, 'failed-on', failed_on_node,
              state=states.ACTIVE): failed_on_node,
        # Claimed too recently: a scheduler may be deploying it.
        _node(admin, engine, 'recent', recent, age=TIMEOUT - 10): recent,
        # Moved by an operator: not a build's leftover.
        _node(admin, engine, 'manageable', operator,
              state=states.MANAGEABLE): operator,
    }
    with engine.begin() as connection:
        for node, server in ((list(kept)[1], deployed),
                             (list(kept)[2], failed_on_node)):
            connection.execute(_INSTANCES.update().where(
                _INSTANCES.c.uuid == server).values(node_uuid=node))
    result = orphan_claims.release_orphans(admin, TIMEOUT)
    assert sorted(result) == sorted(
        orphan_claims.Orphan(n, i) for n, i in freed.items())
    for node in freed:
        assert _node_row(engine, node).instance_uuid is None
    for node, server in kept.items():
        assert _node_row(engine, node).instance_uuid == server
    # A second run finds nothing more.
    assert orphan_claims.release_orphans(admin, TIMEOUT) == []


def test_claim_taken_again_meanwhile_is_kept(admin, engine):
    """Between the read of the orphans and the release a live build claims
    the node again: the release's own conditions see it and leave it.
    """
    failed = _server(admin, engine, vm_state=instance_obj.ERROR)
    node = _node(admin, engine, 'retaken', failed)
    cutoff = _ago(TIMEOUT)
    [row] = orphan_claims._candidates(admin, cutoff, 10)
    building = _server(admin, engine)
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(_NODES.c.uuid == node).values(
            instance_uuid=building, updated_at=_ago(TIMEOUT + 5)))
    assert not orphan_claims._release(admin, row.id, row.uuid,
                                      row.instance_uuid, cutoff)
    assert _node_row(engine, node).instance_uuid == building


def test_schedulers_cleaning_at_once_free_each_node_once(admin, engine):
    count = 12
    orphans = {}
    for i in range(count):
        server = _server(admin, engine, age=TIMEOUT + 5)
        orphans[_node(admin, engine, 'o%d' % i, server)] = server
    results = [None] * 4

    def clean(index):
        results[index] = cleanup.run_once(nm_context.get_admin_context(),
                                          TIMEOUT)

    assert threads.race(clean, len(results)) == []
    assert sum(expired for expired, _freed in results) == count
    freed = [orphan for _expired, f in results for orphan in f]
    assert sorted(freed) == sorted(
        orphan_claims.Orphan(n, i) for n, i in orphans.items())
    for node in orphans:
        row = _node_row(engine, node)
        assert (row.instance_uuid, row.provision_state) == (
            None, states.AVAILABLE)
    for server in orphans.values():
        instance = objects.Instance.get_by_uuid(admin, server)
        assert instance.vm_state == instance_obj.ERROR
        assert instance.fault['message'].startswith('Timed out')


def test_periodic_thread_runs_and_stops(admin, engine):
    server = _server(admin, engine, age=TIMEOUT + 5)
    node = _node(admin, engine, 'periodic', server)
    periodic = cleanup.PeriodicCleanup(0.2, TIMEOUT)
    periodic.start()
    try:
        deadline = time.monotonic() + 30
        while (_node_row(engine, node).instance_uuid is not None
               and time.monotonic() < deadline):
            time.sleep(0.1)
    finally:
        started = time.monotonic()
        periodic.stop(timeout=30)
    assert time.monotonic() - started < 10
    assert not periodic._thread.is_alive()
    assert _node_row(engine, node).instance_uuid is None
    assert objects.Instance.get_by_uuid(
        admin, server).vm_state == instance_obj.ERROR


def test_interval_zero_starts_no_thread():
    periodic = cleanup.PeriodicCleanup(0, TIMEOUT)
    periodic.start()
    periodic.stop()
    assert periodic._thread is None
