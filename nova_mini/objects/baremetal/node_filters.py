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

"""Filters of node lists, as SQL conditions on the nodes table.

The trait filters are subqueries on node_traits, answered from its
indexes: (trait, node_id) finds the nodes having a trait, the primary key
(node_id, trait) checks one node. The database evaluates everything.

``filters`` keys:

* ``provision_state``, ``resource_class``, ``driver``, ``instance_uuid``,
  ``owner``, ``lessee``, ``chassis_id``, ``conductor_group``,
  ``retired``: equal to the value.
* ``description_contains``: the description holds the text.
* ``none``: true for a filter no node passes.
* ``conductor_slot``: ``(index, count)``, the nodes whose id is
  ``index`` modulo ``count`` (those of one conductor among ``count``:
  see objects.baremetal.conductor.conductor_for).
* ``conductor_nodes``: ``{'slots': [(driver, index, count)], 'ids':
  [id]}``, the nodes of one conductor (objects.baremetal.node_conductor):
  those of a hardware type whose id is ``index`` modulo ``count``, and
  those listed (the hash ring's, computed in Python).
* ``project``: owned or leased by the project (a project's own list:
  the union of two index lookups, nodes_owner_idx and nodes_lessee_idx).
* ``maintenance``, ``associated`` (has an instance): booleans.
* ``traits``: has every trait listed.
* ``not_traits``: has none of the traits listed.
* ``traits_any``: has at least one of the traits listed.
* ``not_traits_any``: lacks at least one of the traits listed.

A page of a list (``apply`` with a limit) asks for the trait filters in
another form than the whole set does: a check of each node by the primary
key, one trait at a time, so that the database walks the nodes in the
page's order and stops at its end; the work then follows the page and the
share of the nodes that match, not the size of the fleet (see
tools/bench/README.md, node_traits_filter.py, for the plans).
"""

import sqlalchemy as sa

from nova_mini.db import models

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__

_EQUAL = ('provision_state', 'resource_class', 'driver', 'instance_uuid',
          'owner', 'lessee', 'chassis_id', 'conductor_group', 'retired')


# The most required traits read as one join each (PostgreSQL, MariaDB).
_MOST_JOINED = 4


def _of_node(condition):
    """EXISTS a trait of the node meeting ``condition``. It selects the
    node_id, not ``*``: SQLite then answers from the index alone, where
    ``SELECT *`` reads the row too.
    """
    return sa.select(_TRAITS.c.node_id).where(
        _TRAITS.c.node_id == _NODES.c.id, condition).exists()


def _having(traits):
    """EXISTS a trait of the node among ``traits``."""
    return _of_node(_TRAITS.c.trait.in_(list(traits)))


def _count(traits):
    """How many of ``traits`` the node has."""
    return sa.select(sa.func.count()).where(
        _TRAITS.c.node_id == _NODES.c.id,
        _TRAITS.c.trait.in_(list(traits))).scalar_subquery()


def _nodes_with(traits):
    return sa.select(_TRAITS.c.node_id).where(_TRAITS.c.trait == traits)


def _required(traits, dialect, probe=False):
    """Conditions for "has every trait of ``traits``" (sorted, not empty),
    driven by the (trait, node_id) index: only nodes having the traits are
    visited, never every node. With ``probe``, each node is checked by
    the primary key instead: for a few nodes chosen by other conditions.
    """
    if probe and dialect == 'sqlite':
        # NOTE: SQLite stops an EXISTS at the first index entry found, and
        # the first trait missing stops the rest: a third cheaper per node
        # than counting them.
        return [_having([trait]) for trait in traits]
    if probe:
        # NOTE: one count rather than an EXISTS per trait: PostgreSQL
        # turns each EXISTS into a join and spends more time planning the
        # joins than running the query.
        return [_count(traits) == len(traits)]
    if dialect == 'sqlite' and len(traits) > 1:
        # NOTE: SQLite runs a correlated EXISTS once per candidate row;
        # intersecting the index ranges of the traits costs about a third.
        return [_NODES.c.id.in_(sa.intersect(
            *[_nodes_with(trait) for trait in traits]))]
    if len(traits) > _MOST_JOINED:
        # NOTE: planning a join per trait grows faster than running them
        # (50 traits: 0.5 s on PostgreSQL); one pass over the index
        # entries of the traits, counted per node, has nothing to plan.
        return [_NODES.c.id.in_(sa.select(_TRAITS.c.node_id).where(
            _TRAITS.c.trait.in_(traits)).group_by(_TRAITS.c.node_id).having(
            sa.func.count() == len(traits)))]
    # PostgreSQL cannot estimate an INTERSECT (it would scan nodes); this
    # form becomes merge joins of index-only scans there.
    return [_NODES.c.id.in_(_nodes_with(traits[0]))] + [
        _having([trait]) for trait in traits[1:]]


def conditions(filters, dialect=None, probe=False):
    """Return the SQL conditions (ANDed) of ``filters``.

    :param filters: the filters (see this module's docstring).
    :param dialect: the database's dialect name; it and ``probe`` pick
        the faster of equivalent forms.
    :param probe: whether other conditions already narrow the nodes to
        a few (see _required).
    :returns: a list of SQL conditions.
    """
    if filters.get('none'):
        # Nothing else to ask: the database answers at once.
        return [sa.false()]
    found = []
    for name in _EQUAL:
        if filters.get(name) is not None:
            found.append(_NODES.c[name] == filters[name])
    if filters.get('description_contains') is not None:
        found.append(_NODES.c.description.contains(
            filters['description_contains'], autoescape=True))
    if filters.get('conductor_slot') is not None:
        index, count = filters['conductor_slot']
        found.append(_NODES.c.id % count == index)
    if filters.get('conductor_nodes') is not None:
        found.append(_conductor_nodes(filters['conductor_nodes']))
    if filters.get('project') is not None:
        found.append(sa.or_(_NODES.c.owner == filters['project'],
                            _NODES.c.lessee == filters['project']))
    if filters.get('maintenance') is not None:
        found.append(_NODES.c.maintenance.is_(bool(filters['maintenance'])))
    if filters.get('associated') is not None:
        found.append(_NODES.c.instance_uuid.isnot(None)
                     if filters['associated'] else
                     _NODES.c.instance_uuid.is_(None))
    required = sorted(set(filters.get('traits') or ()))
    if required:
        found.extend(_required(required, dialect, probe))
    found.extend(_other_traits(filters, _having))
    return found


def _conductor_nodes(spec):
    either = [sa.and_(_NODES.c.driver == driver,
                      _NODES.c.id % count == index)
              for driver, index, count in spec['slots']]
    if spec['ids']:
        either.append(_NODES.c.id.in_(spec['ids']))
    return sa.or_(*either) if either else sa.false()


def _other_traits(filters, has_one):
    """The conditions of the forbidden (``not_traits``), any-of
    (``traits_any``) and ``not_traits_any`` filters, ``has_one(traits)``
    being the condition that the node has one of ``traits`` at least.
    """
    found = []
    if filters.get('not_traits'):
        found.append(~has_one(set(filters['not_traits'])))
    if filters.get('traits_any'):
        found.append(has_one(set(filters['traits_any'])))
    if filters.get('not_traits_any'):
        wanted = set(filters['not_traits_any'])
        found.append(_count(wanted) < len(wanted))
    return found


def _held(trait):
    """EXISTS the node's ``trait``: one probe of the primary key."""
    return _of_node(_TRAITS.c.trait == trait)


def _any_held(traits):
    """The node has one of ``traits`` at least: a probe of each under an
    OR, which no database turns into a join; past _MOST_JOINED, one
    EXISTS of them all (a probe each per node costs more than the
    database's own choice, by a join or a probe, of one subquery).
    """
    if len(traits) > _MOST_JOINED:
        return _having(traits)
    return sa.or_(*[_held(trait) for trait in sorted(traits)])


def _page_traits(filters, dialect, driving):
    """The trait conditions of a page (see the module's docstring).

    Required traits: an EXISTS each, which PostgreSQL and MariaDB may turn
    into joins along the (trait, node_id) index in node order; past
    _MOST_JOINED, the rest counted per node (planning a join each costs
    more than running them). Forbidden and any-of traits: EXISTS under a
    NOT or an OR, which no database turns into a join (that would read
    and sort every node having one of the traits), so each stays a probe
    of the node (see _any_held). ``driving``, a required trait few nodes have (SQLite,
    see _rarest): the walk starts from its index range instead of every
    node.
    """
    found = []
    required = sorted(set(filters.get('traits') or ()))
    if driving is not None:
        found.append(_NODES.c.id.in_(_nodes_with(driving)))
        required.remove(driving)
    joined = required if dialect == 'sqlite' else required[:_MOST_JOINED]
    found.extend(_held(trait) for trait in joined)
    rest = required[len(joined):]
    if rest:
        found.append(_count(rest) == len(rest))
    found.extend(_other_traits(filters, _any_held))
    return found


# A required trait that fewer nodes than this many times the page's limit
# have is where SQLite starts a page from (see _rarest).
_DRIVING_PER_PAGE = 50


def _rarest(session, traits, limit):
    """A trait of ``traits`` that fewer than _DRIVING_PER_PAGE * ``limit``
    nodes have (the fewest among those counted), or None.

    SQLite keeps no statistics of the traits, so it cannot choose between
    walking every node and reading the nodes of a trait: the index ranges
    of the traits are counted here, in all never past that bound (nor
    each past the fewest found so far), so asking costs at most that many
    index entries whatever the fleet's size and the number of traits.
    """
    best = None
    fewest = budget = _DRIVING_PER_PAGE * limit
    for trait in traits:
        bound = min(fewest, budget)
        held = session.execute(sa.select(sa.func.count()).select_from(
            sa.select(_TRAITS.c.node_id).where(
                _TRAITS.c.trait == trait).limit(bound).subquery())).scalar()
        if held < bound:
            best, fewest = trait, held
        budget -= held
        if budget <= 0 or not fewest:
            break
    return best


def page_conditions(filters, dialect, driving=None):
    """Return the SQL conditions (ANDed) of ``filters`` for a page of a
    list, walked in its order (see the module's docstring).

    :param filters: the filters (see this module's docstring).
    :param dialect: the database's dialect name.
    :param driving: a trait of ``filters['traits']`` the walk starts
        from (its nodes rather than every node), or None.
    :returns: a list of SQL conditions.
    """
    if filters.get('none'):
        return [sa.false()]
    trait_filters = ('traits', 'not_traits', 'traits_any', 'not_traits_any')
    found = conditions({name: value for name, value in filters.items()
                        if name not in trait_filters})
    return found + _page_traits(filters, dialect, driving)


def apply(query, filters, limit=None):
    """Return ``query`` (of models.Node) narrowed by ``filters``.

    :param query: an ORM query of nodes.
    :param filters: as for ``conditions``.
    :param limit: the most nodes the query returns, in its order: the
        conditions of a page (``page_conditions``); None: those of the
        whole set (``conditions``).
    :returns: the narrowed query.
    """
    dialect = query.session.get_bind().dialect.name
    if limit is None:
        found = conditions(filters, dialect)
    else:
        driving = None
        required = sorted(set(filters.get('traits') or ()))
        if dialect == 'sqlite' and required and not filters.get('none'):
            driving = _rarest(query.session, required, limit)
        found = page_conditions(filters, dialect, driving)
    for condition in found:
        query = query.filter(condition)
    return query
