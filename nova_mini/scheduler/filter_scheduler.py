"""FilterScheduler: candidates from the database, then filters, weighers,
and atomic claims.

Several schedulers may serve one topic: they never reserve anything in
memory. A node is given to an instance only by ``Node.claim``, a
conditional UPDATE, so when two schedulers pick the same node one claim
wins and the other moves on to its next alternate.
"""

import random

from oslo_log import log as logging

from nova_mini import exception
from nova_mini.objects import node as node_obj
from nova_mini.objects import selection as selection_obj
from nova_mini.scheduler import candidates
from nova_mini.scheduler import filters
from nova_mini.scheduler import weighers

LOG = logging.getLogger(__name__)


class FilterScheduler(object):

    def __init__(self, conf):
        self.conf = conf
        options = conf.filter_scheduler
        self.filters = filters.load(options.enabled_filters)
        self.weighers = weighers.load(options.weighers)
        self._needs_traits = any(f.needs_traits for f in self.filters)
        self._random = random.SystemRandom()

    def _filter(self, nodes, spec_obj, summary):
        for node_filter in self.filters:
            passed = []
            for node in nodes:
                reason = node_filter.check(node, spec_obj)
                if reason is None:
                    passed.append(node)
                else:
                    LOG.debug('%s rejected node %s: %s', node_filter.name,
                              node.uuid, reason)
            LOG.debug('%s: %d of %d nodes passed', node_filter.name,
                      len(passed), len(nodes))
            summary.append('%s: %d' % (node_filter.name, len(passed)))
            nodes = passed
            if not nodes:
                break
        return nodes

    def select_destinations(self, context, spec_obj, instance_uuids=None,
                            return_alternates=False):
        """One list of Selections per instance: the chosen node first,
        then up to ``max_attempts - 1`` alternates (if asked for). Each
        instance gets a different node; raises NoValidHost if there are not
        enough nodes for all of them.
        """
        count = len(instance_uuids or ()) or spec_obj.num_instances
        nodes = candidates.get_candidates(context, spec_obj,
                                          with_traits=self._needs_traits)
        summary = ['database: %d' % len(nodes)]
        nodes = self._filter(nodes, spec_obj, summary)
        weighed = weighers.weigh(self.weighers, nodes, spec_obj, self.conf)
        if len(weighed) < count:
            reason = ('%d node(s) wanted, %d suitable (%s).'
                      % (count, len(weighed), ', '.join(summary)))
            LOG.debug('No valid host for request %s: %s',
                      getattr(context, 'request_id', None), reason)
            raise exception.NoValidHost(reason=reason)
        subset = self.conf.filter_scheduler.host_subset_size
        chosen = []
        for _ in range(count):
            index = self._random.randrange(min(subset, len(weighed)))
            chosen.append(weighed.pop(index))
        alternates = []
        if return_alternates:
            alternates = weighed[:self.conf.filter_scheduler.max_attempts - 1]
        return [[selection_obj.Selection.from_node_state(node, weight)
                 for weight, node in [pick] + alternates]
                for pick in chosen]

    def claim_destinations(self, context, spec_obj, instance_uuids):
        """Select and claim one node per instance; the claimed Selections
        in the order of ``instance_uuids``.

        A claim lost to another scheduler moves to the next alternate;
        when an instance loses all of them it is scheduled again, up to
        ``max_attempts`` rounds. If an instance still has no node, the
        claims of this request are released and NoValidHost raised.
        """
        info = {'traits': list(spec_obj.required_traits)}
        claimed = {}
        pending = list(instance_uuids)
        try:
            for _round in range(self.conf.filter_scheduler.max_attempts):
                selections = self.select_destinations(
                    context, spec_obj, pending, return_alternates=True)
                lost = []
                for instance_uuid, options in zip(pending, selections):
                    for selection in options:
                        if node_obj.Node.claim(context, selection.node_uuid,
                                               instance_uuid, info):
                            claimed[instance_uuid] = selection
                            break
                        LOG.debug('Node %s was claimed meanwhile; trying '
                                  'the next alternate', selection.node_uuid)
                    else:
                        lost.append(instance_uuid)
                pending = lost
                if not pending:
                    return [claimed[u] for u in instance_uuids]
            raise exception.NoValidHost(
                reason='every selected node was claimed by another request '
                       'in %d rounds.'
                       % self.conf.filter_scheduler.max_attempts)
        except Exception:
            for instance_uuid, selection in claimed.items():
                node_obj.Node.unclaim(context, selection.node_uuid,
                                      instance_uuid)
            raise
