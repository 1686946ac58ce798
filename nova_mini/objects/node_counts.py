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
from nova_mini.objects import node_candidates
from nova_mini import states

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__

# The sizes a request names, in the order they are told.
_SIZES = ('VCPU', 'MEMORY_MB', 'DISK_GB')


def _has_trait(trait):
    return sa.exists().where(_TRAITS.c.node_id == _NODES.c.id,
                             _TRAITS.c.trait == trait)


def _available():
    return sa.and_(_NODES.c.provision_state == states.AVAILABLE,
                   _NODES.c.maintenance.is_(False),
                   _NODES.c.instance_uuid.is_(None))


def _in_use():
    return _NODES.c.instance_uuid.isnot(None)


def _in_maintenance():
    return sa.and_(_NODES.c.instance_uuid.is_(None),
                   _NODES.c.maintenance.is_(True))


def _sum(condition):
    return sa.func.coalesce(sa.func.sum(sa.case((condition, 1), else_=0)),
                            0)


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
            column = node_candidates.CAPACITY[resource_class]
            found.append(('capacity', resource_class, column >= wanted))
    return found


def _breakdown(prefix, condition):
    """Labelled sums: the nodes meeting ``condition``, and of them the
    available, in use and in maintenance ones.
    """
    return [_sum(condition).label(prefix + 'total'),
            _sum(sa.and_(condition, _available())).label(
                prefix + 'available'),
            _sum(sa.and_(condition, _in_use())).label(prefix + 'in_use'),
            _sum(sa.and_(condition, _in_maintenance())).label(
                prefix + 'maintenance')]


def _split(row, prefix):
    return {key: int(getattr(row, prefix + key) or 0)
            for key in ('total', 'available', 'in_use', 'maintenance')}


@db_api.context_manager.reader
def count_for_request(context, spec_obj):
    """Count the nodes meeting each requirement of ``spec_obj``.

    Two queries: one aggregate over the nodes of the request's resource
    class, one count of the candidate query's nodes.

    :param context: the request context.
    :param spec_obj: the RequestSpec.
    :returns: a dict: ``resource_classes`` (the custom ones asked for),
        ``nodes`` (of the resource class: ``total``, ``available``,
        ``in_use``, ``maintenance``), ``requirements`` (a list of dicts
        with ``kind``, ``name``, for a size its ``amount``, and the same
        four counts), ``all`` (the
        four counts for every requirement together), ``largest``
        (resource class -> the largest size among the nodes of the
        resource class, for each size asked for) and ``candidates``
        (nodes meeting every condition of the candidate query, hosts
        ignored or forced included).
    """
    custom = list(spec_obj.custom_resource_classes)
    counts = {'resource_classes': custom, 'requirements': [],
              'largest': {}, 'candidates': 0,
              'nodes': dict.fromkeys(
                  ('total', 'available', 'in_use', 'maintenance'), 0)}
    counts['all'] = dict(counts['nodes'])
    if len(custom) > 1:
        # A node has one resource class: nothing to count.
        return counts
    scope = [node_candidates.normalized_resource_class() == custom[0]] \
        if custom else []
    requirements = _requirements(spec_obj)
    columns = _breakdown('nodes_', sa.true())
    for index, (_kind, _name, condition) in enumerate(requirements):
        columns.extend(_breakdown('r%d_' % index, condition))
    columns.extend(_breakdown('all_', sa.and_(
        sa.true(), *[condition for _k, _n, condition in requirements])))
    sizes = [rc for rc in _SIZES if spec_obj.resources.get(rc, 0) > 0]
    for resource_class in sizes:
        columns.append(sa.func.max(
            node_candidates.CAPACITY[resource_class]).label(
            'largest_' + resource_class))
    row = context.session.execute(
        sa.select(*columns).select_from(_NODES).where(*scope)).one()
    counts['nodes'] = _split(row, 'nodes_')
    counts['all'] = _split(row, 'all_')
    for index, (kind, name, _condition) in enumerate(requirements):
        entry = _split(row, 'r%d_' % index)
        entry.update(kind=kind, name=name)
        if kind == 'capacity':
            entry['amount'] = spec_obj.resources[name]
        counts['requirements'].append(entry)
    for resource_class in sizes:
        counts['largest'][resource_class] = int(
            getattr(row, 'largest_' + resource_class) or 0)
    where = node_candidates.conditions(
        spec_obj, context.session.get_bind().dialect.name)
    if where is not None:
        counts['candidates'] = int(context.session.execute(
            sa.select(sa.func.count()).select_from(_NODES).where(
                *where)).scalar() or 0)
    return counts
