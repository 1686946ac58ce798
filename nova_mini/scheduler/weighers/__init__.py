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

"""Scheduler weighers: plugins that order the nodes that passed.

Each weigher gives every node a raw weight; they are normalized to 0..1
per weigher, multiplied by the weigher's multiplier and summed, so that no
weigher dominates just by the scale of its numbers (as in Nova). Loaded
by name from the ``nova_mini.scheduler.weighers`` entry point group.

A weigher whose raw weight is a column of the nodes table names it in
``sql_key`` (an index on (column, id) must exist); when it is the only
weigher, the database ranks the candidates by it (``sql_order``) and the
scheduler reads them best first, stopping once enough have passed the
filters.
"""

from nova_mini.db import models
from nova_mini.scheduler import filters

NAMESPACE = 'nova_mini.scheduler.weighers'


class BaseWeigher(object):
    # The [filter_scheduler] option holding this weigher's multiplier.
    multiplier_option = None
    # The SQL expression (of the nodes table) equal to weigh(), or None.
    sql_key = None

    def multiplier(self, conf):
        """Return this weigher's multiplier, from ``[filter_scheduler]``."""
        return getattr(conf.filter_scheduler, self.multiplier_option)

    def weigh(self, node, spec_obj):
        """Return the raw weight of ``node`` (higher is better).

        :param node: a NodeState.
        :param spec_obj: the RequestSpec.
        :returns: a number.
        """
        raise NotImplementedError()


def normalize(values):
    """Return ``values`` scaled to 0..1 (all 0.0 if they are equal)."""
    low, high = min(values), max(values)
    if high == low:
        return [0.0 for _ in values]
    return [(v - low) / (high - low) for v in values]


def weigh(weighers, nodes, spec_obj, conf):
    """Rank nodes by the weighers' normalized, multiplied weights.

    :param weighers: the BaseWeigher instances.
    :param nodes: the NodeStates.
    :param spec_obj: the RequestSpec.
    :param conf: the configuration with the multipliers.
    :returns: ``[(weight, node)]`` best first (ties keep the order of
        nodes).
    """
    totals = [0.0] * len(nodes)
    if nodes:
        for weigher in weighers:
            raw = [weigher.weigh(node, spec_obj) for node in nodes]
            factor = weigher.multiplier(conf)
            for i, value in enumerate(normalize(raw)):
                totals[i] += factor * value
    order = sorted(range(len(nodes)), key=lambda i: -totals[i])
    return [(totals[i], nodes[i]) for i in order]


# The orders sql_order returns: the same tuple for the same ranking, so
# that the candidate statements built for one are reused
# (scheduler/candidates.py).
_ORDERS = {}


def _order(key, direction):
    # Keyed by the column's table and name: columns compared with == make
    # SQL, not a bool, so they cannot be dictionary keys themselves.
    cache_key = (None if key is None else (key.table.name, key.name),
                 direction)
    node_id = models.Node.__table__.c.id
    found = _ORDERS.get(cache_key)
    if found is None:
        if key is None:
            found = (node_id.asc(),)
        elif direction > 0:
            found = (key.desc(), node_id.desc())
        else:
            found = (key.asc(), node_id.asc())
        found = _ORDERS.setdefault(cache_key, found)
    return found


def sql_order(weighers, conf):
    """Return ORDER BY clauses that rank nodes best first as ``weigh``
    would.

    Ties go by node id, in the key's direction (one index on (key, id)
    serves both directions); without a weigher, or with a multiplier of
    0, by id.

    :param weighers: the BaseWeigher instances.
    :param conf: the configuration with the multipliers.
    :returns: a tuple of clauses (the same tuple for the same ranking),
        or None if the database cannot rank: more than one weigher
        (normalization depends on the set weighed), or one without
        ``sql_key``.
    """
    if not weighers:
        return _order(None, 0)
    if len(weighers) > 1 or weighers[0].sql_key is None:
        return None
    factor = weighers[0].multiplier(conf)
    if factor == 0:
        return _order(None, 0)
    return _order(weighers[0].sql_key, 1 if factor > 0 else -1)


def load(names):
    """Load the weighers ``names`` (see filters.load)."""
    return filters.load(names, namespace=NAMESPACE)
