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
    image = {'id': 'img-1', 'properties': {
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


@st.composite
def _extra_specs(draw):
    required = draw(st.sets(_traits, max_size=4))
    forbidden = draw(st.sets(_traits, max_size=3)) - required
    specs = {'trait:%s' % t: 'required' for t in required}
    specs.update({'trait:%s' % t: 'forbidden' for t in forbidden})
    specs.update({'resources:%s' % rc: str(n) for rc, n in draw(st.dictionaries(
        st.one_of(st.sampled_from(['VCPU', 'MEMORY_MB', 'DISK_GB']),
                  _traits), st.integers(0, 64), max_size=3)).items()})
    specs.update({'capabilities:%s' % k: v for k, v in draw(
        st.dictionaries(_names, _text, max_size=3)).items()})
    specs.update(draw(st.dictionaries(
        st.builds(lambda s: 'hw:' + s, _names), _text, max_size=2)))
    return specs, required


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
    image_traits = [t for t in image_traits
                    if 'trait:%s' % t not in specs or t in required]
    image = {'id': draw(st.one_of(st.none(), _names)), 'properties': {
        'traits_required': image_traits}}
    for name in ('hw_architecture', 'cpu_arch'):
        if draw(st.booleans()):
            image['properties'][name] = draw(_names)
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
