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

"""FilterScheduler: candidates from the database, then filters, weighers,
and atomic claims.

Several schedulers may serve one topic: they never reserve anything in
memory. A node is given to an instance only by ``Node.claim``, a
conditional UPDATE, so when two schedulers pick the same node one claim
wins and the other moves on to its next alternate.
"""

import random

from oslo_log import log as logging

from nova_mini.db import api as db_api
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.baremetal import node_provision
from nova_mini.objects import selection as selection_obj
from nova_mini.scheduler import candidates
from nova_mini.scheduler import claim_failures
from nova_mini.scheduler import expiring_cache
from nova_mini.scheduler import filters
from nova_mini.scheduler import no_valid_host
from nova_mini.scheduler import weighers

LOG = logging.getLogger(__name__)


# Ranked reads (see FilterScheduler._passing). First, a walk of the free
# nodes in ranking order down to the SCAN_BUDGET-th (where there are
# fewer, or that node has no ranking value: slices of the ranking,
# FIRST_SLICE nodes then twice as many each time); then all candidates.
# Each read is one statement whose rows are taken in chunks of
# PAGE_FACTOR times the nodes needed (at least MIN_PAGE), until enough
# passed.
FIRST_SLICE = 32
SCAN_BUDGET = 1024
PAGE_FACTOR = 2
MIN_PAGE = 8
# A request whose candidates were not among the SCAN_BUDGET best-ranked
# free nodes goes straight to the read of all candidates for
# RARE_SECONDS (the walk would most likely run out again; either way the
# same nodes pass, in the same order), for at most RARE_REQUESTS
# different requests.
RARE_SECONDS = 10.0
RARE_REQUESTS = 256
# The bound of the walk (the ranking of the SCAN_BUDGET-th free node of a
# class) is read again after CUTOFF_SECONDS. Any bound gives the same
# selection: the walk stops at the best candidates, and when it runs out
# every candidate is read; the bound only sets how far it goes first.
CUTOFF_SECONDS = 5.0
# Claims lost to other requests: the next round draws its pick from
# CLAIM_SPREAD times as many of the best nodes, for at least CLAIM_ROUNDS
# rounds (the last one from host_subset_size x 4096 nodes).
CLAIM_SPREAD = 4
CLAIM_ROUNDS = 7
# At debug level, the filters explain a failure on at most this many of
# the nodes that could serve the request at all.
EXPLAIN_LIMIT = 1000


class FilterScheduler(object):

    def __init__(self, conf):
        self.conf = conf
        options = conf.filter_scheduler
        self.filters = filters.load(options.enabled_filters)
        self.weighers = weighers.load(options.weighers)
        self._needs_traits = any(f.needs_traits for f in self.filters)
        self._random = random.SystemRandom()
        # request_key -> True while it counts as rare.
        self._rare = expiring_cache.ExpiringCache(RARE_REQUESTS,
                                                  RARE_SECONDS)
        # (ranking, resource class) -> the walk's bound.
        self._cutoffs = expiring_cache.ExpiringCache(RARE_REQUESTS,
                                                     CUTOFF_SECONDS)

    def filters_for(self, context, spec_obj):
        """Return the enabled filters as they run for ``spec_obj``: each
        filter's ``for_request``, in order, leaving out those with
        nothing to check.

        :param context: the request context, in the selection's
            transaction.
        :param spec_obj: the RequestSpec.
        :returns: a list of objects with ``name`` and ``check``.
        """
        active = []
        for node_filter in self.filters:
            prepared = node_filter.for_request(context, spec_obj)
            if prepared is not None:
                active.append(prepared)
        return active

    def _filter(self, nodes, spec_obj, counts, active):
        """The nodes passing every filter of ``active``; ``counts``
        (filter name -> nodes passed) is added to.
        """
        for node_filter in active:
            if not nodes:
                break
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
            counts[node_filter.name] = counts.get(node_filter.name, 0) + len(
                passed)
            nodes = passed
        return nodes

    @db_api.autocommit
    def _passing(self, context, spec_obj, needed, counts):
        """Candidates that passed the filters, at least ``needed`` of them
        if there are that many, best first if the database ranks them.

        When the database can rank nodes as the weighers would, the best
        of the free nodes (available, not in maintenance, without an
        instance: candidates.FREE) are checked first, walked in
        ranking order: when candidates are not rare among them, the walk
        stops after a few, and the work grows neither with the number of
        nodes nor with how many are deployed. When SCAN_BUDGET nodes did
        not hold enough, candidates are rare: every candidate is found
        through the indexes of the request's traits and read in ranked
        pages until enough passed (and for RARE_SECONDS the request
        starts there). Without a ranking in SQL, every candidate is read.
        """
        # One connection checkout for every read; each read stands alone
        # (db_api.autocommit): no BEGIN and COMMIT round trips.
        with db_api.context_manager.reader.using(context):
            active = self.filters_for(context, spec_obj)
            return self._read_passing(context, spec_obj, needed, counts,
                                      active)

    def _read_passing(self, context, spec_obj, needed, counts, active):
        order = weighers.sql_order(self.weighers, self.conf)
        if order is None:
            nodes = candidates.get_candidates(
                context, spec_obj, with_traits=self._needs_traits)
            counts['database'] = len(nodes)
            return self._filter(nodes, spec_obj, counts, active)
        key = candidates.request_key(spec_obj, order)
        if not self._rare.get(key, False):
            passed = self._best_of_all(context, spec_obj, order, needed,
                                       counts, active)
            if passed is not None:
                return passed
            self._rare.put(key, True)
        counts.clear()
        passed = []
        self._read_chunks(context, spec_obj, order, needed, counts, active,
                          passed)
        return passed

    def _cutoff(self, context, spec_obj, order, fresh=False):
        """candidates.rank_cutoff of the budget, read at most every
        CUTOFF_SECONDS per ranking and class (None, a node without a
        ranking value, is not kept: the slices that follow count them),
        or read again now if ``fresh``.
        """
        key = (candidates.order_key(order),
               tuple(spec_obj.custom_resource_classes))
        cutoff = None if fresh else self._cutoffs.get(key)
        if cutoff is not None:
            return cutoff
        cutoff = candidates.rank_cutoff(context, spec_obj, order,
                                        SCAN_BUDGET)
        if cutoff is not None:
            self._cutoffs.put(key, cutoff)
        return cutoff

    def _read_chunks(self, context, spec_obj, order, needed, counts, active,
                     passed, among=None, within=None):
        """Read the candidates (of the ranked slice ``among``, or of the
        free nodes ranked down to ``within``, or all) best first, a chunk
        at a time from one statement, adding those that pass to
        ``passed`` until ``needed`` did; whether they did.
        """
        counts.setdefault('database', 0)
        chunks = candidates.candidate_chunks(
            context, spec_obj, max(PAGE_FACTOR * needed, MIN_PAGE),
            with_traits=self._needs_traits, order_by=order, among=among,
            within=within)
        try:
            for nodes in chunks:
                counts['database'] = counts.get('database', 0) + len(nodes)
                passed.extend(self._filter(nodes, spec_obj, counts, active))
                if len(passed) >= needed:
                    return True
            return False
        finally:
            chunks.close()

    def _best_of_all(self, context, spec_obj, order, needed, counts,
                     active, bound_read_again=False):
        """The candidates among the SCAN_BUDGET best-ranked free nodes
        that passed the filters, once ``needed`` passed (or every free
        node was seen); None if the budget ran out first.
        """
        passed = []
        counts.setdefault('database', 0)
        # One statement walks the free nodes in ranking order, as far as
        # the budget's last one, and stops when enough passed: when
        # candidates are not rare among the free nodes, after a few.
        cutoff = self._cutoff(context, spec_obj, order)
        if cutoff is not None:
            if self._read_chunks(context, spec_obj, order, needed, counts,
                                 active, passed, within=cutoff):
                return passed
            if cutoff:
                # The walk ran out before its bound. A bound read before
                # the fleet filled up reaches less far than the budget:
                # walk again as far as the bound of now, if it moved,
                # before taking the request for a rare one.
                if bound_read_again:
                    return None
                fresh = self._cutoff(context, spec_obj, order, fresh=True)
                if fresh is None or fresh == cutoff:
                    return None
                counts.clear()
                return self._best_of_all(context, spec_obj, order, needed,
                                         counts, active,
                                         bound_read_again=True)
            # Fewer free nodes than the budget (no bound): every one was
            # seen, what passed is all there is.
            return passed
        # The budget's last node has no value to rank by: slices of the
        # ranking, twice as big each time, as far as there are free nodes.
        bound = candidates.free_count(context, spec_obj, order,
                                      SCAN_BUDGET + 1)
        start, size = 0, FIRST_SLICE
        while start < min(bound, SCAN_BUDGET):
            size = min(size, SCAN_BUDGET - start)
            if self._read_chunks(context, spec_obj, order, needed, counts,
                                 active, passed, among=(start, size)):
                return passed
            start += size
            size *= 2
        # Once every free node was checked, what passed is all there is
        # (a fleet almost full).
        return passed if start >= bound else None

    def _explain(self, context, spec_obj):
        """Log why the nodes that could serve ``spec_obj`` at all (state,
        resource class) do not: the filters run on them without the
        database's capacity and trait conditions.
        """
        with db_api.context_manager.reader.using(context):
            nodes = candidates.get_candidates(
                context, spec_obj, with_traits=self._needs_traits,
                limit=EXPLAIN_LIMIT, requirements=False)
            active = self.filters_for(context, spec_obj)
        counts = {}
        self._filter(nodes, spec_obj, counts, active)
        LOG.debug('Of %d available node(s) of the resource class%s: %s',
                  len(nodes), ' (the first %d)' % EXPLAIN_LIMIT
                  if len(nodes) == EXPLAIN_LIMIT else '',
                  ', '.join('%s: %d' % item for item in counts.items())
                  or 'no filter ran')

    def select_destinations(self, context, spec_obj, instance_uuids=None,
                            return_alternates=False, spread=1):
        """Choose a node for each instance, and its alternates.

        Each instance gets a different node; nothing is claimed.

        :param context: the request context.
        :param spec_obj: the RequestSpec.
        :param instance_uuids: the instances (default: ``num_instances`` of
            the spec).
        :param return_alternates: add up to ``max_attempts - 1`` alternates.
        :param spread: how many times ``host_subset_size`` best nodes the
            picks, and then the alternates, are drawn from at random
            (claim_destinations widens it after claims lost to other
            requests, which ranked the nodes the same way).
        :returns: one list of Selections per instance, the chosen node
            first.
        :raises nova_mini.exception.NoValidHost: not enough nodes for all of
            them.
        """
        options = self.conf.filter_scheduler
        count = len(instance_uuids or ()) or spec_obj.num_instances
        alternates = options.max_attempts - 1 if return_alternates else 0
        # The i-th pick comes from the best host_subset_size of what the
        # earlier picks left; the alternates follow the last pick.
        subset = options.host_subset_size * spread
        needed = count - 1 + max(subset, alternates + 1)
        counts = {}
        nodes = self._passing(context, spec_obj, needed, counts)
        weighed = weighers.weigh(self.weighers, nodes, spec_obj, self.conf)
        if len(weighed) < count:
            reason = ('%d node(s) wanted, %d suitable (%s).'
                      % (count, len(weighed), ', '.join(
                          '%s: %d' % item for item in counts.items())))
            LOG.debug('No valid host for request %s: %s',
                      getattr(context, 'request_id', None), reason)
            if LOG.isEnabledFor(logging.DEBUG):
                self._explain(context, spec_obj)
            raise no_valid_host.explain(
                context, spec_obj, count, len(weighed), counts,
                self.filters_for, self._needs_traits)
        chosen = []
        for _ in range(count):
            index = self._random.randrange(min(subset, len(weighed)))
            chosen.append(weighed.pop(index))
        result = []
        for pick in chosen:
            if spread > 1:
                window = weighed[:max(subset - count, alternates)]
                others = self._random.sample(
                    window, min(alternates, len(window)))
            else:
                others = weighed[:alternates]
            result.append([selection_obj.Selection.from_node_state(
                node, weight) for weight, node in [pick] + others])
        return result

    def claim_destinations(self, context, spec_obj, instance_uuids):
        """Select and claim one node per instance.

        A claim lost to another scheduler moves to the next alternate;
        when an instance loses all of them it is scheduled again, its pick
        drawn from CLAIM_SPREAD times as many of the best nodes each round
        (requests at the same moment rank the nodes alike: drawing from
        more of them is what stops them meeting again), for
        ``max_attempts`` rounds and at least CLAIM_ROUNDS.

        A request that a filter judges by other requests' claims (a
        server group's: ``takes_turns``) is selected and claimed in one
        write transaction that first takes the filter's lock
        (``serialize_claims``): such requests take turns, each reading
        what the earlier ones claimed. Other requests read in a read
        transaction and claim each node in a short write transaction of
        its own, so that they hold no write lock while they select (on
        SQLite the one writer of the whole database).

        :param context: the request context.
        :param spec_obj: the RequestSpec.
        :param instance_uuids: the instances.
        :returns: the claimed Selections, in the order of
            ``instance_uuids``.
        :raises nova_mini.exception.NoValidHost: an instance still has no
            node; nothing of this request stays claimed.
        """
        uuids = list(instance_uuids)
        if any(node_filter.takes_turns(spec_obj)
               for node_filter in self.filters):
            return self._claim_in_turn(context, spec_obj, uuids)
        return self._claim(context, spec_obj, uuids)

    @db_api.context_manager.writer
    def _claim_in_turn(self, context, spec_obj, instance_uuids):
        for node_filter in self.filters:
            node_filter.serialize_claims(context, spec_obj)
        return self._claim(context, spec_obj, instance_uuids)

    def _claim(self, context, spec_obj, instance_uuids):
        info = node_provision.instance_info(spec_obj)
        claimed = {}
        pending = instance_uuids
        rounds = max(self.conf.filter_scheduler.max_attempts, CLAIM_ROUNDS)
        try:
            for round_index in range(rounds):
                selections = self.select_destinations(
                    context, spec_obj, pending, return_alternates=True,
                    spread=CLAIM_SPREAD ** round_index)
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
            raise claim_failures.claims_lost(rounds, len(pending))
        except Exception:
            # In a transaction of its own (_claim_in_turn) the rollback
            # undoes these too.
            for instance_uuid, selection in claimed.items():
                node_obj.Node.unclaim(context, selection.node_uuid,
                                      instance_uuid)
            raise
