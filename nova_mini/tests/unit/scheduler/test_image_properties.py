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

"""Image properties: Nova's names and coercion (objects.image_meta), and
the ImagePropertiesFilter on bare-metal nodes (what Nova's filter decides
for the supported instances Nova's Ironic driver reports).
"""

import pytest

from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects import image_meta
from nova_mini.scheduler.filters import image_properties
from nova_mini.scheduler import node_state
from nova_mini.tests.unit.scheduler import test_filters

objects.register_all()


@pytest.mark.parametrize('properties, expected', [
    ({}, {}),
    ({'hw_architecture': 'AMD64'}, {'hw_architecture': 'x86_64'}),
    ({'hw_architecture': 'i386'}, {'hw_architecture': 'i686'}),
    ({'architecture': 'x86_32'}, {'hw_architecture': 'i686'}),
    # The current name wins over the legacy one.
    ({'architecture': 'aarch64', 'hw_architecture': 'x86_64'},
     {'hw_architecture': 'x86_64'}),
    ({'cpu_arch': 'PPC64LE'}, {'cpu_arch': 'ppc64le'}),
    ({'img_hv_type': 'XAPI'}, {'img_hv_type': 'xen'}),
    ({'hypervisor_type': 'baremetal'}, {'img_hv_type': 'baremetal'}),
    ({'hw_vm_mode': 'hv'}, {'hw_vm_mode': 'hvm'}),
    ({'vm_mode': 'baremetal'}, {'hw_vm_mode': 'hvm'}),
    ({'hw_vm_mode': 'pv'}, {'hw_vm_mode': 'xen'}),
    ({'hypervisor_version_requires': '>=1'},
     {'img_hv_requested_version': '>=1'}),
    ({'trait:CUSTOM_A': 'required', 'trait:CUSTOM_B': 'forbidden',
      'traits_required': ['CUSTOM_C']},
     {'traits_required': ['CUSTOM_A', 'CUSTOM_C']}),
])
def test_properties_as_nova_reads_them(properties, expected):
    props = image_meta.ImageMetaProps.from_dict(properties)
    assert props.to_dict() == dict({'traits_required': []}, **expected)
    # Canonical values read back as themselves.
    again = image_meta.ImageMetaProps.from_dict(props.to_dict())
    assert again.to_dict() == props.to_dict()


@pytest.mark.parametrize('properties, words', [
    ({'hw_architecture': 'z80'}, "hw_architecture='z80'"),
    ({'img_hv_type': 'virtualbox'}, "img_hv_type='virtualbox'"),
    ({'hw_vm_mode': 'para'}, "hw_vm_mode='para'"),
    ({'img_hv_requested_version': 'one'},
     "img_hv_requested_version='one' is not a version predicate"),
])
def test_values_nova_does_not_know_are_invalid(properties, words):
    with pytest.raises(exception.InvalidRequestSpec) as info:
        image_meta.ImageMeta.from_dict({'id': 'i', 'properties': properties})
    assert words in str(info.value)


def _node(cpu_arch):
    props = {'cpus': 4, 'memory_mb': 4096, 'local_gb': 100}
    if cpu_arch is not None:
        props['cpu_arch'] = cpu_arch
    return node_state.NodeState(1, 'uuid-1', 'n1', 'baremetal', props,
                                **node_obj.capacity_of(props))


@pytest.fixture
def image_filter():
    return image_properties.ImagePropertiesFilter()


@pytest.mark.parametrize('image, cpu_arch, passes', [
    ({}, None, True),
    ({}, 'z80', True),
    ({'hw_architecture': 'x86_64'}, 'x86_64', True),
    ({'hw_architecture': 'amd64'}, 'X86_64', True),
    ({'architecture': 'x86_64'}, 'amd64', True),
    ({'hw_architecture': 'aarch64'}, 'x86_64', False),
    ({'cpu_arch': 'X86_64'}, 'x86_64', True),
    ({'hw_architecture': 'x86_64'}, None, False),
    ({'hw_architecture': 'x86_64'}, 'z80', False),
    ({'img_hv_type': 'baremetal'}, 'x86_64', True),
    ({'img_hv_type': 'ironic'}, 'x86_64', False),
    ({'img_hv_type': 'kvm'}, 'x86_64', False),
    ({'hw_vm_mode': 'hvm'}, 'aarch64', True),
    ({'vm_mode': 'baremetal'}, 'aarch64', True),
    ({'hw_vm_mode': 'xen'}, 'aarch64', False),
    ({'img_hv_type': 'baremetal', 'hw_vm_mode': 'hvm',
      'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=1'},
     'x86_64', True),
    ({'hw_architecture': 'x86_64', 'img_hv_requested_version': '>=2'},
     'x86_64', False),
    # A version alone asks for nothing (as in Nova).
    ({'img_hv_requested_version': '>=2'}, 'x86_64', True),
])
def test_filter(image_filter, image, cpu_arch, passes):
    spec = test_filters._spec(image_properties=image)
    assert image_filter.node_passes(_node(cpu_arch), spec) is passes


def test_an_image_asking_nothing_fits_any_node(image_filter):
    assert image_filter.check(_node(None), test_filters._spec()) is None


def test_filter_reasons(image_filter):
    spec = test_filters._spec(image_properties={'hw_architecture': 'aarch64'})
    assert image_filter.check(_node('x86_64'), spec) == (
        'image needs aarch64/*/*, node runs x86_64/baremetal/hvm')
    assert image_filter.check(_node(None), spec) == (
        'image needs aarch64; node has no known cpu_arch (None)')
