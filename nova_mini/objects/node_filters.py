"""Filters of node lists, as SQL conditions on the nodes table.

The trait filters are subqueries on node_traits, answered from its
indexes: (trait, node_id) finds the nodes having a trait, the primary key
(node_id, trait) checks one node. The database evaluates everything.

``filters`` keys:

* ``provision_state``, ``resource_class``, ``driver``, ``instance_uuid``:
  equal to the value.
* ``maintenance``, ``associated`` (has an instance): booleans.
* ``traits``: has every trait listed.
* ``not_traits``: has none of the traits listed.
* ``traits_any``: has at least one of the traits listed.
* ``not_traits_any``: lacks at least one of the traits listed.
"""

import sqlalchemy as sa

from nova_mini.db import models

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__

_EQUAL = ('provision_state', 'resource_class', 'driver', 'instance_uuid')


def _having(traits):
    """EXISTS a trait of the node among ``traits``."""
    return sa.exists().where(_TRAITS.c.node_id == _NODES.c.id,
                             _TRAITS.c.trait.in_(list(traits)))


def _count(traits):
    """How many of ``traits`` the node has."""
    return sa.select(sa.func.count()).where(
        _TRAITS.c.node_id == _NODES.c.id,
        _TRAITS.c.trait.in_(list(traits))).scalar_subquery()


def _nodes_with(traits):
    return sa.select(_TRAITS.c.node_id).where(_TRAITS.c.trait == traits)


def _required(traits):
    """Conditions for "has every trait of ``traits``" (sorted, not empty).

    The first trait drives the query through the (trait, node_id) index,
    so only nodes having it are visited, never every node (correlated
    EXISTS alone make SQLite scan nodes); each other trait is one primary
    key lookup per such node. PostgreSQL turns it into merge joins of
    index-only scans.
    """
    return [_NODES.c.id.in_(_nodes_with(traits[0]))] + [
        _having([trait]) for trait in traits[1:]]


def conditions(filters):
    """The SQL conditions (ANDed) of ``filters``."""
    found = []
    for name in _EQUAL:
        if filters.get(name) is not None:
            found.append(_NODES.c[name] == filters[name])
    if filters.get('maintenance') is not None:
        found.append(_NODES.c.maintenance.is_(bool(filters['maintenance'])))
    if filters.get('associated') is not None:
        found.append(_NODES.c.instance_uuid.isnot(None)
                     if filters['associated'] else
                     _NODES.c.instance_uuid.is_(None))
    required = sorted(set(filters.get('traits') or ()))
    if required:
        found.extend(_required(required))
    if filters.get('not_traits'):
        found.append(~_having(set(filters['not_traits'])))
    if filters.get('traits_any'):
        found.append(_having(set(filters['traits_any'])))
    if filters.get('not_traits_any'):
        wanted = set(filters['not_traits_any'])
        found.append(_count(wanted) < len(wanted))
    return found


def apply(query, filters):
    """``query`` (of models.Node) narrowed by ``filters``."""
    for condition in conditions(filters):
        query = query.filter(condition)
    return query
