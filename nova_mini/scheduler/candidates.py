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

"""Candidate nodes: the database half of scheduling, the nodes a request
may get at all (their conditions: candidate_conditions, beside the
node filters of node_filters they build on).

One query returns the nodes that are available, not in maintenance,
without an instance, of the request's resource class, big enough for the
request's VCPU, MEMORY_MB and DISK_GB (the capacity columns), with every
required trait and no forbidden one (the request's resources and traits
are the merge of its request groups: one node meets them all), minus the
nodes this request ignores (or only the ones it forces). The filters
(scheduler.filters) then see only these candidates; given an order (the
weighers' ``sql_order``) and a limit, the query returns the best ones
first, a page at a time, or looks only at a slice of the best-ranked nodes
of all.
"""

import collections
import threading

import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.db import sqlite_hints  # noqa: F401 (INDEXED BY)
from nova_mini.objects import request_spec
from nova_mini.scheduler import candidate_conditions
from nova_mini.scheduler import node_state
from nova_mini import states


_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__
_BY_ID = (_NODES.c.id.asc(),)

# A node the scheduler may give away: available, not in maintenance,
# without an instance. Written as the predicate of the partial index
# nodes_free_memory_mb_idx (db/models.py), with literal values: SQLite
# uses a partial index only for a query naming the index's own terms,
# and PostgreSQL proves the predicate from them.
FREE = (_NODES.c.provision_state == sa.literal_column("'%s'"
                                                      % states.AVAILABLE),
        _NODES.c.maintenance.is_(False),
        _NODES.c.instance_uuid.is_(None))


# Candidate statements kept for reuse: building one (and its SQLAlchemy
# cache key) costs about as much as running it; the requests for one
# flavor share one. Least recently used first.
STATEMENT_CACHE_SIZE = 256
_statements = collections.OrderedDict()
_statements_lock = threading.Lock()

# A cached None is a request no node can match.
_MISSING = object()


def _traits_column():
    """Every trait of the node as one comma-separated string (trait
    names have no commas): one row per candidate, not one per trait.
    """
    return sa.select(sa.func.aggregate_strings(_TRAITS.c.trait, ',')).where(
        _TRAITS.c.node_id == _NODES.c.id).scalar_subquery()


_COLUMNS = ('id', 'uuid', 'name', 'resource_class', 'properties', 'cpus',
            'memory_mb', 'local_gb')


def _request_key(spec_obj):
    """What ``conditions`` reads of ``spec_obj``, hashable."""
    retried = spec_obj.retry.nodes if spec_obj.retry is not None else ()
    return (tuple(spec_obj.custom_resource_classes),
            tuple(sorted(spec_obj.resources.items())),
            tuple(sorted(spec_obj.required_traits)),
            tuple(sorted(spec_obj.forbidden_traits)),
            tuple(sorted(set(spec_obj.ignore_hosts) | set(retried))),
            tuple(spec_obj.force_nodes),
            tuple(sorted(spec_obj.capabilities.items())))


def request_key(spec_obj, order_by):
    """What the candidate reads of ``spec_obj`` ranked by ``order_by``
    depend on, hashable: requests with equal keys read the same nodes.
    """
    return _request_key(spec_obj), order_key(order_by)


def order_key(order_by):
    """``order_by`` (asc() or desc() of nodes columns, as
    scheduler.weighers.sql_order makes them) as hashable values: the
    clauses themselves compare with == into SQL, not a bool.
    """
    return tuple((clause.element.table.name, clause.element.name,
                  clause.modifier.__name__) for clause in order_by)


# Ranking key (a weigher's sql_key) -> the partial indexes ranking the
# free nodes by it (db/models.py): all of them, those of one class.
FREE_INDEXES = {'memory_mb': ('nodes_free_memory_mb_idx',
                              'nodes_free_class_memory_mb_idx')}


def _class_key(column):
    """SQL of db.models.CLASS_KEY on ``column``, its constants written
    out: an index on an expression serves only that same expression.
    """
    for char in ('-', '.', ' '):
        column = sa.func.replace(column, sa.literal_column("'%s'" % char),
                                 sa.literal_column("'_'"))
    return sa.func.upper(column)


def _ranked_free(order_by, dialect, resource_class=None, names=('id',)):
    """The ids (or the columns ``names``) of the free nodes (of
    ``resource_class``, a placement name, if given), best-ranked first.
    """
    indexes = FREE_INDEXES.get(order_by[0].element.name)
    # NOTE: without statistics SQLite takes "instance_uuid IS NULL" for a
    # few rows of the unique index on instance_uuid and sorts every free
    # node; INDEXED BY makes it walk the partial index in order. The
    # columns are then named alone, so that the FROM stays that text.
    hinted = dialect == 'sqlite' and indexes is not None
    if hinted:
        query = sa.select(*[sa.column(name) for name in names]).select_from(
            sa.text('nodes INDEXED BY %s'
                    % indexes[resource_class is not None]))

        def column(name, type_=None):
            return sa.column(name, type_)
    else:
        query = sa.select(*[_NODES.c[name] for name in names])

        def column(name, type_=None):
            return _NODES.c[name]
    where = [column('provision_state') == FREE[0].right,
             column('maintenance', sa.Boolean).is_(False),
             column('instance_uuid').is_(None)]
    if resource_class is not None:
        where.append(_class_key(column('resource_class')) == resource_class[
            len(request_spec.CUSTOM_PREFIX):])
    return query.where(*where).order_by(*[
        sa.sql.expression.UnaryExpression(column(clause.element.name),
                                          modifier=clause.modifier)
        for clause in order_by])


def _requested_class(spec_obj):
    custom = spec_obj.custom_resource_classes
    return custom[0] if len(custom) == 1 else None


def _rank_bound(order_by):
    """"Ranked at or before the node whose ranking values are bound as
    ``rank_0``, ``rank_1``, ...": one row-value comparison, which the
    databases read as a range of an index ranking by the same columns.
    """
    columns = [_NODES.c[clause.element.name] for clause in order_by]
    bounds = [sa.bindparam('rank_%d' % i, type_=column.type)
              for i, column in enumerate(columns)]
    # sql_order ranks every column in one direction (ties by id too).
    if order_by[0].modifier is sa.sql.operators.desc_op:
        return sa.tuple_(*columns) >= sa.tuple_(*bounds)
    return sa.tuple_(*columns) <= sa.tuple_(*bounds)


def _within_free(spec_obj, order_by, bounded):
    """The terms of a walk of the free nodes (of the request's class) in
    ranking order, down to a bound if ``bounded`` (see _rank_bound): the
    partial index's own terms, as SQLite needs them written to use it.
    """
    where = list(FREE)
    if bounded:
        where.append(_rank_bound(order_by))
    resource_class = _requested_class(spec_obj)
    if resource_class is not None:
        where.append(_class_key(_NODES.c.resource_class) == resource_class[
            len(request_spec.CUSTOM_PREFIX):])
    return where


def _build(spec_obj, dialect, with_traits, order_by, limit, offset, among,
           requirements, capabilities, within=False):
    where = candidate_conditions.conditions(
        spec_obj, dialect, requirements, probe=among is not None or within)
    if where is None:
        return None
    if capabilities:
        where.extend(candidate_conditions.capability_conditions(spec_obj))
    if within:
        where.extend(_within_free(spec_obj, order_by, within == 'bounded'))
    if among is not None:
        # Ranked among the free nodes only: on a full fleet the
        # best-ranked nodes of all are mostly deployed.
        start, count = among
        ranked = _ranked_free(order_by, dialect, _requested_class(
            spec_obj)).limit(count).offset(start)
        if dialect == 'mysql':
            # MariaDB refuses LIMIT in an IN subquery, not in a derived
            # table read by one.
            ranked = sa.select(ranked.subquery('ranked_free').c.id)
        where.append(_NODES.c.id.in_(ranked.scalar_subquery()))
    columns = [_NODES.c[name] for name in _COLUMNS]
    if with_traits:
        columns.append(_traits_column().label('traits'))
    query = sa.select(*columns).where(*where).order_by(*order_by)
    if within:
        indexes = FREE_INDEXES.get(order_by[0].element.name)
        if indexes is not None:
            # See db/sqlite_hints.py.
            query = query.with_hint(_NODES, 'INDEXED BY %s' % indexes[
                _requested_class(spec_obj) is not None], 'sqlite')
    if limit is not None or offset:
        query = query.limit(limit).offset(offset)
    return query


def _statement(spec_obj, dialect, with_traits, order_by, limit, offset,
               among, requirements, capabilities=False, within=False):
    """The candidate query (None: no node can match), from the cache if
    an equal request was made before.
    """
    key = (_request_key(spec_obj), dialect, with_traits,
           order_key(order_by), limit, offset, among, requirements,
           capabilities, within)
    return _cached(key, lambda: _build(
        spec_obj, dialect, with_traits, order_by, limit, offset, among,
        requirements, capabilities, within))


def _cached(key, build):
    """The statement kept under ``key``, or ``build()``'s, then kept (the
    STATEMENT_CACHE_SIZE most recently used are).
    """
    with _statements_lock:
        found = _statements.get(key, _MISSING)
        if found is not _MISSING:
            _statements.move_to_end(key)
            return found
    query = build()
    with _statements_lock:
        _statements[key] = query
        while len(_statements) > STATEMENT_CACHE_SIZE:
            _statements.popitem(last=False)
    return query


@db_api.context_manager.reader
def get_candidates(context, spec_obj, with_traits=False, order_by=None,
                   limit=None, offset=0, among=None, requirements=True):
    """Load the nodes ``spec_obj`` may get, ranked by ``order_by``.

    ``among``, ``(start, count)``: consider only the nodes ranked start to
    start + count - 1 among *all free* nodes (``FREE``: an index range of
    the ranking, read from the partial index of the free nodes when the
    ranking is by memory, each node then checked on its own), rather than
    finding the candidates through the traits' index ranges: cheaper
    whenever the best free nodes are likely candidates, however full the
    fleet is.

    :param context: the request context.
    :param spec_obj: the RequestSpec.
    :param with_traits: load each node's traits too.
    :param order_by: clauses on the nodes table ending with the id
        (default: by id).
    :param limit: the size of the page of that ranking (None: all).
    :param offset: where the page starts.
    :param among: see above (None: every node).
    :param requirements: see ``conditions``.
    :returns: a list of NodeState.
    """
    query = _statement(spec_obj, context.session.get_bind().dialect.name,
                       with_traits, tuple(order_by or _BY_ID), limit, offset,
                       among, requirements)
    if query is None:
        return []
    rows = context.session.execute(query).all()
    return [_node_state(row, with_traits) for row in rows]


def _node_state(row, with_traits):
    return node_state.NodeState(
        row.id, row.uuid, row.name, row.resource_class, row.properties,
        row.cpus, row.memory_mb, row.local_gb,
        (row.traits.split(',') if row.traits else ()) if with_traits
        else None)


@db_api.context_manager.reader
def node_state_of(context, node_uuid):
    """Return the NodeState of one node, its traits loaded, whatever its
    state (the node of a server being rebuilt: scheduler.rebuild), or
    None if there is no such node.
    """
    row = context.session.execute(sa.select(
        *[_NODES.c[name] for name in _COLUMNS],
        _traits_column().label('traits')).where(
            _NODES.c.uuid == node_uuid)).first()
    return None if row is None else _node_state(row, True)


def candidate_chunks(context, spec_obj, chunk, with_traits=False,
                     order_by=None, among=None, within=None):
    """Yield the nodes ``spec_obj`` may get, ranked by ``order_by``, in
    lists of at most ``chunk``, from one statement whose rows are fetched
    (and turned into NodeStates) only as the lists are asked for: the
    caller stops reading once it has enough, without running the
    statement again for a further page.

    Iterate within a reader transaction of ``context`` (the rows come
    from its connection); closing the generator closes the result.

    :param context: the request context, in a reader transaction.
    :param spec_obj: the RequestSpec.
    :param chunk: the most NodeStates per list.
    :param with_traits: load each node's traits too.
    :param order_by: as for get_candidates.
    :param among: as for get_candidates.
    :param within: instead of ``among``, the ranking values of a free node
        (rank_cutoff): only the free nodes ranked down to it, read in
        ranking order from the index of the free nodes, the walk stopping
        where the caller stops reading; ``()``: every free node so.
    :returns: a generator of lists of NodeState.
    """
    dialect = context.session.get_bind().dialect.name
    order_by = tuple(order_by or _BY_ID)
    mode = None if within is None else 'bounded' if within else 'all'
    params = {'rank_%d' % i: value for i, value in enumerate(within or ())}
    skip = 0
    given = ()
    if mode is not None:
        # The first chunk of a walk in one round trip (usually enough);
        # the rest, only if asked for, from a cursor.
        query = _statement(spec_obj, dialect, with_traits, order_by, chunk,
                           0, None, True, capabilities=True, within=mode)
        if query is None:
            return
        rows = context.session.execute(query, params).all()
        if rows:
            yield [_node_state(row, with_traits) for row in rows]
        if len(rows) < chunk:
            return
        skip = chunk
        # The rest is another statement: a node claimed meanwhile moves
        # the others up, and one already given could come again.
        given = {row.id for row in rows}
    query = _statement(spec_obj, dialect, with_traits, order_by, None, skip,
                       among, True, capabilities=True, within=mode)
    if query is None:
        return
    # Reading every candidate, or the rest of a walk: a server-side cursor
    # where the driver has one (psycopg2), the rows cross the connection
    # a chunk at a time too. A slice holds few rows: one round trip rather
    # than a cursor's three.
    options = {}
    if among is None:
        options = {'stream_results': True, 'max_row_buffer': chunk}
        db_api.cursor_transaction(context)
    result = context.session.execute(query, params,
                                     execution_options=options)
    try:
        while True:
            rows = result.fetchmany(chunk)
            if not rows:
                return
            nodes = [_node_state(row, with_traits) for row in rows
                     if row.id not in given]
            if nodes:
                yield nodes
    finally:
        result.close()


@db_api.context_manager.reader
def free_count(context, spec_obj, order_by, at_most):
    """Return how many free nodes the ranked reads of ``spec_obj`` (the
    ``among`` of get_candidates) go through, counting ``at_most``.

    :param context: the request context.
    :param spec_obj: the RequestSpec (its resource class counts).
    :param order_by: the ranking, as for get_candidates.
    :param at_most: where to stop counting (an index range that long).
    :returns: an integer, at most ``at_most``.
    """
    dialect = context.session.get_bind().dialect.name
    resource_class = _requested_class(spec_obj)
    query = _cached(
        ('free_count', dialect, order_key(order_by), resource_class),
        lambda: sa.select(sa.func.count()).select_from(_ranked_free(
            order_by, dialect, resource_class).limit(
                sa.bindparam('at_most')).subquery()))
    return context.session.execute(query, {'at_most': at_most}).scalar()


@db_api.context_manager.reader
def rank_cutoff(context, spec_obj, order_by, position):
    """Return the ranking values of the ``position``-th best-ranked free
    node (of the request's class): the bound of a walk of the free nodes
    (candidate_chunks ``within``).

    :param context: the request context.
    :param spec_obj: the RequestSpec (its resource class counts).
    :param order_by: the ranking, as for get_candidates.
    :param position: from 1.
    :returns: a tuple of values (one per ranking column); ``()`` if there
        are fewer free nodes (a walk of them all is as short); None when
        that node lacks a value to rank by (a walk bounded by it could
        not reach the nodes ranked after it).
    """
    dialect = context.session.get_bind().dialect.name
    resource_class = _requested_class(spec_obj)
    query = _cached(
        ('rank_cutoff', dialect, order_key(order_by), resource_class),
        lambda: _ranked_free(
            order_by, dialect, resource_class,
            [clause.element.name for clause in order_by]).limit(1).offset(
                sa.bindparam('skip')))
    row = context.session.execute(query, {'skip': position - 1}).first()
    if row is None:
        return ()
    if any(value is None for value in row):
        return None
    return tuple(row)


@db_api.context_manager.reader
def node_count_bound(context):
    """Return at least the number of nodes (the highest id), cheaply.

    :param context: the request context.
    :returns: an integer.
    """
    return context.session.execute(
        sa.select(sa.func.max(_NODES.c.id))).scalar() or 0
