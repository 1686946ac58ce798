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

"""Request groups: a flavor's numbered and unnumbered groups, their merge
for a single-provider node, and the requests refused.
"""

import pytest

from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import request_group
from nova_mini.tests.fixtures import builders

objects.register_all()


def _flavor(extra_specs):
    return builders.make_flavor(None, 'f', name='f', vcpus=4,
                                memory_mb=1024, root_gb=10, swap=1025,
                                extra_specs=extra_specs)


def _groups(extra_specs, image_traits=()):
    groups, policy = request_group.from_extra_specs(_flavor(extra_specs),
                                                    image_traits)
    return [(g.suffix, g.resources, g.required_traits, g.forbidden_traits)
            for g in groups], policy


def test_unnumbered_group_only():
    assert _groups({'trait:CUSTOM_A': 'required'}, ['CUSTOM_I']) == ([
        (None, {'DISK_GB': 12, 'MEMORY_MB': 1024, 'VCPU': 4},
         ['CUSTOM_A', 'CUSTOM_I'], [])], None)


def test_numbered_and_suffixed_groups():
    groups, policy = _groups({
        'resources:VCPU': '0', 'resources1:CUSTOM_GOLD': '1',
        'trait1:HW_CPU_X86_AVX2': 'required',
        'trait_nic:CUSTOM_SRIOV': 'forbidden',
        'resources_nic:MEMORY_MB': '0', 'group_policy': 'none'})
    assert policy == 'none'
    assert groups == [
        # MEMORY_MB is named by a group (as 0): the flavor's is not added.
        (None, {'DISK_GB': 12}, [], []),
        ('1', {'CUSTOM_GOLD': 1}, ['HW_CPU_X86_AVX2'], []),
        ('_nic', {}, [], ['CUSTOM_SRIOV'])]


def test_a_group_naming_a_flavor_class_replaces_the_flavors():
    groups, _policy = _groups({'resources1:VCPU': '2',
                               'resources2:VCPU': '3',
                               'group_policy': 'none'})
    assert groups[0] == (None, {'DISK_GB': 12, 'MEMORY_MB': 1024}, [], [])
    merged = request_group.merge(
        request_group.from_extra_specs(_flavor({
            'resources1:VCPU': '2', 'resources2:VCPU': '3',
            'resources2:CUSTOM_X': '1', 'trait2:CUSTOM_T': 'required',
            'trait1:CUSTOM_F': 'forbidden', 'group_policy': 'none'}))[0])
    # Summed per class, traits united: one node meets every group.
    assert merged == ({'CUSTOM_X': 1, 'DISK_GB': 12, 'MEMORY_MB': 1024,
                       'VCPU': 5}, ['CUSTOM_T'], ['CUSTOM_F'])


def test_empty_groups_are_dropped():
    groups, _policy = _groups({'resources1:CUSTOM_X': '0',
                               'resources2:CUSTOM_Y': '1'})
    assert [g[0] for g in groups] == [None, '2']


def test_other_namespaces_are_not_groups():
    groups, _policy = _groups({'capabilities:trait1': 'x',
                               'hw:resources1': 'y', 'traitless': 'z'})
    assert [g[0] for g in groups] == [None]


@pytest.mark.parametrize('specs, image_traits, words', [
    ({'trait1:CUSTOM_A': 'required', 'trait2:CUSTOM_A': 'forbidden',
      'group_policy': 'none'}, (),
     ['CUSTOM_A is required by group 1 and forbidden by group 2']),
    ({'trait_x:CUSTOM_A': 'forbidden'}, ['CUSTOM_A'],
     ['required by the unnumbered group and forbidden by group _x']),
    ({'trait1:CUSTOM_A': 'required', 'trait1:CUSTOM_B': 'forbidden',
      'trait:CUSTOM_B': 'required'}, (),
     ['CUSTOM_B is required by the unnumbered group']),
    ({'trait:CUSTOM_A': 'required'}, ['CUSTOM_B'], None),
    ({'resources1:CUSTOM_X': '1', 'trait2:CUSTOM_A': 'required'}, (),
     ['2 numbered request groups (1, 2)', 'set group_policy=none']),
    ({'resources1:CUSTOM_X': '1', 'resources2:VCPU': '1',
      'group_policy': 'isolate'}, (),
     ['group_policy=isolate', '(1, 2)', 'single provider',
      'use group_policy=none']),
    ({'group_policy': 'spread'}, (), ["group_policy='spread'"]),
    ({'resources1:VCPU': 'many'}, (), ["resources1:VCPU='many'"]),
    ({'resources1:VCPU': '-2'}, (), ['not an amount']),
    ({'resources:CUSTOM_GOLD': '1', 'resources1:CUSTOM_GOLD': '1'}, (),
     ['ask for 2 of CUSTOM_GOLD in all', 'has 1 of its resource class']),
    ({'resources:CUSTOM_GOLD': '2'}, (), ['ask for 2 of CUSTOM_GOLD']),
    ({'resources1:PCPU': '4'}, (),
     ['ask for PCPU, which bare-metal nodes do not have']),
    ({'resources1:PCPU': '0', 'resources:CUSTOM_GOLD': '1',
      'resources:CUSTOM_SILVER': '1'}, (), None),
    ({'trait_a:CUSTOM_A': 'preferred'}, (),
     ["trait_a:CUSTOM_A='preferred' is neither required nor forbidden"]),
])
def test_requests_no_node_can_meet_are_refused(specs, image_traits, words):
    if words is None:
        _groups(specs, image_traits)
        return
    with pytest.raises(exception.InvalidRequestSpec) as info:
        _groups(specs, image_traits)
    for word in words:
        assert word in str(info.value)


def test_isolate_with_one_numbered_group_is_fine():
    groups, policy = _groups({'resources1:CUSTOM_X': '1',
                              'group_policy': 'isolate'})
    assert policy == 'isolate'
    assert [g[0] for g in groups] == [None, '1']
