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

"""Server groups in the database, on SQLite and PostgreSQL: servers join
a group in the transaction that creates them; the members quota holds
exactly under concurrent creates, and the groups quota is never passed;
refused creates write nothing; memberships go with the server or the
group.
"""

import uuid

import pytest

from nova_mini import conf as nm_conf
from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import server_group as server_group_obj
from nova_mini.objects import request_spec
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

# An image id (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'

THREADS = 16


@pytest.fixture
def admin(db, conf):
    return nm_context.get_admin_context()


def _group(context, name='g', policy='anti-affinity', project_id='demo'):
    group = objects.ServerGroup(context, name=name, policy=policy, rules={},
                                project_id=project_id, user_id='alice')
    group.create()
    return group


def _instances(context, count):
    flavor = builders.make_flavor(context)
    uuids = [str(uuid.uuid4()) for _ in range(count)]
    instances = [objects.Instance(
        context, uuid=instance_uuid, name='srv-%d' % index,
        project_id='demo', user_id='alice', flavor=flavor,
        image_ref=IMAGE, vm_state=instance_obj.BUILDING, node_uuid=None,
        fault=None, launch_index=index) for index, instance_uuid in
        enumerate(uuids)]
    spec = request_spec.RequestSpec.from_components(
        context, flavor, image={'id': IMAGE}, instance_uuids=uuids,
        project_id='demo', user_id='alice')
    return instances, spec


def _join(context, group, count=1):
    instances, spec = _instances(context, count)
    server_group_obj.create_in_group(context, instances, spec, group)
    return [instance.uuid for instance in instances]


def test_servers_join_and_leave(admin, db):
    group = _group(admin)
    joined = _join(admin, group, 3)
    assert sorted(objects.ServerGroup.get_by_uuid(
        admin, group.uuid).members) == sorted(joined)
    assert server_group_obj.group_uuids_of_instance(admin, joined[0]) == [
        group.uuid]
    objects.Instance.get_by_uuid(admin, joined[0]).destroy()
    assert sorted(objects.ServerGroup.get_by_uuid(
        admin, group.uuid).members) == sorted(joined[1:])
    group.destroy()
    # The servers stay, in no group.
    assert server_group_obj.group_uuids_of_instance(admin, joined[1]) == []
    assert objects.Instance.get_by_uuid(admin, joined[1]).uuid == joined[1]
    assert db.row_counts()['server_group_members'] == 0
    with pytest.raises(exception.ServerGroupNotFound):
        group.destroy()


def test_over_the_members_quota_nothing_is_written(admin, db):
    group = _group(admin)
    _join(admin, group, 9)
    before = db.row_counts()
    with pytest.raises(exception.GroupMemberLimitExceeded) as caught:
        _join(admin, group, 2)
    assert caught.value.format_message() == (
        'Quota exceeded, too many servers in group')
    assert db.row_counts() == before
    _join(admin, group, 1)
    assert len(objects.ServerGroup.get_by_uuid(admin, group.uuid).members) == (
        10)


def test_a_deleted_group_is_not_joined(admin, db):
    group = _group(admin)
    group.destroy()
    before = db.row_counts()
    with pytest.raises(exception.ServerGroupNotFound):
        _join(admin, group, 1)
    assert db.row_counts() == before


def test_unlimited_members(admin, conf):
    # The project's instances quota (10) is not what is tested.
    conf.config(server_group_members=-1, instances=-1, cores=-1, ram=-1,
                group='quota')
    group = _group(admin)
    _join(admin, group, 12)
    assert len(objects.ServerGroup.get_by_uuid(admin, group.uuid).members) == (
        12)


def test_concurrent_joins_keep_the_members_quota_exactly(admin, db):
    group = _group(admin)
    joined = []

    def join(index):
        context = nm_context.get_admin_context()
        try:
            joined.extend(_join(context, group, 1))
        except exception.GroupMemberLimitExceeded:
            pass

    assert threads.race(join, THREADS) == []
    limit = nm_conf.CONF.quota.server_group_members
    assert len(joined) == limit
    members = objects.ServerGroup.get_by_uuid(admin, group.uuid).members
    assert sorted(members) == sorted(joined)
    counts = db.row_counts()
    assert counts['instances'] == limit
    assert counts['request_specs'] == limit


def test_concurrent_group_creates_never_pass_the_quota(admin, db):
    created = []

    def create(index):
        context = nm_context.get_admin_context()
        try:
            created.append(_group(context, name='g%d' % index).uuid)
        except exception.ServerGroupLimitExceeded:
            pass

    assert threads.race(create, THREADS) == []
    limit = nm_conf.CONF.quota.server_groups
    stored = objects.ServerGroupList.get_page(admin, 'demo')
    assert sorted(group.uuid for group in stored) == sorted(created)
    assert 0 < len(created) <= limit
    # Once the race is over, the project fills up to its quota exactly.
    for index in range(limit - len(created)):
        _group(admin, name='after-%d' % index)
    with pytest.raises(exception.ServerGroupLimitExceeded):
        _group(admin, name='one-more')
    assert len(objects.ServerGroupList.get_page(admin, 'demo')) == limit
