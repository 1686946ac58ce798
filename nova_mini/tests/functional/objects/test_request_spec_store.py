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

"""The RequestSpec kept with each instance, on real databases (SQLite and
PostgreSQL): stored in the transaction that creates the instances, read
back whole, deleted with its instance.
"""

from oslo_db import exception as db_exc
from oslo_serialization import jsonutils
import pytest
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects import request_spec
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

UUIDS = ['6d1f3a52-0c4e-4b7a-9e21-%012d' % n for n in range(3)]


def _flavor(context):
    return builders.make_flavor(
        context, vcpus=2,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                     'resources:VCPU': '0', 'trait:CUSTOM_GOLD': 'required',
                     'trait:CUSTOM_OLD': 'forbidden',
                     'capabilities:boot_mode': 'uefi'})


def _spec(context, uuids):
    return request_spec.RequestSpec.from_components(
        context, _flavor(context),
        image={'id': 'c0ffee00-0000-4000-8000-000000000001',
               'properties': {'hw_architecture': 'x86_64'}},
        instance_uuids=uuids, project_id='demo', user_id='alice',
        availability_zone='az1',
        scheduler_hints={'group': 'g1', 'same_host': ['a', 'b']},
        ignore_hosts=['n0'], force_nodes=['n9'],
        retry={'num_attempts': 2, 'nodes': ['n3']})


def _instances(context, uuids):
    return [objects.Instance(
        context, uuid=uuid, name='srv-%d' % n, project_id='demo',
        user_id='alice', flavor=_flavor(context), image_ref='c0ffee00-0000-4000-8000-000000000001',
        vm_state=instance_obj.BUILDING, node_uuid=None, fault=None)
        for n, uuid in enumerate(uuids)]


@db_api.context_manager.reader
def _rows(context, table):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(table)).scalar()


def _counts(context):
    return (_rows(context, models.Instance.__table__),
            _rows(context, models.RequestSpec.__table__))


def test_each_instance_keeps_the_persistable_spec(admin):
    spec = _spec(admin, UUIDS[:2])
    created = objects.InstanceList.create_all(
        admin, _instances(admin, UUIDS[:2]), spec)
    assert [i.uuid for i in created] == UUIDS[:2]
    assert all(i.id for i in created)
    assert _counts(admin) == (2, 2)

    for uuid in UUIDS[:2]:
        stored = request_spec.RequestSpec.get_by_instance_uuid(admin, uuid)
        # What was asked, and what was derived from it, come back whole...
        for name in ('num_instances', 'project_id', 'user_id',
                     'availability_zone', 'scheduler_hints', 'resources',
                     'required_traits', 'forbidden_traits', 'capabilities'):
            assert getattr(stored, name) == getattr(spec, name), name
        assert stored.flavor.extra_specs == spec.flavor.extra_specs
        assert stored.flavor.flavorid == 'bm'
        assert stored.image.id == 'c0ffee00-0000-4000-8000-000000000001'
        assert stored.image.properties.hw_architecture == 'x86_64'
        # ... this request's own data does not: the spec is the
        # instance's own, with nothing to ignore or retry.
        assert stored.instance_uuids == [uuid]
        assert stored.instance_count == 1
        assert (stored.ignore_hosts, stored.force_nodes,
                stored.retry) == ([], [], None)
        assert stored.obj_what_changed() == set()


def test_missing_spec_is_not_found(admin):
    with pytest.raises(exception.RequestSpecNotFound) as info:
        request_spec.RequestSpec.get_by_instance_uuid(admin, UUIDS[0])
    assert UUIDS[0] in info.value.format_message()


def test_a_failed_spec_store_writes_no_instance(admin, monkeypatch):
    def broken(context, instance_uuids, text):
        raise exception.InvalidRequestSpec(reason='disk full')

    monkeypatch.setattr(request_spec, '_store', broken)
    with pytest.raises(exception.InvalidRequestSpec):
        objects.InstanceList.create_all(
            admin, _instances(admin, UUIDS[:2]), _spec(admin, UUIDS[:2]))
    assert _counts(admin) == (0, 0)


def test_a_failed_instance_writes_nothing(admin):
    """The third instance repeats the first one's uuid: the unique
    constraint refuses it, and the first two go too.
    """
    uuids = [UUIDS[0], UUIDS[1], UUIDS[0]]
    with pytest.raises(db_exc.DBDuplicateEntry):
        objects.InstanceList.create_all(
            admin, _instances(admin, uuids), _spec(admin, UUIDS[:2]))
    assert _counts(admin) == (0, 0)


def test_deleting_the_instance_deletes_its_spec(admin):
    objects.InstanceList.create_all(admin, _instances(admin, UUIDS[:2]),
                                    _spec(admin, UUIDS[:2]))
    assert objects.Instance.get_by_uuid(admin, UUIDS[0]).destroy()
    with pytest.raises(exception.RequestSpecNotFound):
        request_spec.RequestSpec.get_by_instance_uuid(admin, UUIDS[0])
    assert request_spec.RequestSpec.get_by_instance_uuid(
        admin, UUIDS[1]).instance_uuids == [UUIDS[1]]
    assert _counts(admin) == (1, 1)


def test_store_needs_an_instance(admin):
    with pytest.raises(exception.InvalidRequestSpec):
        _spec(admin, []).store(admin)
    assert _counts(admin) == (0, 0)


def _spec_with_groups(context, uuids):
    flavor = builders.make_flavor(context, extra_specs={
        'resources:CUSTOM_BAREMETAL': '1', 'resources:VCPU': '0',
        'trait1:CUSTOM_GOLD': 'required', 'trait_nic:CUSTOM_SRIOV':
        'required', 'trait_nic:CUSTOM_OLD': 'forbidden',
        'group_policy': 'none'})
    return request_spec.RequestSpec.from_components(
        context, flavor, image={'id': 'c0ffee00-0000-4000-8000-000000000001', 'properties': {
            'hw_architecture': 'amd64', 'hw_vm_mode': 'hvm'}},
        instance_uuids=uuids)


def test_groups_are_stored_and_read_back(admin):
    spec = _spec_with_groups(admin, UUIDS[:1])
    objects.InstanceList.create_all(admin, _instances(admin, UUIDS[:1]),
                                    spec)
    stored = request_spec.RequestSpec.get_by_instance_uuid(admin, UUIDS[0])
    assert stored.group_policy == 'none'
    assert [(g.suffix, g.required_traits, g.forbidden_traits)
            for g in stored.requested_groups] == [
        (None, [], []), ('1', ['CUSTOM_GOLD'], []),
        ('_nic', ['CUSTOM_SRIOV'], ['CUSTOM_OLD'])]
    assert stored.required_traits == ['CUSTOM_GOLD', 'CUSTOM_SRIOV']
    assert stored.image.properties.hw_vm_mode == 'hvm'


@db_api.context_manager.writer
def _rewrite(context, instance_uuid, text):
    specs = models.RequestSpec.__table__
    context.session.execute(specs.update().where(
        specs.c.instance_uuid == instance_uuid).values(spec=text))


def test_a_row_written_by_version_1_0_still_loads(admin):
    """Rows stored before 1.1 have no groups: the spec reads them as one
    unnumbered group of the merged requirements 1.0 placed on.
    """
    spec = _spec_with_groups(admin, UUIDS[:1])
    objects.InstanceList.create_all(admin, _instances(admin, UUIDS[:1]),
                                    spec)
    primitive = spec.persistable().obj_to_primitive(target_version='1.0')
    text = jsonutils.dumps(primitive)
    assert 'requested_groups' not in text and 'hw_vm_mode' not in text
    _rewrite(admin, UUIDS[0], text)

    stored = request_spec.RequestSpec.get_by_instance_uuid(admin, UUIDS[0])
    assert stored.VERSION == request_spec.RequestSpec.VERSION
    assert stored.group_policy is None
    [group] = stored.requested_groups
    assert group.suffix is None
    assert group.resources == stored.resources == spec.resources
    assert group.required_traits == ['CUSTOM_GOLD', 'CUSTOM_SRIOV']
    assert group.forbidden_traits == ['CUSTOM_OLD']
    assert stored.image.properties.architecture == 'x86_64'
    assert stored.image.properties.get('hw_vm_mode') is None
    assert stored.instance_uuids == [UUIDS[0]]
    assert stored.obj_what_changed() == set()
