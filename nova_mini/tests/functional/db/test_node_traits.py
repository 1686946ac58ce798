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

"""Nodes and their traits in the database, on SQLite (a file) and
PostgreSQL: on-demand loading, removal with the node, trait filters in
SQL, and the limit of 50 traits per node under concurrent writers.
"""


import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import node_trait
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

LIMIT = node_trait.MAX_TRAITS_PER_NODE
THREADS = 12


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _traits(admin, node):
    return objects.NodeTraitList.get_by_node_id(admin,
                                                node.id).get_trait_names()


def test_traits_load_on_demand(admin):
    node = builders.create_node(admin, 'n1', ['CUSTOM_B', 'CUSTOM_A'])
    loaded = objects.Node.get_by_name(admin, 'n1')
    assert not loaded.obj_attr_is_set('traits')
    assert loaded.traits.get_trait_names() == ['CUSTOM_A', 'CUSTOM_B']
    assert _traits(admin, node) == ['CUSTOM_A', 'CUSTOM_B']


def test_add_is_idempotent_and_remove_reports_absence(admin):
    node = builders.create_node(admin, 'n1')
    for _ in range(2):
        objects.NodeTrait(admin, node_id=node.id, trait='CUSTOM_A').create()
    assert _traits(admin, node) == ['CUSTOM_A']
    objects.NodeTrait.destroy(admin, node.id, 'CUSTOM_A')
    with pytest.raises(exception_baremetal.NodeTraitNotFound):
        objects.NodeTrait.destroy(admin, node.id, 'CUSTOM_A')


def test_unknown_node(admin):
    with pytest.raises(exception_baremetal.NodeNotFound):
        objects.NodeTrait(admin, node_id=12345, trait='CUSTOM_A').create()
    with pytest.raises(exception_baremetal.NodeNotFound):
        objects.NodeTraitList.create(admin, 12345, ['CUSTOM_A'])


def test_traits_go_with_the_node(admin, db):
    node = builders.create_node(admin, 'n1', ['CUSTOM_A', 'CUSTOM_B'])
    keep = builders.create_node(admin, 'n2', ['CUSTOM_A'])
    node.destroy()
    assert db.row_counts()['node_traits'] == 1
    assert _traits(admin, keep) == ['CUSTOM_A']


def test_the_schema_cascades_too(admin, db):
    node = builders.create_node(admin, 'n1', ['CUSTOM_A'])
    with db.engine.begin() as connection:
        if connection.dialect.name == 'sqlite':
            connection.exec_driver_sql('PRAGMA foreign_keys=ON')
        connection.execute(models.Node.__table__.delete().where(
            models.Node.__table__.c.id == node.id))
    assert db.row_counts()['node_traits'] == 0


def test_rejected_replace_keeps_the_old_set(admin):
    old = ['CUSTOM_T%02d' % i for i in range(LIMIT)]
    node = builders.create_node(admin, 'n1', old)
    with pytest.raises(exception_baremetal.TooManyTraits):
        objects.NodeTraitList.create(
            admin, node.id, ['CUSTOM_N%02d' % i for i in range(LIMIT + 1)])
    with pytest.raises(exception_baremetal.TooManyTraits):
        objects.NodeTrait(admin, node_id=node.id, trait='CUSTOM_X').create()
    assert _traits(admin, node) == old


def _race(target):
    """The exceptions the racing calls raised."""
    return [exc for _index, exc in threads.race(target, THREADS)]


def test_concurrent_adds_never_pass_the_limit(admin):
    node = builders.create_node(admin, 'n1', ['CUSTOM_BASE%02d' % i for i in range(40)])
    added = []

    def add(index):
        for round_ in range(3):
            context = nm_context.get_admin_context()
            try:
                objects.NodeTrait(context, node_id=node.id,
                                  trait='CUSTOM_T%d_%d' % (index, round_)
                                  ).create()
                added.append(index)
            except exception_baremetal.TooManyTraits:
                pass

    assert _race(add) == []
    assert len(_traits(admin, node)) == LIMIT
    assert len(added) == LIMIT - 40


def test_concurrent_replaces_and_adds(admin):
    node = builders.create_node(admin, 'n1')

    def write(index):
        context = nm_context.get_admin_context()
        for round_ in range(3):
            if index % 2:
                traits = ['CUSTOM_R%d_%d_%d' % (index, round_, i)
                          for i in range(LIMIT - 5)]
                objects.NodeTraitList.create(context, node.id, traits)
            else:
                for i in range(4):
                    try:
                        objects.NodeTrait(
                            context, node_id=node.id,
                            trait='CUSTOM_A%d_%d_%d' % (index, round_, i)
                        ).create()
                    except exception_baremetal.TooManyTraits:
                        pass

    assert _race(write) == []
    assert len(_traits(admin, node)) <= LIMIT


# Filters

@pytest.fixture
def colours(admin):
    builders.create_node(admin, 'n1', ['CUSTOM_RED', 'CUSTOM_BIG'])
    builders.create_node(admin, 'n2', ['CUSTOM_BLUE', 'CUSTOM_BIG'])
    builders.create_node(admin, 'n3', ['CUSTOM_RED'])
    builders.create_node(admin, 'n4')


@pytest.mark.parametrize('filters, expected', [
    ({'traits': ['CUSTOM_RED', 'CUSTOM_BIG']}, ['n1']),
    ({'not_traits': ['CUSTOM_RED', 'CUSTOM_BLUE']}, ['n4']),
    ({'traits_any': ['CUSTOM_RED', 'CUSTOM_BLUE']}, ['n1', 'n2', 'n3']),
    ({'not_traits_any': ['CUSTOM_RED', 'CUSTOM_BIG']}, ['n2', 'n3', 'n4']),
    ({'traits': ['CUSTOM_BIG'], 'not_traits': ['CUSTOM_RED']}, ['n2']),
    ({'traits_any': ['CUSTOM_BIG'], 'not_traits_any': ['CUSTOM_BLUE']},
     ['n1']),
])
def test_trait_filters(admin, colours, filters, expected):
    nodes = objects.NodeList.get_all(admin, filters=filters)
    assert [node.name for node in nodes] == expected


def test_filters_are_sql(admin, colours):
    # The conditions are subqueries on node_traits, not a Python scan.
    from nova_mini.objects.baremetal import node_filters
    for condition in node_filters.conditions({
            'traits': ['CUSTOM_A'], 'not_traits': ['CUSTOM_B'],
            'traits_any': ['CUSTOM_C'], 'not_traits_any': ['CUSTOM_D']}):
        assert 'node_traits' in str(condition.compile(
            compile_kwargs={'literal_binds': True}))


def test_list_loads_traits_in_one_query(admin, colours, db):
    statements = []

    def count(*_args):
        statements.append(1)

    engine = db.engine
    sa.event.listen(engine, 'before_cursor_execute', count)
    try:
        nodes = objects.NodeList.get_all(admin, with_traits=True)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', count)
    assert [n.traits.get_trait_names() for n in nodes][0] == [
        'CUSTOM_BIG', 'CUSTOM_RED']
    assert len(statements) <= 3
