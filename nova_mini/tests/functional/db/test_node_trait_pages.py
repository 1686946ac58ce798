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

"""Pages of node lists filtered by traits, on SQLite, PostgreSQL and
MariaDB: the page conditions of objects.baremetal.node_filters (a walk of the nodes
probing their traits, or on SQLite a start from a rare trait) give, page
after page, what a plain Python filter of a random fleet gives.
"""

import random

import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.baremetal import node_filters
from nova_mini.tests.fixtures import builders

NODES = 120
# Traits and the share of the nodes having each: common ones, whose
# filters fill a page, and rare ones, which SQLite starts a page from.
SHARES = {'CUSTOM_T%02d' % i: share for i, share in enumerate(
    [0.9, 0.8, 0.6, 0.5, 0.5, 0.3, 0.2, 0.1, 0.06, 0.04, 0.02, 0.0])}
FILTERS = ('traits', 'not_traits', 'traits_any', 'not_traits_any')


@pytest.fixture
def fleet(db):
    """NODES nodes with random traits: {name: set of traits}."""
    admin = nm_context.get_admin_context()
    rng = random.Random(25)
    held = {}
    for i in range(NODES):
        traits = {t for t, share in SHARES.items() if rng.random() < share}
        name = 'n%03d' % i
        builders.create_node(admin, name, sorted(traits))
        held[name] = traits
    return admin, held


def _matches(traits, filters):
    """Whether a node of ``traits`` passes ``filters``: the definition."""
    return (set(filters.get('traits', ())) <= traits
            and not set(filters.get('not_traits', ())) & traits
            and (not filters.get('traits_any')
                 or bool(set(filters['traits_any']) & traits))
            and (not filters.get('not_traits_any')
                 or not set(filters['not_traits_any']) <= traits))


def _random_filters(rng):
    names = sorted(SHARES) + ['CUSTOM_NOBODY']
    filters = {}
    for name, most in zip(FILTERS, (3, 3, 3, 2)):
        chosen = rng.sample(names, rng.randint(0, most))
        if chosen:
            filters[name] = chosen
    return filters


def _pages(admin, filters, limit):
    """Every node name the list gives, page after page of ``limit``."""
    names, marker = [], None
    while True:
        page = objects.NodeList.get_all(admin, filters=dict(filters),
                                        limit=limit, marker=marker)
        names.extend(node.name for node in page)
        if len(page) < limit:
            return names
        marker = page[-1].uuid


def test_pages_match_a_python_filter(fleet):
    admin, held = fleet
    order = [node.name for node in objects.NodeList.get_all(admin)]
    rng = random.Random(2025)
    tried = 0
    for _ in range(60):
        filters = _random_filters(rng)
        expected = [name for name in order if _matches(held[name], filters)]
        for limit in (1, 7, 1000):
            assert _pages(admin, filters, limit) == expected, (filters, limit)
        whole = objects.NodeList.get_all(admin, filters=dict(filters))
        assert [node.name for node in whole] == expected, filters
        tried += bool(expected)
    # The draw asks filters some nodes pass, not only empty ones.
    assert tried > 20


def test_pages_by_other_sort_keys(fleet):
    admin, held = fleet
    filters = {'traits': ['CUSTOM_T00'], 'not_traits': ['CUSTOM_T05'],
               'traits_any': ['CUSTOM_T02', 'CUSTOM_T07']}
    for key in ('name', 'uuid'):
        for direction in ('asc', 'desc'):
            page = objects.NodeList.get_all(
                admin, filters=dict(filters), sort_key=key,
                sort_dir=direction, limit=5)
            everyone = objects.NodeList.get_all(
                admin, sort_key=key, sort_dir=direction)
            expected = [n.name for n in everyone
                        if _matches(held[n.name], filters)][:5]
            assert [n.name for n in page] == expected, (key, direction)


def test_sqlite_starts_from_a_rare_trait_only(fleet, db):
    admin, held = fleet
    if db.engine.dialect.name != 'sqlite':
        pytest.skip('the start of the walk is chosen on SQLite only')
    session = sa.orm.Session(db.engine)
    try:
        # CUSTOM_T09 (4 %) is on fewer nodes than 50 x limit 10, and so
        # is CUSTOM_T00 (90 %), but on more; CUSTOM_T00 is on more than
        # 50 x limit 1, and counting it spends the 50 entries that may be
        # read in all.
        assert node_filters._rarest(
            session, ['CUSTOM_T00', 'CUSTOM_T09'], 10) == 'CUSTOM_T09'
        assert node_filters._rarest(session, ['CUSTOM_T00'], 10) == \
            'CUSTOM_T00'
        assert node_filters._rarest(session, ['CUSTOM_T00'], 1) is None
        assert node_filters._rarest(
            session, ['CUSTOM_T00', 'CUSTOM_T09'], 1) is None
        assert node_filters._rarest(
            session, ['CUSTOM_T09', 'CUSTOM_T00'], 1) == 'CUSTOM_T09'
        assert node_filters._rarest(
            session, ['CUSTOM_T00', 'CUSTOM_T09'], 1000) == 'CUSTOM_T09'
        assert node_filters._rarest(session, ['CUSTOM_T11'], 1) == \
            'CUSTOM_T11'
    finally:
        session.close()
    expected = [name for name in sorted(held)
                if {'CUSTOM_T00', 'CUSTOM_T09'} <= held[name]]
    assert _pages(admin, {'traits': ['CUSTOM_T00', 'CUSTOM_T09']}, 1) == \
        expected


def _page_plan(engine, filters, limit):
    """SQLite's plan of the page query of ``filters``."""
    statements = []

    def capture(conn, cursor, statement, parameters, context, many):
        if statement.lstrip().startswith('SELECT nodes.id'):
            statements.append((statement, parameters))

    admin = nm_context.get_admin_context()
    sa.event.listen(engine, 'before_cursor_execute', capture)
    try:
        objects.NodeList.get_all(admin, filters=filters, limit=limit)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', capture)
    [(statement, parameters)] = statements
    with engine.connect() as conn:
        cursor = conn.connection.dbapi_connection.cursor()
        cursor.execute('EXPLAIN QUERY PLAN ' + statement, parameters)
        return [row[-1] for row in cursor]


def test_sqlite_page_walks_the_nodes_in_order(db):
    if db.engine.dialect.name != 'sqlite':
        pytest.skip('a plan of SQLite (PostgreSQL plans by statistics: see '
                    'tools/bench/node_traits_filter.py)')
    # The page of a filter many nodes pass is a walk of the nodes in id
    # order, each node's traits probed by the primary key, that stops at
    # the page's end: no set of every matching node (INTERSECT, a list
    # of a trait's nodes, a sort), whose cost grows with the fleet.
    admin = nm_context.get_admin_context()
    # More nodes with each required trait than 50 x the limit (1): none
    # of them starts the walk.
    for i in range(60):
        builders.create_node(admin, 'n%02d' % i, ['CUSTOM_A', 'CUSTOM_B'])
    plan = _page_plan(db.engine, {
        'traits': ['CUSTOM_A', 'CUSTOM_B'], 'not_traits': ['CUSTOM_C'],
        'traits_any': ['CUSTOM_A', 'CUSTOM_D']}, limit=1)
    assert plan[0] == 'SCAN nodes', plan
    assert not [line for line in plan if 'COMPOUND' in line
                or 'LIST SUBQUERY' in line or 'TEMP B-TREE' in line], plan
    probes = [line for line in plan if line.startswith('SEARCH')]
    assert probes and all('node_traits' in line and '(node_id=? AND trait=?)'
                          in line for line in probes), plan
    stored = sa.select(sa.func.count()).select_from(
        models.NodeTrait.__table__)
    with db.engine.connect() as conn:
        assert conn.execute(stored).scalar() == 120
