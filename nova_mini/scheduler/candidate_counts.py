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

"""Node counts that explain a failed selection ("no valid host").

Read only when a selection failed: one aggregate query over the nodes of
the request's resource class counts, for each requirement of the request
on its own (every required trait, the absence of every forbidden trait,
every size) and for all of them together, how many nodes meet it in any
state, how many of those are available, in use, in maintenance; one more
counts the nodes meeting every condition of the candidate query. Only
numbers come out: never which nodes, nor whose servers use them.
"""

import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.scheduler import candidate_conditions
from nova_mini import states

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__

# The sizes a request names, in the order they are told.
_SIZES = ('VCPU', 'MEMORY_MB', 'DISK_GB')


def _has_trait(trait):
    return sa.exists().where(_TRAITS.c.node_id == _NODES.c.id,
                             _TRAITS.c.trait == trait)


# Where a node is, as the counts tell it: one of STATES.
STATES = ('available', 'in_use', 'maintenance', 'other')


def _state():
    return sa.case(
        (_NODES.c.instance_uuid.isnot(None), 'in_use'),
        (_NODES.c.maintenance.is_(True), 'maintenance'),
        (_NODES.c.provision_state == states.AVAILABLE, 'available'),
        else_='other')


def _flag(condition):
    return sa.case((condition, 1), else_=0)


def _requirements(spec_obj):
    """Each requirement of ``spec_obj`` on its own: a list of (kind, name,
    condition), kind one of ``trait``, ``forbidden``, ``capacity``.
    """
    found = []
    for trait in sorted(set(spec_obj.required_traits)):
        found.append(('trait', trait, _has_trait(trait)))
    for trait in sorted(set(spec_obj.forbidden_traits)):
        found.append(('forbidden', trait, ~_has_trait(trait)))
    for resource_class in _SIZES:
        wanted = spec_obj.resources.get(resource_class, 0)
        if wanted > 0:
            column = candidate_conditions.CAPACITY[resource_class]
            found.append(('capacity', resource_class, column >= wanted))
    return found


def _empty():
    return {'total': 0, 'available': 0, 'in_use': 0, 'maintenance': 0}


def _add(counts, state, number):
    counts['total'] += number
    if state in counts:
        counts[state] += number


def _by_state(context, scope, requirements, sizes):
    """One row per node state: the nodes, those meeting each requirement,
    all of them, and the largest sizes. Each requirement is evaluated
    once per node (a flag in a subquery), then summed per state.
    """
    flags = [_state().label('state')]
    flags.extend(_flag(condition).label('r%d' % index)
                 for index, (_k, _n, condition) in enumerate(requirements))
    flags.extend(candidate_conditions.CAPACITY[rc].label('size_' + rc)
                 for rc in sizes)
    nodes = sa.select(*flags).select_from(_NODES).where(*scope).subquery()
    every = sa.literal(1)
    for index in range(len(requirements)):
        every = every * nodes.c['r%d' % index]
    columns = [nodes.c.state, sa.func.count().label('nodes'),
               sa.func.sum(every).label('every')]
    columns.extend(sa.func.sum(nodes.c['r%d' % index]).label('r%d' % index)
                   for index in range(len(requirements)))
    columns.extend(sa.func.max(nodes.c['size_' + rc]).label('size_' + rc)
                   for rc in sizes)
    return context.session.execute(
        sa.select(*columns).group_by(nodes.c.state)).all()


@db_api.context_manager.reader
def count_for_request(context, spec_obj):
    """Count the nodes meeting each requirement of ``spec_obj``.

    Two queries: one over the nodes of the request's resource class,
    grouped by state (each requirement checked once per node), one count
    of the candidate query's nodes.

    :param context: the request context.
    :param spec_obj: the RequestSpec.
    :returns: a dict: ``resource_classes`` (the custom ones asked for),
        ``nodes`` (of the resource class: ``total``, ``available``,
        ``in_use``, ``maintenance``), ``requirements`` (a list of dicts
        with ``kind``, ``name``, for a size its ``amount``, and the same
        four counts), ``all`` (the four counts for every requirement
        together), ``largest``
        (resource class -> the largest size among the nodes of the
        resource class, for each size asked for) and ``candidates``
        (nodes meeting every condition of the candidate query, hosts
        ignored or forced included).
    """
    custom = list(spec_obj.custom_resource_classes)
    counts = {'resource_classes': custom, 'requirements': [],
              'largest': {}, 'candidates': 0, 'nodes': _empty(),
              'all': _empty()}
    if len(custom) > 1:
        # A node has one resource class: nothing to count.
        return counts
    scope = [candidate_conditions.normalized_resource_class() == custom[0]] \
        if custom else []
    requirements = _requirements(spec_obj)
    sizes = [rc for rc in _SIZES if spec_obj.resources.get(rc, 0) > 0]
    found = [_empty() for _requirement in requirements]
    for row in _by_state(context, scope, requirements, sizes):
        _add(counts['nodes'], row.state, int(row.nodes))
        _add(counts['all'], row.state, int(row.every or 0))
        for index, entry in enumerate(found):
            _add(entry, row.state, int(getattr(row, 'r%d' % index) or 0))
        for rc in sizes:
            counts['largest'][rc] = max(
                counts['largest'].get(rc, 0),
                int(getattr(row, 'size_' + rc) or 0))
    for (kind, name, _condition), entry in zip(requirements, found):
        entry.update(kind=kind, name=name)
        if kind == 'capacity':
            entry['amount'] = spec_obj.resources[name]
        counts['requirements'].append(entry)
    where = candidate_conditions.conditions(
        spec_obj, context.session.get_bind().dialect.name)
    if where is not None:
        counts['candidates'] = int(context.session.execute(
            sa.select(sa.func.count()).select_from(_NODES).where(
                *where)).scalar() or 0)
    return counts
