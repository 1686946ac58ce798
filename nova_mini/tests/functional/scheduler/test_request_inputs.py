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

"""Every scheduling input counts, on real databases (SQLite file,
PostgreSQL): the node chosen meets each request group of the flavor, each
``capabilities:`` extra spec (Nova's operators on what the node reports)
and what the image asks for (its traits, architecture, hypervisor type,
VM mode), whichever of the nodes are offered; a request no node meets is
NoValidHost.
"""

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import request_spec
from nova_mini.scheduler import filter_scheduler
from nova_mini import states
from nova_mini.tests.fixtures import builders

GOLD = {'resources:CUSTOM_BAREMETAL_GOLD': '1'}


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def scheduler(conf):
    return filter_scheduler.FilterScheduler(conf.conf)


def _node(admin, name, traits=(), cpu_arch='x86_64', capabilities=None,
          **sizes):
    properties = builders.node_properties(cpu_arch=cpu_arch, **sizes)
    if capabilities is not None:
        properties['capabilities'] = capabilities
    return builders.create_node(
        admin, name, traits, resource_class='baremetal-gold',
        provision_state=states.AVAILABLE, properties=properties)


def _spec(extra_specs, image=None, count=1):
    flavor = builders.make_flavor(None, 'bm', extra_specs=dict(
        GOLD, **extra_specs))
    return request_spec.RequestSpec.from_components(
        None, flavor, image=image,
        instance_uuids=['i-%d' % n for n in range(count)])


def _every_option(admin, scheduler, spec):
    """The names of every node the scheduler offers (chosen and
    alternates).
    """
    by_uuid = {n.uuid: n.name for n in objects.NodeList.get_all(admin)}
    result = scheduler.select_destinations(
        admin, spec, list(spec.instance_uuids), return_alternates=True)
    return sorted({by_uuid[s.node_uuid] for options in result
                   for s in options})


def _no_valid_host(admin, scheduler, spec):
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(admin, spec, list(spec.instance_uuids))


GROUPS = {
    'resources1:MEMORY_MB': '3072', 'trait1:CUSTOM_A': 'required',
    'resources_nic:MEMORY_MB': '3072', 'trait_nic:CUSTOM_B': 'required',
    'trait_nic:CUSTOM_C': 'forbidden', 'group_policy': 'none',
}


def test_the_node_meets_every_group(admin, scheduler):
    # Group 1 alone fits "only-a", group _nic alone fits "only-b"; one
    # node must meet both, with the memory of both groups (6 GiB).
    _node(admin, 'both', ['CUSTOM_A', 'CUSTOM_B'], memory_mb=8192)
    _node(admin, 'both-small', ['CUSTOM_A', 'CUSTOM_B'], memory_mb=4096)
    _node(admin, 'only-a', ['CUSTOM_A'], memory_mb=8192)
    _node(admin, 'only-b', ['CUSTOM_B'], memory_mb=8192)
    _node(admin, 'both-and-c', ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C'],
          memory_mb=8192)
    _node(admin, 'both-too', ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_D'],
          memory_mb=16384)
    spec = _spec(GROUPS)
    assert spec.resources['MEMORY_MB'] == 6144
    assert _every_option(admin, scheduler, spec) == ['both', 'both-too']


def test_one_unit_of_the_nodes_class_in_any_group(admin, scheduler):
    _node(admin, 'gold', ['CUSTOM_A'])
    _node(admin, 'gold-without-a')
    spec = _spec({'resources:CUSTOM_BAREMETAL_GOLD': '0',
                  'resources1:CUSTOM_BAREMETAL_GOLD': '1',
                  'trait1:CUSTOM_A': 'required'})
    assert spec.resource_class == 'CUSTOM_BAREMETAL_GOLD'
    assert _every_option(admin, scheduler, spec) == ['gold']


def test_a_class_no_node_has_matches_nothing(admin, scheduler):
    """Refused when the spec is built (see test_request_group); a spec
    that asks anyway (an older service's) finds no node.
    """
    _node(admin, 'gold')
    spec = _spec({})
    for resources in ({'PCPU': 2}, {'CUSTOM_BAREMETAL_GOLD': 2}):
        spec.resources = dict(spec.resources, **resources)
        _no_valid_host(admin, scheduler, spec)
    assert _every_option(admin, scheduler,
                         _spec({'resources1:PCPU': '0'})) == ['gold']


CAPABILITIES = {
    'capabilities:cpu_arch': 'x86_64',
    'capabilities:cpus': '>= 16',
    'capabilities:memory_mb': '= 8192',
    'capabilities:local_gb': '<= 1000',
    'capabilities:profile': '<or> compute <or> storage',
    'capabilities:boot_mode': 'uefi',
    'capabilities:supported_instances': '<in> baremetal',
}


def test_the_node_meets_every_capability(admin, scheduler):
    good = dict(cpus=32, memory_mb=8192, local_gb=500,
                capabilities='boot_mode:uefi,profile:storage')
    _node(admin, 'good', **good)
    _node(admin, 'good-dict', **dict(good, capabilities={
        'boot_mode': 'uefi', 'profile': 'compute'}))
    _node(admin, 'arm', cpu_arch='aarch64', **good)
    _node(admin, 'no-arch', cpu_arch=None, **good)
    _node(admin, 'few-cpus', **dict(good, cpus=8))
    _node(admin, 'small', **dict(good, memory_mb=4096))
    _node(admin, 'big-disk', **dict(good, local_gb=2000))
    _node(admin, 'bios', **dict(good, capabilities='boot_mode:bios,'
                                                   'profile:storage'))
    _node(admin, 'gpu-profile', **dict(good, capabilities='boot_mode:uefi,'
                                                          'profile:gpu'))
    _node(admin, 'no-capabilities', **dict(good, capabilities=None))
    spec = _spec(CAPABILITIES)
    assert _every_option(admin, scheduler, spec) == ['good', 'good-dict']


def test_a_capability_no_node_reports_matches_nothing(admin, scheduler):
    _node(admin, 'gold', capabilities='boot_mode:uefi')
    _no_valid_host(admin, scheduler,
                   _spec({'capabilities:cpu_info:features': '<in> avx'}))
    _no_valid_host(admin, scheduler,
                   _spec({'capabilities:cpus': '>= many'}))


IMAGE = {'id': 'c0ffee00-0000-4000-8000-000000000001', 'properties': {
    'trait:CUSTOM_IMG': 'required', 'hw_architecture': 'AMD64',
    'hw_vm_mode': 'hvm', 'img_hv_type': 'baremetal',
    'img_hv_requested_version': '>=1'}}


def test_the_node_runs_what_the_image_asks(admin, scheduler):
    _node(admin, 'good', ['CUSTOM_IMG'])
    _node(admin, 'good-amd64', ['CUSTOM_IMG'], cpu_arch='amd64')
    _node(admin, 'no-trait', [])
    _node(admin, 'arm', ['CUSTOM_IMG'], cpu_arch='aarch64')
    _node(admin, 'unknown-arch', ['CUSTOM_IMG'], cpu_arch='z80')
    spec = _spec({}, image=IMAGE)
    assert spec.required_traits == ['CUSTOM_IMG']
    assert spec.image.properties.architecture == 'x86_64'
    assert _every_option(admin, scheduler, spec) == ['good', 'good-amd64']


@pytest.mark.parametrize('properties', [
    {'img_hv_type': 'kvm'}, {'hw_vm_mode': 'xen'},
    {'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=2'},
])
def test_an_image_no_bare_metal_node_runs(admin, scheduler, properties):
    _node(admin, 'good')
    _no_valid_host(admin, scheduler,
                   _spec({}, image={'id': 'i', 'properties': properties}))


def test_groups_capabilities_and_image_together(admin, scheduler):
    everything = dict(cpus=32, memory_mb=8192, local_gb=500,
                      capabilities='boot_mode:uefi,profile:compute')
    _node(admin, 'fits', ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_IMG'],
          **everything)
    _node(admin, 'fits-too', ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_IMG'],
          **everything)
    _node(admin, 'no-image-trait', ['CUSTOM_A', 'CUSTOM_B'], **everything)
    _node(admin, 'no-group-trait', ['CUSTOM_A', 'CUSTOM_IMG'], **everything)
    _node(admin, 'no-capability', ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_IMG'],
          **dict(everything, cpus=4))
    spec = _spec(dict(GROUPS, **CAPABILITIES), image=IMAGE, count=2)
    assert _every_option(admin, scheduler, spec) == ['fits', 'fits-too']
