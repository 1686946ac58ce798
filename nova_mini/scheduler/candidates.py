"""The database half of scheduling: the nodes a request may get at all.

One query returns the nodes that are available, not in maintenance,
without an instance, of the request's resource class and with every
required trait and no forbidden one, minus the nodes this request ignores
(or only the ones it forces). Capacity and capabilities are then checked
by the filters (scheduler.filters), which see only these candidates.
"""

import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.objects import node_filters
from nova_mini.objects import request_spec
from nova_mini.scheduler import node_state
from nova_mini import states

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__


def normalized_resource_class():
    """SQL for the placement name of a node's resource class: Ironic's
    ``baremetal-gold`` is ``CUSTOM_BAREMETAL_GOLD``.
    """
    name = _NODES.c.resource_class
    for char in ('-', '.', ' '):
        name = sa.func.replace(name, char, '_')
    return sa.literal(request_spec.CUSTOM_PREFIX) + sa.func.upper(name)


def _named(values):
    values = list(values)
    return sa.or_(_NODES.c.uuid.in_(values), _NODES.c.name.in_(values))


def conditions(spec_obj, dialect=None):
    """The SQL conditions of ``spec_obj``, or None if no node can match;
    ``dialect``: the name of the database's (the shape of the trait
    conditions depends on it).
    """
    found = [_NODES.c.provision_state == states.AVAILABLE,
             _NODES.c.maintenance.is_(False),
             _NODES.c.instance_uuid.is_(None)]
    custom = spec_obj.custom_resource_classes
    if len(custom) > 1:
        # A node has one resource class.
        return None
    if custom:
        found.append(normalized_resource_class() == custom[0])
    found.extend(node_filters.conditions({
        'traits': spec_obj.required_traits,
        'not_traits': spec_obj.forbidden_traits}, dialect))
    ignored = set(spec_obj.ignore_hosts)
    if spec_obj.retry is not None:
        ignored.update(spec_obj.retry.nodes)
    if ignored:
        found.append(sa.not_(sa.or_(
            _NODES.c.uuid.in_(sorted(ignored)),
            sa.and_(_NODES.c.name.isnot(None),
                    _NODES.c.name.in_(sorted(ignored))))))
    if spec_obj.force_nodes:
        found.append(_named(spec_obj.force_nodes))
    return found


def _traits_column():
    """Every trait of the node as one comma-separated string (trait
    names have no commas): one row per candidate, not one per trait.
    """
    return sa.select(sa.func.aggregate_strings(_TRAITS.c.trait, ',')).where(
        _TRAITS.c.node_id == _NODES.c.id).scalar_subquery()


@db_api.context_manager.reader
def get_candidates(context, spec_obj, with_traits=False):
    """NodeStates of the nodes ``spec_obj`` may get, by id."""
    where = conditions(spec_obj,
                       context.session.get_bind().dialect.name)
    if where is None:
        return []
    columns = [_NODES.c.id, _NODES.c.uuid, _NODES.c.name,
               _NODES.c.resource_class, _NODES.c.properties]
    if with_traits:
        columns.append(_traits_column().label('traits'))
    rows = context.session.execute(
        sa.select(*columns).where(*where).order_by(_NODES.c.id)).all()
    return [node_state.NodeState(
        row.id, row.uuid, row.name, row.resource_class, row.properties,
        (row.traits.split(',') if row.traits else ()) if with_traits
        else None)
        for row in rows]
