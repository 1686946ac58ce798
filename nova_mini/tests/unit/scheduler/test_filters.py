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

"""Scheduler filters and weighers, on NodeStates and RequestSpecs (no
database): each loads from its entry point and reads spec attributes.
"""

import datetime

import pytest

from nova_mini.conf import scheduler as scheduler_conf
from nova_mini import objects
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects import request_spec
from nova_mini.scheduler import filters
from nova_mini.scheduler.filters import compute_capabilities
from nova_mini.scheduler import node_state
from nova_mini.scheduler import weighers

objects.register_all()


def _spec(extra_specs=None, image_properties=None, **flavor):
    values = dict(id=1, flavorid='f', name='f', memory_mb=1024, vcpus=2,
                  root_gb=10, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
                  vcpu_weight=None, is_public=True, disabled=False,
                  description=None, extra_specs=extra_specs or {},
                  created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    values.update(flavor)
    return request_spec.RequestSpec.from_components(
        None, objects.Flavor(**values),
        {'id': 'img', 'properties': image_properties or {}})


def _node(traits=(), **properties):
    props = {'cpus': 4, 'memory_mb': 4096, 'local_gb': 100,
             'cpu_arch': 'x86_64'}
    props.update(properties)
    # The capacity columns hold what the Node object derives from
    # properties.
    return node_state.NodeState(1, 'uuid-1', 'n1', 'baremetal', props,
                                traits=traits,
                                **node_obj.capacity_of(props))


@pytest.fixture
def loaded():
    return {f.name: f for f in filters.load(
        scheduler_conf.DEFAULT_FILTERS)}


def test_default_filters_load_in_order():
    names = [f.name for f in filters.load(scheduler_conf.DEFAULT_FILTERS)]
    assert names == scheduler_conf.DEFAULT_FILTERS


def test_unknown_filter_fails_loudly():
    with pytest.raises(LookupError, match='NoSuchFilter'):
        filters.load(['RamFilter', 'NoSuchFilter'])


@pytest.mark.parametrize('name, flavor, props, passes', [
    ('RamFilter', {'memory_mb': 4096}, {}, True),
    ('RamFilter', {'memory_mb': 4097}, {}, False),
    ('CoreFilter', {'vcpus': 5}, {}, False),
    ('CoreFilter', {'vcpus': 4}, {'cpus': '4'}, True),
    ('DiskFilter', {'root_gb': 90, 'ephemeral_gb': 11}, {}, False),
    ('DiskFilter', {'root_gb': 100}, {}, True),
    # Bare-metal flavors zero the standard classes: any node is enough.
    ('RamFilter', {'memory_mb': 10 ** 6, 'extra_specs': {
        'resources:MEMORY_MB': '0'}}, {}, True),
    ('CoreFilter', {}, {'cpus': 'many'}, False),
])
def test_resource_filters(loaded, name, flavor, props, passes):
    extra_specs = flavor.pop('extra_specs', None)
    spec = _spec(extra_specs, **flavor)
    assert loaded[name].node_passes(_node(**props), spec) is passes


@pytest.mark.parametrize('image, cpu_arch, passes', [
    ({}, None, True),
    ({'hw_architecture': 'x86_64'}, 'x86_64', True),
    ({'hw_architecture': 'aarch64'}, 'x86_64', False),
    ({'cpu_arch': 'X86_64'}, 'x86_64', True),
    ({'cpu_arch': 'x86_64'}, None, False),
])
def test_image_properties_filter(loaded, image, cpu_arch, passes):
    node = _node(cpu_arch=cpu_arch)
    assert loaded['ImagePropertiesFilter'].node_passes(
        node, _spec(image_properties=image)) is passes


def test_traits_filter(loaded):
    spec = _spec({'trait:CUSTOM_A': 'required', 'trait:CUSTOM_F':
                  'forbidden'}, {'traits_required': ['CUSTOM_B']})
    traits_filter = loaded['TraitsFilter']
    assert traits_filter.needs_traits
    assert traits_filter.node_passes(_node(['CUSTOM_A', 'CUSTOM_B']), spec)
    assert traits_filter.check(_node(['CUSTOM_A']), spec) == (
        'lacks CUSTOM_B')
    assert not traits_filter.node_passes(
        _node(['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_F']), spec)


@pytest.mark.parametrize('value, requirement, result', [
    ('uefi', 'uefi', True), ('bios', 'uefi', False),
    ('8', '= 4', True), ('2', '= 4', False), ('4', '== 4.0', True),
    ('4', '!= 4', False), ('x', '>= 1', False), ('3', '<= 4', True),
    ('abc', 's== abc', True), ('abc', 's!= abc', False),
    ('b', 's> a', True), ('a', 's< b', True),
    ('gold-raid', '<in> raid', True),
    # Not an operator in Nova: compared as a whole.
    ('True', '<is> true', False),
    ('b', '<or> a <or> b', True), ('c', '<or> a <or> b', False),
])
def test_capability_matches(value, requirement, result):
    assert compute_capabilities.matches(value, requirement) is result


def test_compute_capabilities_filter(loaded):
    spec = _spec({'capabilities:boot_mode': 'uefi',
                  'capabilities:cpu_count': '>= 8'})
    capabilities_filter = loaded['ComputeCapabilitiesFilter']
    assert capabilities_filter.node_passes(
        _node(capabilities='boot_mode:uefi, cpu_count:16'), spec)
    assert capabilities_filter.check(_node(capabilities='boot_mode:uefi'),
                                     spec) == 'capability cpu_count missing'
    assert not capabilities_filter.node_passes(
        _node(capabilities='boot_mode:bios,cpu_count:16'), spec)
    # A dict works too; a node without capabilities passes no requirement.
    assert capabilities_filter.node_passes(
        _node(capabilities={'boot_mode': 'uefi', 'cpu_count': 8}), spec)
    assert capabilities_filter.node_passes(_node(), _spec())


def test_parse_capabilities():
    assert node_state.parse_capabilities(
        'a:1,b:x:y, bad,:v,c:') == {'a': '1', 'b': 'x:y', 'c': ''}
    assert node_state.parse_capabilities(None) == {}


def test_ram_weigher_prefers_memory(conf):
    ram, = weighers.load(['RAMWeigher'])
    nodes = [_node(memory_mb=m) for m in (1024, 8192, 4096)]
    ordered = weighers.weigh([ram], nodes, _spec(), conf.conf)
    assert [n.memory_mb for _w, n in ordered] == [8192, 4096, 1024]
    assert [w for w, _n in ordered] == [1.0, pytest.approx(3 / 7), 0.0]
    conf.config(ram_weight_multiplier=-1.0, group='filter_scheduler')
    ordered = weighers.weigh([ram], nodes, _spec(), conf.conf)
    assert [n.memory_mb for _w, n in ordered] == [1024, 4096, 8192]


def test_random_weigher_spreads(conf):
    weigher, = weighers.load(['RandomWeigher'])
    nodes = [_node(memory_mb=m) for m in range(50)]
    firsts = {weighers.weigh([weigher], nodes, _spec(), conf.conf)[0][1].memory_mb
              for _ in range(20)}
    assert len(firsts) > 1


def test_weigh_nothing(conf):
    assert weighers.weigh(weighers.load(['RAMWeigher']), [], _spec(),
                          conf.conf) == []
