"""Scheduler weighers: plugins that order the nodes that passed.

Each weigher gives every node a raw weight; they are normalized to 0..1
per weigher, multiplied by the weigher's multiplier and summed, so that no
weigher dominates just by the scale of its numbers (as in Nova). Loaded
by name from the ``nova_mini.scheduler.weighers`` entry point group.
"""

from nova_mini.scheduler import filters

NAMESPACE = 'nova_mini.scheduler.weighers'


class BaseWeigher(object):
    # The [filter_scheduler] option holding this weigher's multiplier.
    multiplier_option = None

    def multiplier(self, conf):
        return getattr(conf.filter_scheduler, self.multiplier_option)

    def weigh(self, node, spec_obj):
        """The raw weight of ``node`` (higher is better)."""
        raise NotImplementedError()


def normalize(values):
    low, high = min(values), max(values)
    if high == low:
        return [0.0 for _ in values]
    return [(v - low) / (high - low) for v in values]


def weigh(weighers, nodes, spec_obj, conf):
    """``[(weight, node)]`` best first (ties keep the order of nodes)."""
    totals = [0.0] * len(nodes)
    if nodes:
        for weigher in weighers:
            raw = [weigher.weigh(node, spec_obj) for node in nodes]
            factor = weigher.multiplier(conf)
            for i, value in enumerate(normalize(raw)):
                totals[i] += factor * value
    order = sorted(range(len(nodes)), key=lambda i: -totals[i])
    return [(totals[i], nodes[i]) for i in order]


def load(names):
    return filters.load(names, namespace=NAMESPACE)
