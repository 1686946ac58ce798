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

"""RequestSpec, ImageMeta and Selection: derived requirements, the legacy
dicts (both ways, proved lossless with hypothesis), what is persisted, and
the RPC wire form.
"""

import datetime

from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st
from oslo_serialization import jsonutils
from oslo_versionedobjects import base as ovo_base
import pytest

from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import image_meta
from nova_mini.objects import request_spec
from nova_mini import rpc
from nova_mini.tests.fixtures import builders

objects.register_all()


def _flavor(extra_specs=None, **kwargs):
    values = dict(id=1, flavorid='bm-gold', name='bm.gold', memory_mb=2048,
                  vcpus=2, root_gb=20, ephemeral_gb=5, swap=1536,
                  rxtx_factor=1.0, vcpu_weight=None,
                  extra_specs=extra_specs or {},
                  created_at=datetime.datetime(
                      2026, 11, 22, 12, 0, 0, 123456,
                      tzinfo=datetime.timezone.utc),
                  updated_at=None)
    values.update(kwargs)
    return builders.make_flavor(None, values.pop('flavorid'), **values)


def as_dict(value):
    """Every set field, recursively, for comparing objects."""
    if isinstance(value, ovo_base.VersionedObject):
        return {'__name': value.obj_name(), **{
            name: as_dict(getattr(value, name)) for name in value.fields
            if value.obj_attr_is_set(name)}}
    if isinstance(value, (list, tuple)):
        return [as_dict(v) for v in value]
    if isinstance(value, dict):
        return {k: as_dict(v) for k, v in value.items()}
    return value


def test_resources_from_the_flavor():
    spec = request_spec.RequestSpec.from_components(None, _flavor())
    # Swap in MiB, rounded up to whole GiB.
    assert spec.resources == {'VCPU': 2, 'MEMORY_MB': 2048, 'DISK_GB': 27}
    assert spec.resource_class is None
    assert spec.required_traits == spec.forbidden_traits == []
    assert spec.capabilities == {}


def test_bare_metal_flavor_requirements():
    flavor = _flavor({
        'resources:CUSTOM_BAREMETAL_GOLD': '1', 'resources:VCPU': '0',
        'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0',
        'trait:HW_CPU_X86_AVX2': 'required',
        'trait:CUSTOM_RAID': 'forbidden',
        'capabilities:boot_mode': 'uefi', 'hw:cpu_policy': 'dedicated'})
    image = {'id': 'c0ffee00-0000-4000-8000-000000000001', 'properties': {
        'hw_architecture': 'x86_64', 'trait:CUSTOM_SECURE': 'required',
        'traits_required': ['CUSTOM_TPM']}}
    spec = request_spec.RequestSpec.from_components(None, flavor, image)
    assert spec.resources == {'CUSTOM_BAREMETAL_GOLD': 1}
    assert spec.resource_class == 'CUSTOM_BAREMETAL_GOLD'
    assert spec.required_traits == ['CUSTOM_SECURE', 'CUSTOM_TPM',
                                    'HW_CPU_X86_AVX2']
    assert spec.forbidden_traits == ['CUSTOM_RAID']
    assert spec.capabilities == {'boot_mode': 'uefi'}
    assert spec.image.properties.architecture == 'x86_64'


@pytest.mark.parametrize('specs', [
    {'resources:VCPU': 'two'}, {'resources:VCPU': '-1'},
    {'trait:CUSTOM_A': 'preferred'},
    {'trait:CUSTOM_A': 'required', 'trait:CUSTOM_B': 'forbidden'},
])
def test_invalid_extra_specs(specs):
    if 'trait:CUSTOM_B' in specs:
        # Required by the image, forbidden by the flavor.
        image = {'properties': {'traits_required': ['CUSTOM_B']}}
    else:
        image = None
    with pytest.raises(exception.InvalidRequestSpec):
        request_spec.RequestSpec.from_components(None, _flavor(specs), image)


def test_from_nova_style_legacy_dicts():
    flavor = _flavor({'trait:CUSTOM_A': 'required'})
    req = {
        'image': {'id': 'img', 'properties': {'cpu_arch': 'aarch64'}},
        'instance_properties': {'uuid': 'u-1', 'project_id': 'p',
                                'user_id': 'u', 'availability_zone': 'az1'},
        'instance_type': jsonutils.to_primitive(
            request_spec._flavor_to_dict(flavor)),
        'num_instances': 1,
    }
    filter_properties = {
        'scheduler_hints': {'group': 'g-1', 'same_host': ['a', 'b']},
        'ignore_hosts': ['n-9'], 'retry': {
            'num_attempts': 2, 'hosts': [['host', 'node-3']]}}
    spec = request_spec.RequestSpec.from_dict(req, filter_properties)
    assert spec.instance_uuids == ['u-1']
    assert spec.num_instances == 1
    assert (spec.project_id, spec.user_id, spec.availability_zone) == (
        'p', 'u', 'az1')
    assert spec.scheduler_hints == {'group': ['g-1'],
                                    'same_host': ['a', 'b']}
    assert spec.ignore_hosts == ['n-9'] and spec.force_nodes == []
    assert spec.retry.num_attempts == 2 and spec.retry.nodes == ['node-3']
    assert spec.flavor.created_at == flavor.created_at
    assert spec.required_traits == ['CUSTOM_A']
    assert spec.image.properties.architecture == 'aarch64'


def test_from_dict_needs_a_flavor():
    with pytest.raises(exception.InvalidRequestSpec):
        request_spec.RequestSpec.from_dict({'num_instances': 1}, {})


def test_persistable_drops_per_request_fields():
    spec = request_spec.RequestSpec.from_components(
        None, _flavor(), instance_uuids=['a', 'b'], ignore_hosts=['n1'],
        force_nodes=['n2'], retry={'num_attempts': 1, 'nodes': ['n3']},
        scheduler_hints={'k': 'v'})
    stored = spec.persistable()
    for name in request_spec.PER_REQUEST_FIELDS:
        assert not stored.obj_attr_is_set(name), name
    assert stored.num_instances == 2
    assert stored.scheduler_hints == {'k': ['v']}
    assert as_dict(stored.flavor) == as_dict(spec.flavor)
    assert not stored.obj_what_changed()
    # The original keeps them.
    assert spec.ignore_hosts == ['n1']


def test_rpc_round_trip():
    serializer = rpc.RequestContextSerializer()
    # NOTE: oslo.versionedobjects sends datetimes in whole seconds.
    flavor = _flavor({'resources:CUSTOM_BM': '1'}, created_at=datetime.datetime(
        2026, 11, 22, 12, 0, 0, tzinfo=datetime.timezone.utc))
    spec = request_spec.RequestSpec.from_components(
        None, flavor,
        {'id': 'i', 'properties': {'traits_required': ['CUSTOM_X']}},
        instance_uuids=['u1'], retry={'num_attempts': 1, 'nodes': []})
    wire = jsonutils.loads(jsonutils.dumps(
        serializer.serialize_entity(None, [spec])))
    copy, = serializer.deserialize_entity(None, wire)
    assert as_dict(copy) == as_dict(spec)
    selection = objects.Selection(
        node_uuid='0c2c1d8e-0a5f-4a43-9a3b-0d3f5c1e2a11', node_name='n',
        resource_class='baremetal-gold', weight=0.5)
    wire = jsonutils.loads(jsonutils.dumps(
        serializer.serialize_entity(None, [[selection]])))
    [[copy]] = serializer.deserialize_entity(None, wire)
    assert as_dict(copy) == as_dict(selection)


# -- the lossless round trip, for generated specs

_names = st.text('abcdefghijklmnopqrstuvwxyz0123456789_', min_size=1,
                 max_size=8)
_traits = st.builds(lambda s: 'CUSTOM_' + s.upper(), _names)
_text = st.text(max_size=12)
_datetimes = st.one_of(st.none(), st.datetimes(
    min_value=datetime.datetime(2000, 1, 1),
    max_value=datetime.datetime(2100, 1, 1),
    timezones=st.just(datetime.timezone.utc)))


_suffixes = st.one_of(st.integers(1, 99).map(str),
                      st.builds(lambda s: '_' + s, _names))


@st.composite
def _extra_specs(draw):
    required = draw(st.sets(_traits, max_size=4))
    forbidden = draw(st.sets(_traits, max_size=3)) - required
    # Each trait in one group: unnumbered ('') or numbered.
    groups = {t: draw(st.one_of(st.just(''), _suffixes))
              for t in required | forbidden}
    specs = {'trait%s:%s' % (groups[t], t): 'required' for t in required}
    specs.update({'trait%s:%s' % (groups[t], t): 'forbidden'
                  for t in forbidden})
    # A node has one unit of its (custom) class.
    specs.update({'resources%s:%s' % (draw(st.one_of(st.just(''),
                                                     _suffixes)), rc): str(n)
                  for rc, n in draw(st.dictionaries(
                      st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB']),
                      st.integers(0, 64), max_size=3)).items()})
    specs.update({'resources%s:%s' % (draw(st.one_of(st.just(''),
                                                     _suffixes)), rc): str(n)
                  for rc, n in draw(st.dictionaries(
                      _traits, st.integers(0, 1), max_size=2)).items()})
    # One provider meets every group: none is the only policy that
    # works with two numbered groups or more.
    specs['group_policy'] = 'none'
    specs.update({'capabilities:%s' % k: v for k, v in draw(
        st.dictionaries(_names, _text, max_size=3)).items()})
    specs.update(draw(st.dictionaries(
        st.builds(lambda s: 'hw:' + s, _names), _text, max_size=2)))
    return specs, required


# Image properties and values of each, in any spelling Nova takes.
_IMAGE_PROPERTIES = {
    'hw_architecture': ['x86_64', 'AMD64', 'aarch64', 'i386', 'ppc64le'],
    'architecture': ['x86_64', 's390x'],
    'cpu_arch': ['x86_64', 'Aarch64'],
    'img_hv_type': ['baremetal', 'ironic', 'xapi', 'KVM'],
    'hypervisor_type': ['qemu'],
    'hw_vm_mode': ['hvm', 'hv', 'baremetal', 'pv'],
    'vm_mode': ['exe'],
    'img_hv_requested_version': ['>=1', '<2', '==1.0'],
}


_hex = st.text('0123456789abcdef', min_size=32, max_size=32)
_maybe_text = st.one_of(st.none(), _text)
# Properties no filter reads, as Glance images carry them (any name that
# is not one of Glance's attributes or a property named above).
_other_properties = st.dictionaries(
    st.one_of(st.sampled_from(['os_distro', 'os_version', 'hw_disk_bus',
                               'img_config_drive', 'hw_firmware_type',
                               'description']),
              st.builds(lambda s: 'x_' + s, _names)),
    _text, max_size=4)


def _glance_attributes(draw):
    """Glance's attributes of an image (its v2 image schema), as drawn."""
    return {
        'id': str(draw(st.uuids())), 'name': draw(_maybe_text),
        'status': draw(st.sampled_from(['active', 'queued', 'saving',
                                        'deactivated'])),
        'visibility': draw(st.sampled_from(['public', 'private', 'shared',
                                            'community'])),
        'protected': draw(st.booleans()), 'os_hidden': draw(st.booleans()),
        'owner': draw(st.one_of(st.none(), _names)),
        'checksum': draw(st.one_of(st.none(), _hex)),
        'os_hash_algo': draw(st.sampled_from([None, 'sha512'])),
        'os_hash_value': draw(st.one_of(st.none(), _hex)),
        'disk_format': draw(st.sampled_from([None, 'raw', 'qcow2', 'iso',
                                             'vmdk'])),
        'container_format': draw(st.sampled_from([None, 'bare', 'ovf',
                                                  'docker'])),
        'size': draw(st.one_of(st.none(), st.integers(0, 2 ** 40))),
        'virtual_size': draw(st.one_of(st.none(), st.integers(0, 2 ** 40))),
        'min_ram': draw(st.integers(0, 10 ** 5)),
        'min_disk': draw(st.integers(0, 10 ** 3)),
        'tags': draw(st.lists(_text, max_size=3)),
        'created_at': '2026-11-22T12:00:00Z',
        'updated_at': '2026-11-22T12:00:01Z',
    }


def _image_properties(draw, traits):
    """Properties of a Glance image: the ones the scheduler reads (any
    spelling), ``trait:<NAME>=required`` for ``traits``, others.
    """
    properties = draw(_other_properties)
    for name, values in _IMAGE_PROPERTIES.items():
        if draw(st.booleans()):
            properties[name] = draw(st.sampled_from(values))
    properties.update({'trait:%s' % trait: 'required' for trait in traits})
    return properties


@st.composite
def glance_images(draw, traits=()):
    """An image as Glance's ``GET /v2/images/{id}`` shows it."""
    image = _glance_attributes(draw)
    image.update({'file': '/v2/images/%s/file' % image['id'],
                  'self': '/v2/images/%s' % image['id'],
                  'schema': '/v2/schemas/image'})
    image.update(_image_properties(draw, traits))
    return image


@st.composite
def request_specs(draw):
    specs, required = draw(_extra_specs())
    flavor = objects.Flavor(
        id=draw(st.integers(1, 10 ** 6)), flavorid=draw(_names),
        name=draw(_text), memory_mb=draw(st.integers(0, 10 ** 6)),
        vcpus=draw(st.integers(0, 256)), root_gb=draw(st.integers(0, 10 ** 4)),
        ephemeral_gb=draw(st.integers(0, 100)),
        swap=draw(st.integers(0, 10 ** 5)),
        rxtx_factor=draw(st.floats(0.5, 4.0)),
        vcpu_weight=draw(st.one_of(st.none(), st.integers(0, 100))),
        is_public=draw(st.booleans()), disabled=draw(st.booleans()),
        description=draw(st.one_of(st.none(), _text)), extra_specs=specs,
        created_at=draw(_datetimes), updated_at=draw(_datetimes))
    if draw(st.booleans()):
        flavor.projects = draw(st.lists(_names, max_size=3))
    image_traits = draw(st.lists(_traits, max_size=3))
    # The image's traits go to the unnumbered group: none may be
    # forbidden by any group.
    image_traits = [t for t in image_traits if not any(
        key.endswith(':' + t) and value == 'forbidden'
        for key, value in specs.items())]
    if draw(st.booleans()):
        # As Glance shows an image (the API reads it so).
        image = image_meta.ImageMeta.from_glance(
            draw(glance_images(image_traits)))
    else:
        image = {'id': draw(st.one_of(st.none(), _names)), 'properties': {
            'traits_required': image_traits}}
        for name, values in _IMAGE_PROPERTIES.items():
            if draw(st.booleans()):
                image['properties'][name] = draw(st.sampled_from(values))
    uuids = draw(st.lists(st.uuids().map(str), max_size=4))
    retry = draw(st.one_of(st.none(), st.fixed_dictionaries({
        'num_attempts': st.integers(0, 5),
        'nodes': st.lists(_names, max_size=3)})))
    return request_spec.RequestSpec.from_components(
        None, flavor, image,
        num_instances=draw(st.integers(1, 10)), instance_uuids=uuids,
        project_id=draw(st.one_of(st.none(), _names)),
        user_id=draw(st.one_of(st.none(), _names)),
        availability_zone=draw(st.one_of(st.none(), _text)),
        scheduler_hints=draw(st.dictionaries(
            _names, st.lists(_text, max_size=3), max_size=3)),
        ignore_hosts=draw(st.lists(_names, max_size=3)),
        force_nodes=draw(st.lists(_names, max_size=3)), retry=retry)


@settings(max_examples=200, deadline=None)
@given(request_specs())
def test_legacy_dict_round_trip_loses_nothing(spec):
    legacy = spec.to_legacy_dict()
    # As JSON, the form it has on a wire or in a database.
    legacy = jsonutils.loads(jsonutils.dumps(legacy))
    copy = request_spec.RequestSpec.from_dict(*legacy)
    assert as_dict(copy) == as_dict(spec)


# The attributes ImageMeta keeps of an image (the others, Glance's
# owner or dates say, no filter or deploy reads).
_KEPT = ('id', 'name', 'status', 'checksum', 'disk_format',
         'container_format', 'size', 'min_ram', 'min_disk', 'os_hash_algo',
         'os_hash_value', 'tags')


def _strings(properties):
    return {key: value if isinstance(value, str) else str(value)
            for key, value in properties.items()
            if key != 'traits_required' and value is not None}


@settings(max_examples=200, deadline=None)
@given(st.lists(_traits, max_size=3).flatmap(glance_images))
def test_glance_image_legacy_dict_keeps_what_glance_said(glance):
    image = image_meta.ImageMeta.from_glance(glance)
    legacy = jsonutils.loads(jsonutils.dumps(image.to_dict()))
    for name in _KEPT:
        if glance.get(name) is not None:
            assert legacy[name] == glance[name], name
    properties = dict(legacy['properties'])
    traits = properties.pop('traits_required')
    assert properties == image_meta.glance_properties(glance)
    assert traits == image.properties.traits_required
    copy = image_meta.ImageMeta.from_dict(legacy)
    assert as_dict(copy) == as_dict(image)


@st.composite
def nova_legacy_dicts(draw):
    """``(request_spec, filter_properties)`` as Nova's RequestSpec writes
    them (to_legacy_request_spec_dict, to_legacy_filter_properties_dict):
    the image its ImageMeta's primitive (Glance's attributes, the
    properties typed as Nova's fields are), the host and node of each
    retry, Nova's keys nova_mini does not read.
    """
    specs, _required = draw(_extra_specs())
    forbidden = {key.split(':', 1)[1] for key, value in specs.items()
                 if value == 'forbidden'}
    traits = [t for t in draw(st.lists(_traits, max_size=3, unique=True))
              if t not in forbidden]
    flavor = _flavor(specs)
    flavor_dict = jsonutils.to_primitive(request_spec._flavor_to_dict(flavor))
    image = {name: value for name, value in _glance_attributes(draw).items()
             if name in _KEPT + ('owner', 'protected', 'visibility',
                                 'virtual_size', 'created_at',
                                 'updated_at')}
    properties = _image_properties(draw, ())
    # Typed as Nova's ImageMetaProps fields are.
    properties.update(draw(st.fixed_dictionaries({}, optional={
        'hw_cpu_cores': st.integers(1, 64),
        'hw_boot_menu': st.booleans(),
        'os_require_quiesce': st.booleans(),
        'hw_rng_model': st.just('virtio')})))
    properties['traits_required'] = traits
    image['properties'] = properties
    uuid = str(draw(st.uuids()))
    request = {
        'image': image,
        'instance_properties': {
            'uuid': uuid, 'project_id': draw(_names),
            'user_id': draw(_names),
            'availability_zone': draw(st.one_of(st.none(), _names)),
            'numa_topology': None, 'pci_requests': None,
            'root_gb': flavor.root_gb, 'ephemeral_gb': flavor.ephemeral_gb,
            'memory_mb': flavor.memory_mb, 'vcpus': flavor.vcpus},
        'instance_type': flavor_dict,
        'num_instances': 1,
    }
    attempts = draw(st.lists(st.tuples(_names, _names), max_size=3))
    filter_properties = {
        'instance_type': dict(flavor_dict),
        'scheduler_hints': draw(st.dictionaries(
            _names, st.one_of(_text, st.lists(_text, max_size=2)),
            max_size=2)),
        'ignore_hosts': draw(st.lists(_names, max_size=2)),
        'force_hosts': draw(st.lists(_names, max_size=1)),
        'force_nodes': draw(st.lists(_names, max_size=1)),
        'limits': {},
        'group_updated': False, 'group_hosts': [], 'group_policies': [],
    }
    if attempts:
        filter_properties['retry'] = {
            'num_attempts': len(attempts),
            'hosts': [list(attempt) for attempt in attempts]}
    return request, filter_properties


@settings(max_examples=200, deadline=None)
@given(nova_legacy_dicts())
def test_nova_legacy_dicts_keep_the_image(legacy):
    request, filter_properties = jsonutils.loads(jsonutils.dumps(legacy))
    spec = request_spec.RequestSpec.from_dict(request, filter_properties)
    nova_image = request['image']
    image = spec.to_legacy_dict()[0]['image']
    for name in _KEPT:
        assert image[name] == nova_image[name], name
    properties = dict(image['properties'])
    assert sorted(properties.pop('traits_required')) == sorted(
        nova_image['properties']['traits_required'])
    assert properties == _strings(nova_image['properties'])
    assert spec.instance_uuids == [request['instance_properties']['uuid']]
    # And the round trip from there loses nothing.
    copy = request_spec.RequestSpec.from_dict(*jsonutils.loads(
        jsonutils.dumps(spec.to_legacy_dict())))
    assert as_dict(copy) == as_dict(spec)


@st.composite
def _legacy_dicts_without_uuids(draw):
    flavor = _flavor({'resources:CUSTOM_BM': '1'})
    count = draw(st.integers(1, 20))
    instance = {'project_id': draw(_names), 'user_id': draw(_names)}
    if draw(st.booleans()):
        instance['uuid'] = str(draw(st.uuids()))
    request = {'instance_properties': instance, 'num_instances': count,
               'instance_type': jsonutils.to_primitive(
                   request_spec._flavor_to_dict(flavor)),
               'image': {'id': 'img', 'properties': {}}}
    return request, count


@settings(max_examples=100, deadline=None)
@given(_legacy_dicts_without_uuids())
def test_legacy_dict_without_instance_uuids_keeps_num_instances(generated):
    legacy, count = generated
    spec = request_spec.RequestSpec.from_dict(
        jsonutils.loads(jsonutils.dumps(legacy)))
    assert spec.num_instances == count
    assert spec.instance_count == count
    uuid = legacy['instance_properties'].get('uuid')
    if count == 1 and uuid:
        assert spec.instance_uuids == [uuid]
    else:
        # instance_properties names the first instance only.
        assert spec.instance_uuids == []
    copy = request_spec.RequestSpec.from_dict(*jsonutils.loads(
        jsonutils.dumps(spec.to_legacy_dict())))
    assert as_dict(copy) == as_dict(spec)


def test_num_instances_without_instance_uuids():
    flavor = _flavor()
    legacy = {'instance_properties': {'uuid': 'u-1'}, 'num_instances': 2,
              'instance_type': request_spec._flavor_to_dict(flavor)}
    spec = request_spec.RequestSpec.from_dict(legacy)
    assert (spec.num_instances, spec.instance_count) == (2, 2)
    assert spec.instance_uuids == []


# -- version 1.1 and the 1.0 form

def _spec_with_groups():
    flavor = _flavor({
        'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
        'resources:DISK_GB': '0', 'resources1:CUSTOM_BM': '1',
        'trait1:CUSTOM_A': 'required', 'trait_nic:CUSTOM_B': 'required',
        'trait_nic:CUSTOM_C': 'forbidden', 'group_policy': 'none'},
        created_at=datetime.datetime(2026, 11, 22, 12, 0, 0,
                                     tzinfo=datetime.timezone.utc))
    return request_spec.RequestSpec.from_components(
        None, flavor, {'id': 'img', 'properties': {
            'hw_architecture': 'amd64', 'hw_vm_mode': 'hv',
            'trait:CUSTOM_IMG': 'required'}}, instance_uuids=['u-1'])


def test_spec_carries_groups_and_their_merge():
    spec = _spec_with_groups()
    assert [(g.suffix, g.resources, g.required_traits, g.forbidden_traits)
            for g in spec.requested_groups] == [
        (None, {}, ['CUSTOM_IMG'], []),
        ('1', {'CUSTOM_BM': 1}, ['CUSTOM_A'], []),
        ('_nic', {}, ['CUSTOM_B'], ['CUSTOM_C'])]
    assert spec.group_policy == 'none'
    assert spec.resources == {'CUSTOM_BM': 1}
    assert spec.resource_class == 'CUSTOM_BM'
    assert spec.required_traits == ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_IMG']
    assert spec.forbidden_traits == ['CUSTOM_C']
    props = spec.image.properties
    assert (props.architecture, props.hw_vm_mode) == ('x86_64', 'hvm')


def test_backport_to_1_0_drops_the_new_fields():
    spec = _spec_with_groups()
    primitive = spec.obj_to_primitive(target_version='1.0')
    data = primitive['nova_mini_object.data']
    assert primitive['nova_mini_object.version'] == '1.0'
    assert 'requested_groups' not in data and 'group_policy' not in data
    # The merged view stays: a 1.0 scheduler places on it.
    assert data['required_traits'] == spec.required_traits
    assert data['resources'] == spec.resources
    image = data['image']
    assert image['nova_mini_object.version'] == '1.0'
    props = image['nova_mini_object.data']['properties']
    assert props['nova_mini_object.version'] == '1.0'
    assert 'hw_vm_mode' not in props['nova_mini_object.data']
    assert props['nova_mini_object.data']['hw_architecture'] == 'x86_64'


def test_a_1_0_primitive_loads_with_one_group():
    primitive = jsonutils.loads(jsonutils.dumps(
        _spec_with_groups().obj_to_primitive(target_version='1.0')))
    copy = request_spec.RequestSpec.obj_from_primitive(primitive)
    assert copy.group_policy is None
    [group] = copy.requested_groups
    assert group.suffix is None
    assert group.resources == copy.resources == {'CUSTOM_BM': 1}
    assert group.required_traits == copy.required_traits
    assert group.forbidden_traits == copy.forbidden_traits == ['CUSTOM_C']
    assert not copy.image.properties.obj_attr_is_set('hw_vm_mode')
    assert copy.image.properties.get('hw_vm_mode') is None
    assert copy.image.properties.architecture == 'x86_64'
    # And it is a 1.1 spec from then on: it travels whole.
    wire = jsonutils.loads(jsonutils.dumps(copy.obj_to_primitive()))
    again = request_spec.RequestSpec.obj_from_primitive(wire)
    assert as_dict(again.requested_groups) == as_dict(copy.requested_groups)
    assert wire['nova_mini_object.version'] == request_spec.RequestSpec.VERSION


def test_groups_and_image_properties_travel_over_rpc():
    serializer = rpc.RequestContextSerializer()
    spec = _spec_with_groups()
    wire = jsonutils.loads(jsonutils.dumps(
        serializer.serialize_entity(None, spec)))
    copy = serializer.deserialize_entity(None, wire)
    assert as_dict(copy) == as_dict(spec)
    assert copy.requested_groups[1].resources == {'CUSTOM_BM': 1}
    assert copy.image.properties.hw_vm_mode == 'hvm'
