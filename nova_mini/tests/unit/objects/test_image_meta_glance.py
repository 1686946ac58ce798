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

"""An image as Glance's v2 API shows it, made an ImageMeta: its properties
coerced to Nova's names and values, its attributes kept, and what a claim
writes into the node's instance_info of it; and the imageRef forms the
compute API takes.
"""

import pytest

from nova_mini.api.validation.image_properties import registry as ip_registry
from nova_mini import exception
from nova_mini.image import glance
from nova_mini import objects
from nova_mini.objects.baremetal import node_provision
from nova_mini.objects.compute import flavor as flavor_obj
from nova_mini.objects import image_meta
from nova_mini.objects import request_spec

objects.register_all()

IMAGE_ID = '1b3c5e9a-7f7e-4a7c-9d0b-2f6a0c1d2e3f'


def _glance_image(**properties):
    """An image body as Glance 33 answers GET /v2/images/{id}."""
    image = {
        'id': IMAGE_ID, 'name': 'cirros', 'status': 'active',
        'visibility': 'public', 'protected': False, 'owner': 'p1',
        'checksum': '0a1b', 'os_hash_algo': 'sha512', 'os_hash_value': 'ff',
        'size': 4096, 'virtual_size': None, 'min_ram': 0, 'min_disk': 1,
        'container_format': 'bare', 'disk_format': 'raw', 'os_hidden': False,
        'tags': ['small'], 'created_at': '2026-11-25T01:00:00Z',
        'updated_at': '2026-11-25T01:00:01Z', 'stores': 'file',
        'file': '/v2/images/%s/file' % IMAGE_ID,
        'self': '/v2/images/%s' % IMAGE_ID, 'schema': '/v2/schemas/image',
    }
    image.update(properties)
    return image


@pytest.mark.parametrize('given, canonical', [
    ('x86_64', 'x86_64'), ('AMD64', 'x86_64'), ('i386', 'i686'),
    ('aarch64', 'aarch64'), ('PPC64LE', 'ppc64le')])
def test_architecture_coerced_to_novas_name(given, canonical):
    meta = image_meta.ImageMeta.from_glance(
        _glance_image(hw_architecture=given))
    assert meta.properties.hw_architecture == canonical
    # Glance's own value is kept for the deploy's record.
    assert meta.raw_properties == {'hw_architecture': given}


def test_legacy_names_and_traits():
    meta = image_meta.ImageMeta.from_glance(_glance_image(**{
        'architecture': 'amd64', 'hypervisor_type': 'xapi', 'vm_mode': 'hv',
        'trait:CUSTOM_GPU': 'required', 'trait:CUSTOM_OFF': 'forbidden',
        'os_distro': 'cirros'}))
    props = meta.properties
    assert props.hw_architecture == 'x86_64'
    assert props.img_hv_type == 'xen'
    assert props.hw_vm_mode == 'hvm'
    # Only "required" traits are required.
    assert props.traits_required == ['CUSTOM_GPU']
    assert meta.raw_properties['os_distro'] == 'cirros'


def test_attributes_kept_and_not_taken_for_properties():
    meta = image_meta.ImageMeta.from_glance(_glance_image())
    assert (meta.id, meta.name, meta.status) == (IMAGE_ID, 'cirros',
                                                 'active')
    assert (meta.size, meta.min_ram, meta.min_disk) == (4096, 0, 1)
    assert (meta.disk_format, meta.container_format) == ('raw', 'bare')
    assert (meta.checksum, meta.os_hash_algo, meta.os_hash_value) == (
        '0a1b', 'sha512', 'ff')
    assert meta.tags == ['small']
    assert meta.raw_properties == {}
    assert meta.properties.traits_required == []


def test_unknown_architecture_is_invalid():
    with pytest.raises(exception.InvalidRequestSpec) as caught:
        image_meta.ImageMeta.from_glance(
            _glance_image(hw_architecture='pdp11'))
    assert 'hw_architecture' in caught.value.format_message()


def test_bad_version_predicate_is_invalid():
    with pytest.raises(exception.InvalidRequestSpec):
        image_meta.ImageMeta.from_glance(
            _glance_image(img_hv_requested_version='newest'))


def test_older_version_drops_the_glance_attributes():
    meta = image_meta.ImageMeta.from_glance(_glance_image(foo='bar'))
    old = meta.obj_to_primitive(target_version='1.1')
    assert sorted(old['nova_mini_object.data']) == ['id', 'properties']
    again = image_meta.ImageMeta.obj_from_primitive(
        meta.obj_to_primitive())
    assert again.raw_properties == {'foo': 'bar'}
    assert again.checksum == '0a1b'


def _spec(image):
    flavor = flavor_obj.Flavor(
        id=1, flavorid='1', name='bm', memory_mb=1024, vcpus=1, root_gb=10,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=None,
        is_public=True, disabled=False, description=None,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                     'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                     'resources:DISK_GB': '0',
                     'trait:CUSTOM_FLAVOR': 'required'},
        projects=[])
    return request_spec.RequestSpec.from_components(None, flavor,
                                                    image=image)


def test_instance_info_of_a_glance_image():
    meta = image_meta.ImageMeta.from_glance(_glance_image(**{
        'trait:CUSTOM_GPU': 'required', 'hw_architecture': 'x86_64'}))
    info = node_provision.instance_info(_spec(meta))
    assert info == {
        'traits': ['CUSTOM_FLAVOR', 'CUSTOM_GPU'],
        'image_source': IMAGE_ID,
        'image_properties': {'trait:CUSTOM_GPU': 'required',
                             'hw_architecture': 'x86_64'},
        'image_tags': ['small'],
        'image_checksum': '0a1b',
        'image_disk_format': 'raw',
        'image_container_format': 'bare',
        'image_os_hash_algo': 'sha512',
        'image_os_hash_value': 'ff',
    }


def test_instance_info_of_an_unchecked_image():
    info = node_provision.instance_info(_spec({'id': IMAGE_ID}))
    assert info == {'traits': ['CUSTOM_FLAVOR']}


@pytest.mark.parametrize('ref', [
    IMAGE_ID, 'http://glance.example/v2/images/%s' % IMAGE_ID,
    'http://nova.example/compute/images/%s/' % IMAGE_ID])
def test_image_ref_forms(ref):
    assert glance.image_id_of(ref) == IMAGE_ID


@pytest.mark.parametrize('ref', ['cirros', '12', 'http://x/images/cirros'])
def test_image_ref_not_an_id(ref):
    with pytest.raises(glance.InvalidImageRef) as caught:
        glance.image_id_of(ref)
    assert caught.value.format_message() == 'Invalid imageRef provided.'


@pytest.mark.parametrize('properties, expected', [
    ({'architecture': 'AMD64', 'hw_architecture': 'aarch64'},
     {'hw_architecture': 'aarch64'}),
    ({'hypervisor_type': 'xapi', 'vm_mode': 'pv',
      'hypervisor_version_requires': '>=1'},
     {'img_hv_type': 'xen', 'hw_vm_mode': 'xen',
      'img_hv_requested_version': '>=1'}),
    ({'trait:CUSTOM_B': 'required', 'trait:CUSTOM_A': 'required',
      'trait:CUSTOM_C': 'forbidden', 'cpu_arch': 'i386'},
     {'traits_required': ['CUSTOM_A', 'CUSTOM_B'], 'cpu_arch': 'i686'}),
])
def test_from_typed_takes_the_registry_reading(properties, expected):
    # What the image property registry reads of the properties is what the
    # scheduler's filters see (cpu_arch, nova_mini's own, aside).
    _verdict, typed = ip_registry.read(properties)
    image = _glance_image(**properties)
    meta = image_meta.ImageMeta.from_glance(image, typed=typed)
    props = meta.properties
    for name in ('hw_architecture', 'cpu_arch', 'img_hv_type', 'hw_vm_mode',
                 'img_hv_requested_version'):
        assert props.get(name) == expected.get(name), name
    assert props.traits_required == expected.get('traits_required', [])
    assert meta.raw_properties == properties
    # The same as the scheduler's own reading of a stored image.
    assert meta.to_dict() == image_meta.ImageMeta.from_glance(
        image).to_dict()


def test_untyped_image_keeps_its_raw_properties():
    # An image Nova cannot read (the API refuses it later, after Nova's
    # earlier checks, where it types the image): nothing typed, the raw
    # properties and Glance's attributes kept.
    image = _glance_image(architecture='pdp11', os_distro='x')
    meta = image_meta.ImageMeta.untyped_from_glance(image)
    assert not meta.obj_attr_is_set('properties')
    assert meta.raw_properties == {'architecture': 'pdp11', 'os_distro': 'x'}
    typed = image_meta.ImageMeta.from_glance(image, typed={})
    assert typed.properties.architecture is None
    assert [meta.get(name) for name in image_meta.ImageMeta._V1_2] == [
        typed.get(name) for name in image_meta.ImageMeta._V1_2]
