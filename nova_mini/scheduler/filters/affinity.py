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

"""Affinity filters: the ``same_host``, ``different_host`` and ``group``
scheduler hints, with Nova's filter names.

A "host" of Nova is a node here: each bare-metal node is its own host and
holds one server. So ``different_host`` and anti-affinity keep a server
off the nodes of the named servers or of the group's members; and
``same_host`` or affinity with a server already on a node can never be
met, since that node is taken: the filter then rejects every node, saying
so. The soft policies (soft-affinity, soft-anti-affinity) are weighers in
Nova, a preference and never a constraint; with one server per node
soft-anti-affinity always holds and soft-affinity can never be followed,
so nothing here reads them.

Each filter reads the database once per selection (``for_request``): the
nodes of the named servers, or the group's policy and its members' nodes.
The group filters also make the claims into one group take turns
(``serialize_claims``, the group's row locked in the claim's transaction):
of two servers booted at once into an empty affinity group, the second
sees the first one's node and fails with "no valid host"; concurrent
members of an anti-affinity group never land on one node.
Reasons name no server, group or node, so that they may be shown to the
user (nova_mini.scheduler.no_valid_host).
"""

from nova_mini.objects.compute import server_group as server_group_obj
from nova_mini.scheduler import filters


def _hint(spec_obj, name):
    hints = spec_obj.scheduler_hints if spec_obj.obj_attr_is_set(
        'scheduler_hints') else {}
    return [value for value in (hints or {}).get(name) or [] if value]


class _Refuse(object):
    """Rejects every node of this request, for one reason."""

    def __init__(self, name, reason):
        self.name = name
        self.reason = reason

    def check(self, node, spec_obj):
        return self.reason


class _OnlyNodes(object):
    """Passes the nodes of ``nodes`` only."""

    def __init__(self, name, nodes, reason):
        self.name = name
        self.nodes = frozenset(nodes)
        self.reason = reason

    def check(self, node, spec_obj):
        return None if node.uuid in self.nodes else self.reason


class _AvoidNodes(object):
    """Rejects a node that holds ``limit`` or more of the servers
    counted in ``nodes`` (node uuid -> servers on it).
    """

    def __init__(self, name, nodes, limit, reason):
        self.name = name
        self.nodes = dict(nodes)
        self.limit = limit
        self.reason = reason

    def check(self, node, spec_obj):
        if self.nodes.get(node.uuid, 0) >= self.limit:
            return self.reason
        return None


class SameHostFilter(filters.BaseNodeFilter):
    """Only the nodes of the servers of the ``same_host`` hint."""

    hints = ('same_host',)

    def for_request(self, context, spec_obj):
        servers = _hint(spec_obj, 'same_host')
        if not servers:
            return None
        nodes = server_group_obj.nodes_of_instances(context, servers)
        if not nodes:
            return _Refuse(self.name, 'no server named by the same_host '
                                      'hint is on a node')
        return _OnlyNodes(
            self.name, nodes.values(),
            'same_host asks for the node of a named server, and a node '
            'holds only one server')


class DifferentHostFilter(filters.BaseNodeFilter):
    """No node of the servers of the ``different_host`` hint."""

    hints = ('different_host',)

    def for_request(self, context, spec_obj):
        servers = _hint(spec_obj, 'different_host')
        if not servers:
            return None
        nodes = server_group_obj.nodes_of_instances(context, servers)
        return _AvoidNodes(self.name, {node: 1 for node in nodes.values()},
                           1, 'the node holds a server named by the '
                              'different_host hint')


class _GroupFilter(filters.BaseNodeFilter):
    """Reads the group of the ``group`` hint if its policy is ``policy``."""

    hints = ('group',)
    policy = None

    def takes_turns(self, spec_obj):
        return bool(_hint(spec_obj, 'group'))

    def serialize_claims(self, context, spec_obj):
        # Claims into one group take turns: each one's selection reads
        # the members' nodes after the earlier claims committed, so two
        # first boots into an empty group cannot both pass.
        groups = _hint(spec_obj, 'group')
        if groups:
            server_group_obj.lock_placement(context, groups[0], self.policy)

    def for_request(self, context, spec_obj):
        groups = _hint(spec_obj, 'group')
        if not groups:
            return None
        placement = server_group_obj.placement_of(context, groups[0])
        if placement is None or placement[0] != self.policy:
            # Deleted since (no members left to keep apart or together),
            # or a policy another filter (or none) honours.
            return None
        _policy, rules, nodes = placement
        return self._checker(spec_obj, rules, nodes)


class ServerGroupAffinityFilter(_GroupFilter):
    """The servers of an affinity group share one node, so a group holds
    one server on a node at most: a second one is refused.
    """

    policy = server_group_obj.AFFINITY

    def _checker(self, spec_obj, rules, nodes):
        if nodes:
            return _Refuse(
                self.name, 'the affinity group already has a server on a '
                           'node, and a node holds only one server')
        if spec_obj.num_instances > 1:
            return _Refuse(
                self.name, 'an affinity group puts its servers on one node, '
                           'and a node holds only one server: %d were asked '
                           'for at once' % spec_obj.num_instances)
        return None


class ServerGroupAntiAffinityFilter(_GroupFilter):
    """No node holding ``max_server_per_host`` (default 1) members of the
    anti-affinity group.
    """

    policy = server_group_obj.ANTI_AFFINITY

    def _checker(self, spec_obj, rules, nodes):
        limit = int(rules.get(server_group_obj.MAX_SERVER_PER_HOST, 1))
        return _AvoidNodes(
            self.name, nodes, limit,
            'the node already holds a server of the anti-affinity group')


# The filter honouring each hint, or each group policy (None: a
# preference, never a constraint).
FILTER_OF_HINT = {
    'same_host': SameHostFilter.__name__,
    'different_host': DifferentHostFilter.__name__,
}
FILTER_OF_POLICY = {
    server_group_obj.AFFINITY: ServerGroupAffinityFilter.__name__,
    server_group_obj.ANTI_AFFINITY: ServerGroupAntiAffinityFilter.__name__,
    server_group_obj.SOFT_AFFINITY: None,
    server_group_obj.SOFT_ANTI_AFFINITY: None,
}
