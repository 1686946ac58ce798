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

""""No valid host" messages built from counts: one test per case, the
details for administrators, and the reasons withheld from users.
"""

import pytest

from nova_mini.scheduler import no_valid_host
from nova_mini.scheduler import node_state

GOLD = 'CUSTOM_BAREMETAL_GOLD'


def _c(total=0, available=0, in_use=0, maintenance=0, **more):
    return dict(total=total, available=available, in_use=in_use,
                maintenance=maintenance, **more)


def _counts(nodes=None, requirements=(), together=None, candidates=None,
            resource_classes=(GOLD,), largest=None):
    nodes = nodes or _c()
    together = together or dict(nodes)
    return {'resource_classes': list(resource_classes), 'nodes': nodes,
            'requirements': list(requirements), 'all': together,
            'largest': largest or {},
            'candidates': together['available'] if candidates is None
            else candidates}


def _trait(name, **counts):
    return _c(kind='trait', name=name, **counts)


def _forbidden(name, **counts):
    return _c(kind='forbidden', name=name, **counts)


def _size(resource_class, amount, **counts):
    return _c(kind='capacity', name=resource_class, amount=amount, **counts)


def _rejection(passed=0, seen=3, reason='capability boot_mode is '
               "'uefi', 'bios' wanted", public=True):
    return {'filter': 'ComputeCapabilitiesFilter', 'seen': seen,
            'rejected': seen - passed, 'passed': passed, 'reason': reason,
            'public_reason': reason if public else None}


def _reason(counts, wanted=1, suitable=0, rejection=None, stages=None):
    reason, _details = no_valid_host.describe(
        wanted, suitable, counts, stages or {'database': 0}, rejection)
    return reason


@pytest.mark.parametrize('resource_class, amount, text', [
    ('VCPU', 1, '1 CPU'), ('VCPU', 8, '8 CPUs'),
    ('MEMORY_MB', 65536, '64 GiB of memory'),
    ('MEMORY_MB', 1536, '1536 MiB of memory'),
    ('DISK_GB', 100, '100 GB of disk')])
def test_size_text(resource_class, amount, text):
    assert no_valid_host.size_text(resource_class, amount) == text


def test_two_resource_classes():
    counts = _counts(resource_classes=(GOLD, 'CUSTOM_SILVER'))
    assert _reason(counts) == (
        'The request asks for resource classes CUSTOM_BAREMETAL_GOLD and '
        'CUSTOM_SILVER, but a node has only one.')


def test_no_node_of_the_resource_class():
    assert _reason(_counts()) == ('No node has resource class '
                                  'CUSTOM_BAREMETAL_GOLD.')


def test_no_node_at_all():
    assert _reason(_counts(resource_classes=())) == 'There are no nodes.'


def test_missing_trait():
    counts = _counts(nodes=_c(5, 5), requirements=[
        _trait('CUSTOM_A', total=2, available=2),
        _trait('CUSTOM_GPU')], together=_c())
    assert _reason(counts) == ('No node of resource class '
                               'CUSTOM_BAREMETAL_GOLD has trait CUSTOM_GPU.')


def test_every_missing_requirement_is_named():
    counts = _counts(
        nodes=_c(5, 5), requirements=[
            _trait('CUSTOM_GPU'), _size('MEMORY_MB', 65536)],
        together=_c(), largest={'MEMORY_MB': 32768})
    assert _reason(counts) == (
        'No node of resource class CUSTOM_BAREMETAL_GOLD has trait '
        'CUSTOM_GPU. No node of resource class CUSTOM_BAREMETAL_GOLD has '
        '64 GiB of memory (the largest has 32 GiB of memory).')


def test_missing_trait_without_resource_class():
    counts = _counts(nodes=_c(5, 5), resource_classes=(),
                     requirements=[_trait('CUSTOM_GPU')], together=_c())
    assert _reason(counts) == 'No node has trait CUSTOM_GPU.'


def test_trait_on_nodes_all_in_use():
    counts = _counts(nodes=_c(5, 3, 2), requirements=[
        _trait('CUSTOM_GPU', total=2, in_use=2)], together=_c(2, 0, 2))
    assert _reason(counts) == (
        '2 nodes of resource class CUSTOM_BAREMETAL_GOLD have trait '
        'CUSTOM_GPU but all are in use.')


def test_trait_on_one_node_in_use():
    counts = _counts(nodes=_c(5, 4, 1), requirements=[
        _trait('CUSTOM_GPU', total=1, in_use=1)], together=_c(1, 0, 1))
    assert _reason(counts) == (
        '1 node of resource class CUSTOM_BAREMETAL_GOLD has trait '
        'CUSTOM_GPU but it is in use.')


def test_trait_on_nodes_none_available():
    counts = _counts(nodes=_c(5, 2, 1, 1), requirements=[
        _trait('CUSTOM_GPU', total=3, in_use=1, maintenance=1)],
        together=_c(3, 0, 1, 1))
    assert _reason(counts) == (
        '3 nodes of resource class CUSTOM_BAREMETAL_GOLD have trait '
        'CUSTOM_GPU but none is available (1 in use, 1 in maintenance, 1 not '
        'in provision state available).')


def test_forbidden_trait_everywhere():
    counts = _counts(nodes=_c(4, 4), requirements=[
        _forbidden('CUSTOM_LEGACY')], together=_c())
    assert _reason(counts) == (
        'Every node of resource class CUSTOM_BAREMETAL_GOLD has the '
        'forbidden trait CUSTOM_LEGACY.')


def test_nodes_without_forbidden_trait_in_use():
    counts = _counts(nodes=_c(4, 3, 1), requirements=[
        _forbidden('CUSTOM_LEGACY', total=1, in_use=1)],
        together=_c(1, 0, 1))
    assert _reason(counts) == (
        '1 node of resource class CUSTOM_BAREMETAL_GOLD lacks the forbidden '
        'trait CUSTOM_LEGACY but it is in use.')


def test_capacity_too_small():
    counts = _counts(nodes=_c(4, 4), requirements=[
        _size('VCPU', 64)], together=_c(), largest={'VCPU': 32})
    assert _reason(counts) == (
        'No node of resource class CUSTOM_BAREMETAL_GOLD has 64 CPUs (the '
        'largest has 32 CPUs).')


def test_big_nodes_in_use():
    counts = _counts(nodes=_c(4, 2, 2), requirements=[
        _size('MEMORY_MB', 65536, total=2, in_use=2)], together=_c(2, 0, 2))
    assert _reason(counts) == (
        '2 nodes of resource class CUSTOM_BAREMETAL_GOLD have 64 GiB of '
        'memory but all are in use.')


def test_a_size_every_node_has_says_nothing():
    # Every node has 2 CPUs: the nodes are simply all in use.
    counts = _counts(nodes=_c(2, 0, 2), requirements=[
        _size('VCPU', 2, total=2, in_use=2)], together=_c(2, 0, 2))
    assert _reason(counts) == ('All 2 nodes of resource class '
                               'CUSTOM_BAREMETAL_GOLD are in use.')


def test_only_node_in_use():
    counts = _counts(nodes=_c(1, 0, 1))
    assert _reason(counts) == ('The only node of resource class '
                               'CUSTOM_BAREMETAL_GOLD is in use.')


def test_no_node_available():
    counts = _counts(nodes=_c(3, 0, 1, 1))
    assert _reason(counts) == (
        'No node of resource class CUSTOM_BAREMETAL_GOLD is available (1 in '
        'use, 1 in maintenance, 1 not in provision state available).')


def test_requirements_met_only_apart():
    counts = _counts(nodes=_c(4, 4), requirements=[
        _trait('CUSTOM_GPU', total=1, available=1),
        _size('VCPU', 2, total=4, available=4),
        _size('MEMORY_MB', 65536, total=2, available=2)], together=_c())
    assert _reason(counts) == (
        'No node of resource class CUSTOM_BAREMETAL_GOLD has trait '
        'CUSTOM_GPU and 64 GiB of memory together, though each is found on '
        'some node.')


def test_requirements_met_together_only_by_nodes_in_use():
    counts = _counts(nodes=_c(4, 3, 1), requirements=[
        _trait('CUSTOM_GPU', total=2, available=1, in_use=1),
        _size('MEMORY_MB', 65536, total=2, available=1, in_use=1)],
        together=_c(1, 0, 1))
    assert _reason(counts) == (
        '1 node of resource class CUSTOM_BAREMETAL_GOLD has trait CUSTOM_GPU '
        'and 64 GiB of memory but it is in use.')


def test_ignored_or_forced_hosts():
    counts = _counts(nodes=_c(2, 2), together=_c(2, 2), candidates=0)
    assert _reason(counts) == (
        'The 2 nodes available that meet the request are ruled out by the '
        'hosts it ignores or forces or by its earlier attempts.')


def test_a_filter_rejected_every_candidate():
    counts = _counts(nodes=_c(3, 3))
    assert _reason(counts, rejection=_rejection()) == (
        'The ComputeCapabilitiesFilter rejected all 3 candidate nodes: '
        "capability boot_mode is 'uefi', 'bios' wanted.")


def test_a_filter_rejected_the_only_candidate():
    counts = _counts(nodes=_c(1, 1))
    assert _reason(counts, rejection=_rejection(seen=1)) == (
        'The ComputeCapabilitiesFilter rejected the only candidate node: '
        "capability boot_mode is 'uefi', 'bios' wanted.")


def test_a_withheld_reason_is_not_shown():
    counts = _counts(nodes=_c(3, 3))
    reason, details = no_valid_host.describe(
        1, 0, counts, {'database': 3, 'ComputeCapabilitiesFilter': 0},
        _rejection(reason='hosts server 1f0e', public=False))
    assert reason == ('The ComputeCapabilitiesFilter rejected all 3 '
                      'candidate nodes.')
    # Administrators see it.
    assert ('ComputeCapabilitiesFilter rejected 3 of 3 candidates, first '
            'because: hosts server 1f0e') in details


def test_candidates_taken_meanwhile():
    counts = _counts(nodes=_c(3, 3))
    assert _reason(counts) == ('The nodes that met the request were taken '
                               'by other requests meanwhile; try again.')


def test_not_enough_nodes_for_every_instance():
    counts = _counts(nodes=_c(5, 2, 3), together=_c(5, 2, 3))
    assert _reason(counts, wanted=3, suitable=2) == (
        '3 nodes wanted, 2 suitable. 3 more nodes of resource class '
        'CUSTOM_BAREMETAL_GOLD meet the request but are not available.')


def test_not_enough_nodes_after_a_filter():
    counts = _counts(nodes=_c(3, 3))
    assert _reason(counts, wanted=3, suitable=1,
                   rejection=_rejection(passed=1)) == (
        '3 nodes wanted, 1 suitable. The ComputeCapabilitiesFilter rejected '
        "2 of the 3 candidate nodes: capability boot_mode is 'uefi', 'bios' "
        'wanted.')


def test_details_hold_every_count():
    counts = _counts(nodes=_c(5, 3, 1, 1), requirements=[
        _trait('CUSTOM_GPU', total=2, available=0, in_use=1, maintenance=1)],
        together=_c(2, 0, 1, 1), candidates=0)
    _reason_text, details = no_valid_host.describe(
        2, 0, counts, {'database': 0})
    assert details.splitlines() == [
        'Nodes wanted: 2, suitable: 0.',
        'Nodes of resource class CUSTOM_BAREMETAL_GOLD: 5 (available 3, in '
        'use 1, in maintenance 1)',
        '  with trait CUSTOM_GPU: 2 (available 0, in use 1, in maintenance '
        '1)',
        '  with every requirement: 2 (available 0, in use 1, in maintenance '
        '1)',
        'Candidates (every database condition, ignored and forced hosts '
        'included): 0',
        'Scheduler stages (nodes passed): database: 0']


def _node(name='rack1-07', uuid='4b1e6a3c-92d1-4c55-8b0e-2f7d3c9a1e64'):
    return node_state.NodeState(1, uuid, name, 'gold', {}, 8, 4096, 100, ())


@pytest.mark.parametrize('reason, shown', [
    ("capability boot_mode is 'uefi', 'bios' wanted", True),
    ('architecture aarch64 wanted, node has x86_64', True),
    ('node rack1-07 hosts a server of the group', False),
    ('node 4b1e6a3c-92d1-4c55-8b0e-2f7d3c9a1e64 is excluded', False),
    ('hosts server 0f4c2d9e-5a1b-4e7c-9d3f-6b8a2c1e0f57', False),
    ('rack1-070 is another node', True),
    ('', False)])
def test_public_reason(reason, shown):
    assert no_valid_host.public_reason(reason, _node()) == (
        reason if shown else None)


class _Filter(object):
    def __init__(self, name, rejects):
        self.name = name
        self.rejects = rejects

    def check(self, node, spec_obj):
        return 'no %s' % self.name if node.name in self.rejects else None


def test_find_rejection_names_the_filter_that_emptied_the_list():
    nodes = [_node('a', 'u1'), _node('b', 'u2'), _node('c', 'u3')]
    active = [_Filter('First', {'a'}), _Filter('Second', {'b', 'c'})]
    found = no_valid_host.find_rejection(nodes, None, active, 1)
    assert found == {'filter': 'Second', 'seen': 2, 'rejected': 2,
                     'passed': 0, 'reason': 'no Second',
                     'public_reason': 'no Second'}


def test_find_rejection_names_the_filter_that_rejected_most():
    nodes = [_node(n, 'u' + n) for n in 'abcd']
    active = [_Filter('First', {'a', 'b'}), _Filter('Second', {'c'})]
    found = no_valid_host.find_rejection(nodes, None, active, 2)
    assert (found['filter'], found['rejected'], found['passed']) == (
        'First', 2, 2)


def test_find_rejection_none_when_enough_pass():
    nodes = [_node(n, 'u' + n) for n in 'ab']
    assert no_valid_host.find_rejection(
        nodes, None, [_Filter('First', {'a'})], 1) is None
