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

"""ComputeCapabilitiesFilter: Nova's operators (the table below was
checked against Nova 34's extra_specs_ops.match), the lookup of what a
bare-metal node reports, and the filter on NodeStates.
"""

import pytest

from nova_mini import objects
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.scheduler.filters import compute_capabilities
from nova_mini.scheduler import node_state
from nova_mini.tests.unit.scheduler import test_filters

objects.register_all()

# (node value, requirement, whether Nova's match says it matches)
NOVA_TABLE = [
    ('uefi', 'uefi', True), ('bios', 'uefi', False),
    ('8', '= 4', True), ('4', '= 4', True), ('2', '= 4', False),
    ('4', '== 4.0', True), ('4', '== 5', False),
    ('4', '!= 4', False), ('5', '!= 4', True),
    ('3', '<= 4', True), ('5', '<= 4', False),
    ('5', '>= 4.5', True), ('4', '>= 4.5', False),
    ('abc', 's== abc', True), ('abd', 's== abc', False),
    ('abc', 's!= abc', False), ('abd', 's!= abc', True),
    ('b', 's> a', True), ('a', 's> a', False),
    ('a', 's< b', True), ('b', 's< b', False),
    ('b', 's<= b', True), ('c', 's<= b', False),
    ('b', 's>= b', True), ('a', 's>= b', False),
    # Text order, not numbers.
    ('10', 's< 9', True),
    ('gold-raid', '<in> raid', True), ('gold', '<in> raid', False),
    # Only the first operand counts...
    ('gold-raid', '<in> raid other', True), ('4', 's== 4 5', True),
    # ... but <all-in> takes every word.
    ('avx avx2 sse', '<all-in> avx2 sse', True),
    ('avx sse', '<all-in> avx2 sse', False),
    ('b', '<or> a <or> b', True), ('c', '<or> a <or> b', False),
    ('a', '<or> a', True),
    # <or> skips every second word, whatever it is.
    ('c', '<or> a x c', True), ('x', '<or> a x c', False),
    # <is> is no operator in Nova: the whole text is compared.
    ('True', '<is> True', False), ('<is> True', '<is> True', True),
    ('True', 'True', True), ('true', 'True', False),
    # An operator is a word of its own.
    ('4', '>=4', False), ('>=4', '>=4', True),
    # An operator without operand matches nothing.
    ('4', '>=', False), ('4', 's==', False), ('4', '<in>', False),
    ('4', '<all-in>', False),
    ('', '', True), ('x', '', False),
]


@pytest.mark.parametrize('value, requirement, result', NOVA_TABLE)
def test_operators_as_nova(value, requirement, result):
    assert compute_capabilities.matches(value, requirement) is result


@pytest.mark.parametrize('value, requirement', [
    ('x', '>= 1'), ('4', '>= many'), ('x', '= 1'), ('4', '<or>')])
def test_what_nova_raises_on_fails_the_node(value, requirement):
    assert compute_capabilities.matches(value, requirement) is False


def test_no_value_matches_no_operator():
    for requirement in ('>= 1', 's== x', '<in> x', '<or> x', '<all-in> x'):
        assert compute_capabilities.matches(None, requirement) is False


def _node(capabilities=None, **properties):
    props = {'cpus': 16, 'memory_mb': 65536, 'local_gb': 800,
             'cpu_arch': 'x86_64'}
    props.update(properties)
    if capabilities is not None:
        props['capabilities'] = capabilities
    return node_state.NodeState(7, 'node-uuid-7', 'n7', 'baremetal-gold',
                                props, **node_obj.capacity_of(props))


@pytest.mark.parametrize('name, value', [
    ('cpu_arch', 'x86_64'), ('cpus', 16), ('vcpus', 16),
    ('vcpus_total', 16), ('memory_mb', 65536), ('free_ram_mb', 65536),
    ('local_gb', 800), ('free_disk_mb', 800 * 1024), ('vcpus_used', 0),
    ('hypervisor_hostname', 'node-uuid-7'), ('host', 'node-uuid-7'),
    ('uuid', 'node-uuid-7'), ('hypervisor_type', 'ironic'),
    ('hypervisor_version', 1),
    ('supported_instances', [['x86_64', 'baremetal', 'hvm']]),
    ('boot_mode', 'uefi'), ('profile', 'compute'),
    ('stats:boot_mode', 'uefi'), ('stats:cpu_arch', 'x86_64'),
    # What a node does not report.
    ('cpu_info', None), ('numa_topology', None), ('aggregates', None),
    ('missing', None), ('stats:missing', None),
    # Only dicts (or JSON text of one) have fields.
    ('boot_mode:x', None), ('cpus:x', None),
    ('supported_instances:x', None),
])
def test_lookup(name, value):
    node = _node('boot_mode:uefi,profile:compute')
    assert compute_capabilities.lookup(node, name) == value


def test_lookup_reads_json_on_the_way():
    node = _node({'raid': '{"level": {"min": 5}}', 'flat': 'text'})
    assert compute_capabilities.lookup(node, 'raid:level:min') == 5
    assert compute_capabilities.lookup(node, 'stats:raid:level:min') == 5
    assert compute_capabilities.lookup(node, 'flat:x') is None


def test_node_attributes_win_over_capabilities_of_the_same_name():
    node = _node('memory_mb:1,profile:x')
    assert compute_capabilities.lookup(node, 'memory_mb') == 65536
    assert compute_capabilities.lookup(node, 'stats:memory_mb') == '1'


def test_architecture_as_the_node_has_it():
    node = _node(cpu_arch='AMD64')
    # stats has the raw value (as Nova's Ironic driver reports it), the
    # supported instances the canonical one.
    assert compute_capabilities.lookup(node, 'cpu_arch') == 'AMD64'
    assert node.supported_instances == [('x86_64', 'baremetal', 'hvm')]
    assert _node(cpu_arch='z80').supported_instances == []
    assert _node(cpu_arch=None).supported_instances == []


@pytest.fixture
def capabilities_filter():
    return compute_capabilities.ComputeCapabilitiesFilter()


@pytest.mark.parametrize('specs, passes', [
    ({'capabilities:cpu_arch': 'x86_64'}, True),
    ({'capabilities:cpu_arch': 'aarch64'}, False),
    ({'capabilities:cpu_arch': '<or> aarch64 <or> x86_64'}, True),
    ({'capabilities:cpus': '>= 16'}, True),
    ({'capabilities:cpus': '>= 17'}, False),
    ({'capabilities:memory_mb': '= 32768'}, True),
    ({'capabilities:memory_mb': '== 65536'}, True),
    ({'capabilities:local_gb': '<= 500'}, False),
    ({'capabilities:vcpus': '16'}, True),
    ({'capabilities:boot_mode': 'uefi', 'capabilities:profile':
      's== compute'}, True),
    ({'capabilities:boot_mode': 'bios'}, False),
    ({'capabilities:secure_boot': 'true'}, False),
    ({'capabilities:supported_instances': '<in> baremetal'}, True),
    ({'capabilities:supported_instances': '<all-in> x86_64 hvm'}, True),
    ({'capabilities:hypervisor_type': 's== ironic'}, True),
    ({'capabilities:cpu_info:features': '<in> avx'}, False),
    ({'capabilities:stats:profile': 'compute'}, True),
])
def test_filter(capabilities_filter, specs, passes):
    spec = test_filters._spec(specs)
    node = _node('boot_mode:uefi,profile:compute')
    assert capabilities_filter.node_passes(node, spec) is passes


def test_filter_reasons(capabilities_filter):
    node = _node('boot_mode:uefi')
    spec = test_filters._spec({'capabilities:cpus': '>= 32'})
    assert capabilities_filter.check(node, spec) == (
        "capability cpus is '16', '>= 32' wanted")
    spec = test_filters._spec({'capabilities:disk_label': 'gpt'})
    assert capabilities_filter.check(node, spec) == (
        'capability disk_label missing')


def test_nothing_to_check_without_capabilities(capabilities_filter):
    assert capabilities_filter.check(_node(), test_filters._spec()) is None


# -- validation accepts what the filter honours

def test_validation_knows_the_filters_operators():
    from nova_mini.api.validation.extra_specs import capabilities
    assert set(capabilities.OPERATORS) == set(
        compute_capabilities.OPERATORS) | {compute_capabilities.OR,
                                           compute_capabilities.ALL_IN}
    # A numeric operator matches no pair of words.
    numeric = {op for op, check in compute_capabilities.OPERATORS.items()
               if not any(check(a, b) for a, b in
                          (('x', 'x'), ('x', 'y'), ('y', 'x')))}
    assert numeric == set(capabilities.NUMERIC_OPERATORS)


@pytest.mark.parametrize('value, accepted', [
    ('>= 4', True), ('= 1.5', True), ('x86_64', True), ('', True),
    ('s== x', True), ('<in> avx', True), ('<or> a <or> b', True),
    ('<all-in> a b', True), ('>=4', True),
    ('>= many', False), ('= x', False), ('!= x', False), ('>=', False),
    ('<or>', False), ('<in>', False), ('s==', False),
])
def test_validation_refuses_what_no_node_can_meet(value, accepted):
    from nova_mini.api.validation.extra_specs import registry
    definitions = registry.build(include_plugins=False)
    for key in ('capabilities:cpus', 'capabilities:cpu_arch',
                'capabilities:memory_mb', 'capabilities:stats:profile'):
        verdict = registry.validate(definitions, {key: value},
                                    registry.STRICT)
        assert bool(verdict) is accepted, (key, verdict.errors)
        if not accepted:
            [error] = verdict.errors
            assert repr(value) in error
