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

"""Versioned objects: fingerprints, relationships, and the RPC wire form.

If a fingerprint test fails, the object's fields or remotable methods
changed: bump its VERSION (with a ``# Version X.Y: ...`` line and
obj_make_compatible for older targets), then update the hash here.
"""

import datetime

from oslo_serialization import jsonutils
from oslo_versionedobjects import base as ovo_base
from oslo_versionedobjects import fixture
import pytest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects import base
from nova_mini import rpc

objects.register_all()

# 'Name': 'VERSION-fingerprint'
OBJECT_VERSIONS = {
    'Allocation': '1.0-d044a488c2271334268caa42d956b6bf',
    'AllocationList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Chassis': '1.0-c35dcce94fa3bbb43d75465b7c43d5f1',
    'ChassisList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'DeployTemplate': '1.0-4e30c8e9098595e359bb907f095bf1a9',
    'DeployTemplateList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Flavor': '1.0-a2e86af3a5e900bd28f4362ccf3ad338',
    'FlavorList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'ImageMeta': '1.2-5a2aa4298ebd2943bab37093e3c24ff1',
    'ImageMetaProps': '1.1-f9c83078c6a43ebbd68a0eaeefcc14a1',
    'Instance': '1.3-ed31fcd01a2e28afda40d3aa3b227f6f',
    'InstanceList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'KeyPair': '1.0-3dfc26a47ef5869dbd5dd3874472080b',
    'KeyPairList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Node': '1.5-243dd641116cc0812d2f6d0bc099ee19',
    'NodeList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'NodeTrait': '1.0-1d5be7db66a34b700ecab498599f9273',
    'NodeTraitList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Port': '1.1-bfa19e0620b29430769c2236b6acca8e',
    'PortList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'Portgroup': '1.0-7170209ad5bbb41fe486a67f7be033d9',
    'PortgroupList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'RequestGroup': '1.0-6aaedb572ca5710b475e3c9939851dd4',
    'RequestSpec': '1.2-87b85c63ba34f5b6f5885244e48dda29',
    'SchedulerRetries': '1.0-ec6da6f5da3616cc4ec2b3711118ead5',
    'Selection': '1.0-44651d1ea89a140426ccbad4c891fbe6',
    'ServerGroup': '1.0-aff7327979d746c67716e1d1ebce0cc3',
    'ServerGroupList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'VolumeConnector': '1.0-d767a1ab1403cfc54caf32d0ecff74a8',
    'VolumeConnectorList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
    'VolumeTarget': '1.0-57185735cd65ded683e1b26227ad98eb',
    'VolumeTargetList': '1.0-15ecf022a68ddbb8c2a6739cfc9f8f5e',
}

# 'Name': {'Child': 'version'} for fields holding other objects.
# (list objects are left out by the checker).
OBJECT_RELATIONSHIPS = {
    'ImageMeta': {'ImageMetaProps': '1.1'},
    'Instance': {'Flavor': '1.0'},
    'Node': {'NodeTraitList': '1.0'},
    'RequestSpec': {'Flavor': '1.0', 'ImageMeta': '1.2',
                    'SchedulerRetries': '1.0'},
}


def _our_classes():
    return {name: classes for name, classes in
            ovo_base.VersionedObjectRegistry.obj_classes().items()
            if classes[0].OBJ_PROJECT_NAMESPACE == 'nova_mini'}


@pytest.fixture
def checker():
    return fixture.ObjectVersionChecker(_our_classes())


def test_every_object_is_pinned():
    assert set(_our_classes()) == set(OBJECT_VERSIONS)


def test_hashes(checker):
    expected, actual = checker.test_hashes(OBJECT_VERSIONS)
    assert expected == actual, (
        'Some objects changed; bump their versions and update '
        'OBJECT_VERSIONS: %s' % actual)


def test_relationships(checker):
    expected, actual = checker.test_relationships(OBJECT_RELATIONSHIPS)
    assert expected == actual


def test_compatibility_routines(checker):
    checker.test_compatibility_routines()


def test_relationships_in_order(checker):
    checker.test_relationships_in_order()


def test_objects_use_our_namespaces():
    for classes in _our_classes().values():
        for cls in classes:
            assert issubclass(cls, base.NovaMiniObject)
            assert cls.OBJ_SERIAL_NAMESPACE == 'nova_mini_object'


def test_newest_versions_are_exported():
    for name, classes in _our_classes().items():
        newest = max(classes, key=lambda cls: tuple(
            int(part) for part in cls.VERSION.split('.')))
        assert getattr(objects, name) is newest


def _flavor(context):
    flavor = objects.Flavor(
        context, id=7, flavorid='f-1', name='tiny', memory_mb=512, vcpus=1,
        root_gb=1, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=None, is_public=True, disabled=False,
        description='a flavor',
        extra_specs={'hw:cpu_policy': 'dedicated', 'k-int': '1',
                     'quota:cpu_shares': '2048'},
        created_at=datetime.datetime(2026, 11, 22, 12, 0, 0,
                                     tzinfo=datetime.timezone.utc),
        updated_at=None)
    flavor.obj_reset_changes()
    return flavor


@pytest.fixture
def context():
    return nm_context.RequestContext(user_id='u', project_id='p',
                                     roles=['member', 'reader'],
                                     request_id='req-1234')


def _over_the_wire(serializer, context, entity):
    primitive = serializer.serialize_entity(context, entity)
    # Through JSON, as oslo.messaging sends it.
    return serializer.deserialize_entity(
        context, jsonutils.loads(jsonutils.dumps(primitive)))


def test_flavor_round_trip(context):
    serializer = rpc.RequestContextSerializer()
    flavor = _flavor(context)
    primitive = serializer.serialize_entity(context, flavor)
    assert primitive['nova_mini_object.name'] == 'Flavor'
    assert primitive['nova_mini_object.version'] == '1.0'
    assert primitive['nova_mini_object.namespace'] == 'nova_mini'

    copy = _over_the_wire(serializer, context, flavor)
    assert isinstance(copy, objects.Flavor)
    for name in objects.Flavor.fields:
        assert copy.obj_attr_is_set(name) == flavor.obj_attr_is_set(name)
        if flavor.obj_attr_is_set(name):
            assert getattr(copy, name) == getattr(flavor, name), name
    assert copy.extra_specs == {'hw:cpu_policy': 'dedicated', 'k-int': '1',
                                'quota:cpu_shares': '2048'}
    assert not copy.obj_what_changed()
    # The access list is loaded on demand, never sent unasked.
    assert not copy.obj_attr_is_set('projects')


def test_changed_fields_travel_as_changed(context):
    serializer = rpc.RequestContextSerializer()
    flavor = _flavor(context)
    flavor.extra_specs = dict(flavor.extra_specs, new='v')
    copy = _over_the_wire(serializer, context, flavor)
    assert copy.obj_what_changed() == {'extra_specs'}
    assert copy.extra_specs['new'] == 'v'


def test_flavor_list_round_trip(context):
    serializer = rpc.RequestContextSerializer()
    first = _flavor(context)
    second = _flavor(context)
    second.flavorid = 'f-2'
    second.extra_specs = {}
    flavors = objects.FlavorList(context, objects=[first, second])
    copy = _over_the_wire(serializer, context, flavors)
    assert isinstance(copy, objects.FlavorList)
    assert [f.flavorid for f in copy] == ['f-1', 'f-2']
    assert copy[0].extra_specs == first.extra_specs
    assert copy[1].extra_specs == {}


def test_plain_values_pass_through(context):
    serializer = rpc.RequestContextSerializer()
    value = {'a': [1, 'two', None]}
    assert _over_the_wire(serializer, context, value) == value


def test_context_round_trip(context):
    serializer = rpc.RequestContextSerializer()
    wire = jsonutils.loads(jsonutils.dumps(
        serializer.serialize_context(context)))
    copy = serializer.deserialize_context(wire)
    assert isinstance(copy, nm_context.RequestContext)
    assert copy.user_id == 'u'
    assert copy.project_id == 'p'
    assert copy.roles == ['member', 'reader']
    assert copy.request_id == 'req-1234'
    assert copy.is_admin is False


def test_admin_context_stays_admin():
    serializer = rpc.RequestContextSerializer()
    admin = nm_context.get_admin_context()
    copy = serializer.deserialize_context(jsonutils.loads(jsonutils.dumps(
        serializer.serialize_context(admin))))
    assert copy.is_admin is True


def test_unknown_version_is_refused(context):
    serializer = rpc.RequestContextSerializer()
    primitive = serializer.serialize_entity(context, _flavor(context))
    primitive['nova_mini_object.version'] = '99.0'
    from oslo_versionedobjects import exception as ovo_exc
    with pytest.raises(ovo_exc.IncompatibleObjectVersion):
        serializer.deserialize_entity(context, primitive)
