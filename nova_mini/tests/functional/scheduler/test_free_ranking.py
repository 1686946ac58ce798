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

"""The ranked reads on a full fleet: the best-ranked slices hold only
free nodes of the class asked for, however many better-ranked nodes are
deployed, in maintenance or of another class; and the database plans
read them from the partial indexes of the free nodes.
"""

import datetime
import uuid

import pytest

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini import objects
from nova_mini.objects import request_spec
from nova_mini.scheduler import candidates
from nova_mini.scheduler import filter_scheduler
from nova_mini.scheduler import weighers
from nova_mini import states
from nova_mini.tests.fixtures import builders


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _node(admin, name, memory_mb, resource_class='baremetal-gold',
          **values):
    return builders.create_node(
        admin, name, resource_class=resource_class,
        provision_state=values.pop('provision_state', states.AVAILABLE),
        properties=builders.node_properties(memory_mb=memory_mb),
        **values)


def _spec(resource_class='CUSTOM_BAREMETAL_GOLD'):
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=1024, vcpus=2, root_gb=10,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=None,
        is_public=True, disabled=False, description=None,
        extra_specs={'resources:%s' % resource_class: '1'},
        created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


@pytest.fixture
def full_fleet(admin):
    """The best-ranked nodes of all are taken: claimed (by the claim
    path), deployed, in maintenance or of another class; three free
    gold nodes rank below them.
    """
    for i in range(6):
        node = _node(admin, 'claimed-%d' % i, 65536 + i)
        assert objects.Node.claim(admin, node.uuid, str(uuid.uuid4()), {})
    _node(admin, 'active', 60000, provision_state=states.ACTIVE)
    _node(admin, 'maintenance', 50000, maintenance=True)
    _node(admin, 'silver', 40000, resource_class='baremetal-silver')
    _node(admin, 'silver-dot', 39000, resource_class='Baremetal.Silver')
    for memory_mb, name in ((8192, 'free-a'), (4096, 'free-b'),
                            (2048, 'free-c')):
        _node(admin, name, memory_mb)


def _order(conf):
    return weighers.sql_order(weighers.load(['RAMWeigher']), conf.conf)


def test_slices_rank_only_free_nodes_of_the_class(admin, conf, full_fleet):
    order = _order(conf)
    spec = _spec()

    def among(start, count):
        return [n.name for n in candidates.get_candidates(
            admin, spec, order_by=order, among=(start, count))]

    # Before, the first two ranks were claimed nodes: nothing came back.
    assert among(0, 2) == ['free-a', 'free-b']
    assert among(2, 2) == ['free-c']
    assert among(3, 5) == []
    with db_api.context_manager.reader.using(admin):
        assert candidates.free_count(admin, spec, order, 10) == 3
        assert candidates.free_count(admin, spec, order, 2) == 2
        # The class is matched as placement names it.
        assert candidates.free_count(
            admin, _spec('CUSTOM_BAREMETAL_SILVER'), order, 10) == 2


def test_selection_reads_one_slice_on_a_full_fleet(admin, conf, full_fleet):
    driver = filter_scheduler.FilterScheduler(conf.conf)
    counts = {}
    with db_api.context_manager.reader.using(admin):
        passed = driver._passing(admin, _spec(), 3, counts)
    assert [n.name for n in passed] == ['free-a', 'free-b', 'free-c']
    # Only the free gold nodes were read, once.
    assert counts['database'] == 3
    [[selection]] = driver.select_destinations(admin, _spec(),
                                               [str(uuid.uuid4())])
    assert selection.node_uuid == objects.Node.get_by_uuid(
        admin, selection.node_uuid).uuid
    assert objects.Node.get_by_uuid(
        admin, selection.node_uuid).name == 'free-a'


def test_fewer_free_nodes_than_needed_are_all_there_is(
        admin, conf, full_fleet):
    driver = filter_scheduler.FilterScheduler(conf.conf)
    counts = {}
    with db_api.context_manager.reader.using(admin):
        passed = driver._passing(admin, _spec(), 5, counts)
    # Every free node seen in the ranked reads: no trait-index fallback.
    assert [n.name for n in passed] == ['free-a', 'free-b', 'free-c']
    assert counts['database'] == 3


def _plan(admin, statement):
    bind = admin.session.get_bind()
    sql = str(statement.compile(dialect=bind.dialect,
                                compile_kwargs={'literal_binds': True}))
    connection = admin.session.connection()
    if bind.dialect.name == 'sqlite':
        rows = connection.exec_driver_sql('EXPLAIN QUERY PLAN ' + sql)
        return ' '.join(str(row[-1]) for row in rows)
    # A handful of rows: make PostgreSQL show the index it can use.
    connection.exec_driver_sql('SET LOCAL enable_seqscan = off')
    return ' '.join(row[0] for row in connection.exec_driver_sql(
        'EXPLAIN ' + sql))


@pytest.mark.parametrize('resource_class, index', [
    (None, 'nodes_free_memory_mb_idx'),
    ('CUSTOM_BAREMETAL_GOLD', 'nodes_free_class_memory_mb_idx'),
])
def test_ranked_free_nodes_come_from_the_partial_index(admin, conf,
                                                       full_fleet,
                                                       resource_class,
                                                       index):
    with db_api.context_manager.reader.using(admin):
        dialect = admin.session.get_bind().dialect.name
        query = candidates._ranked_free(
            _order(conf), dialect, resource_class).limit(2)
        # MariaDB has no partial index (db/models.py): the ranking only.
        if dialect != 'mysql':
            plan = _plan(admin, query)
            assert index in plan, plan
        ids = admin.session.execute(query).scalars().all()
    names = {n.id: n.name for n in objects.NodeList.get_all(admin)}
    assert [names[i] for i in ids] == (
        ['free-a', 'free-b'] if resource_class else ['silver', 'silver-dot'])


def test_walk_reads_the_free_nodes_down_to_the_cutoff(admin, conf,
                                                      full_fleet):
    order = _order(conf)
    spec = _spec()
    with db_api.context_manager.reader.using(admin):
        cutoff = candidates.rank_cutoff(admin, spec, order, 2)
        free_b = objects.Node.get_by_uuid(
            admin, candidates.get_candidates(
                admin, spec, order_by=order, among=(1, 1))[0].uuid)
        # The memory and id of the second free gold node: the claimed,
        # deployed, maintenance and silver nodes rank before it.
        assert cutoff == (4096, free_b.id)
        # Fewer free gold nodes than asked for: no bound.
        assert candidates.rank_cutoff(admin, spec, order, 4) == ()
        chunks = candidates.candidate_chunks(
            admin, spec, 1, order_by=order, within=cutoff)
        assert [[n.name for n in chunk] for chunk in chunks] == [
            ['free-a'], ['free-b']]
        # Without a bound, the walk reads every free gold node.
        chunks = candidates.candidate_chunks(
            admin, spec, 2, order_by=order, within=())
        assert [[n.name for n in chunk] for chunk in chunks] == [
            ['free-a', 'free-b'], ['free-c']]


def test_walk_comes_from_the_partial_index(admin, conf, full_fleet):
    order = _order(conf)
    spec = _spec()
    with db_api.context_manager.reader.using(admin):
        dialect = admin.session.get_bind().dialect.name
        cutoff = candidates.rank_cutoff(admin, spec, order, 2)
        bounded = candidates._statement(
            spec, dialect, False, order, None, 0, None, True,
            capabilities=True, within='bounded').params(
                rank_0=cutoff[0], rank_1=cutoff[1])
        unbounded = candidates._statement(
            spec, dialect, False, order, None, 0, None, True,
            capabilities=True, within='all')
        for query in (bounded, unbounded):
            if dialect == 'mysql':
                continue
            plan = _plan(admin, query)
            assert 'nodes_free_class_memory_mb_idx' in plan, plan
            # Read in the index's order: nothing sorted.
            assert 'TEMP B-TREE' not in plan and 'Sort' not in plan, plan


class _Walk:
    @db_api.autocommit
    def names(self, context, spec, order, claim_after_first):
        # As the scheduler walks (FilterScheduler._passing): statements
        # standing alone, each seeing the claims committed before it.
        with db_api.context_manager.reader.using(context):
            names = []
            for chunk in candidates.candidate_chunks(
                    context, spec, 2, order_by=order, within=()):
                names.append([n.name for n in chunk])
                if len(names) == 1:
                    claim_after_first(chunk)
            return names


def test_walk_gives_no_node_twice_when_one_is_freed_meanwhile(
        admin, conf, full_fleet):
    _node(admin, 'free-d', 1024)
    order = _order(conf)

    def free_a_better_one(chunk):
        # A better-ranked node becomes free (a server deleted, a node
        # enrolled) before the rest is read: the others move down one
        # place in the ranking.
        _node(nm_context.get_admin_context(), 'freed', 99999)

    names = _Walk().names(admin, _spec(), order, free_a_better_one)
    flat = [name for chunk in names for name in chunk]
    assert names[0] == ['free-a', 'free-b']
    assert flat == ['free-a', 'free-b', 'free-c', 'free-d'], names
