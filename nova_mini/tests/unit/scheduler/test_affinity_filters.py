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

"""The affinity filters' rules on NodeStates (no database): what each
checker passes once the request's servers or group were read, the hints
each filter declares, and requests that ask nothing of them.
"""

import pytest

from nova_mini import objects
from nova_mini.objects.compute import server_group as server_group_obj
from nova_mini.scheduler import filters
from nova_mini.scheduler.filters import affinity
from nova_mini.scheduler import node_state

objects.register_all()

NAMES = ['SameHostFilter', 'DifferentHostFilter',
         'ServerGroupAffinityFilter', 'ServerGroupAntiAffinityFilter']


def _node(uuid):
    return node_state.NodeState(1, uuid, uuid, 'baremetal', {})


def _spec(hints=None, num_instances=1):
    return objects.RequestSpec(scheduler_hints=hints or {},
                               num_instances=num_instances)


def test_entry_points_and_the_hints_they_read():
    loaded = {f.name: f for f in filters.load(NAMES)}
    assert sorted(loaded) == sorted(NAMES)
    assert filters.hints_read(NAMES) == {'same_host', 'different_host',
                                         'group'}
    assert filters.hints_read(['RamFilter', 'NoSuchFilter']) == frozenset()


@pytest.mark.parametrize('name', NAMES)
def test_nothing_to_check_without_the_hint(name):
    (node_filter,) = filters.load([name])
    # No hint: no database read at all (a context of None would fail).
    assert node_filter.for_request(None, _spec()) is None
    assert node_filter.for_request(None, _spec({'same_host': [],
                                                'group': []})) is None


def test_every_policy_has_its_filter_or_none():
    assert set(affinity.FILTER_OF_POLICY) == set(server_group_obj.POLICIES)
    assert affinity.FILTER_OF_POLICY['affinity'] == (
        'ServerGroupAffinityFilter')
    assert affinity.FILTER_OF_POLICY['soft-affinity'] is None


def test_only_nodes():
    checker = affinity._OnlyNodes('SameHostFilter', ['n1'], 'why')
    assert checker.check(_node('n1'), _spec()) is None
    assert checker.check(_node('n2'), _spec()) == 'why'


def test_refuse_every_node():
    checker = affinity._Refuse('X', 'never')
    assert checker.name == 'X'
    assert checker.check(_node('n1'), _spec()) == 'never'


def test_anti_affinity_counts_members_per_node():
    anti = affinity.ServerGroupAntiAffinityFilter()
    checker = anti._checker(_spec(), {}, {'n1': 1})
    assert checker.check(_node('n1'), _spec()) == (
        'the node already holds a server of the anti-affinity group')
    assert checker.check(_node('n2'), _spec()) is None
    # max_server_per_host: 2 lets a node hold two members.
    checker = anti._checker(_spec(), {'max_server_per_host': 2},
                            {'n1': 1, 'n2': 2})
    assert checker.check(_node('n1'), _spec()) is None
    assert checker.check(_node('n2'), _spec()) is not None


def test_affinity_needs_an_empty_group_and_one_server():
    same = affinity.ServerGroupAffinityFilter()
    assert same._checker(_spec(), {}, {}) is None
    refusal = same._checker(_spec(), {}, {'n1': 1})
    assert refusal.check(_node('n2'), _spec()) == (
        'the affinity group already has a server on a node, and a node '
        'holds only one server')
    refusal = same._checker(_spec(num_instances=3), {}, {})
    assert refusal.check(_node('n2'), _spec()) == (
        'an affinity group puts its servers on one node, and a node holds '
        'only one server: 3 were asked for at once')


def test_reasons_name_nothing():
    # Reasons may be shown to users: no uuid, no node name.
    for reason in (affinity.ServerGroupAffinityFilter()._checker(
            _spec(), {}, {'n1': 1}).reason,
            affinity.ServerGroupAntiAffinityFilter()._checker(
            _spec(), {}, {'n1': 1}).reason):
        assert 'n1' not in reason
