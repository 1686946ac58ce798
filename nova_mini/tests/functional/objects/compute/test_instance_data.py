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

"""What an instance keeps from its boot request, on real databases (SQLite
and PostgreSQL): stored and read back whole, by one instance and by lists
(without a query per instance), changed with updated_at moving, deleted
with the instance, and the metadata quota held under concurrent writers.
"""

import datetime

import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

pytestmark = pytest.mark.usefixtures('db')

NODE = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a'
USER_DATA = 'I2Nsb3VkLWNvbmZpZwpydW5jbWQ6IFtlY2hvLCBoaV0K'


def _uuid(n):
    return '6d1f3a52-0c4e-4b7a-9e21-%012d' % n


@db_api.context_manager.reader
def _count(context, table, uuid):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(table).where(
            table.c.instance_uuid == uuid)).scalar()


def _active(context, uuid, **values):
    instance = builders.boot_server(context, uuid, **values)
    assert instance.mark_active(NODE)
    return instance


def test_everything_given_is_stored_and_read_back(admin):
    created = builders.boot_server(
        admin, _uuid(1), metadata={'b': '2', 'a': '1'},
        tags=['web', 'db', 'web'], user_data=USER_DATA,
        description='the web server', access_ip_v4='192.0.2.10',
        access_ip_v6='2001:db8::10', config_drive=True, launch_index=2,
        boot_roles=['member', 'reader'])
    for instance in (created,
                     objects.Instance.get_by_uuid(admin, _uuid(1)),
                     objects.InstanceList.get_all(admin)[0]):
        assert instance.metadata == {'a': '1', 'b': '2'}
        # Deduplicated, in order.
        assert instance.tags == ['db', 'web']
        assert instance.user_data == USER_DATA
        assert instance.description == 'the web server'
        assert (instance.access_ip_v4, instance.access_ip_v6) == (
            '192.0.2.10', '2001:db8::10')
        assert instance.config_drive is True
        assert instance.launch_index == 2
        assert instance.boot_roles == ['member', 'reader']
        assert instance.key_name is None
        assert instance.launched_at is None
        assert instance.obj_what_changed() == set()
    assert _count(admin, models.InstanceMetadata.__table__, _uuid(1)) == 2
    assert _count(admin, models.InstanceTag.__table__, _uuid(1)) == 2


def test_defaults_of_a_bare_instance(admin):
    instance = objects.Instance.get_by_uuid(
        admin, builders.boot_server(admin, _uuid(1)).uuid)
    assert (instance.metadata, instance.tags, instance.boot_roles) == (
        {}, [], [])
    assert (instance.user_data, instance.description, instance.access_ip_v4,
            instance.access_ip_v6, instance.key_name) == (None,) * 5
    assert instance.config_drive is False
    assert instance.launch_index == 0


def test_launched_at_is_set_by_the_build_only(admin):
    instance = _active(admin, _uuid(1))
    launched = objects.Instance.get_by_uuid(admin, _uuid(1)).launched_at
    assert launched is not None
    instance.update_metadata({'k': 'v'})
    again = objects.Instance.get_by_uuid(admin, _uuid(1))
    assert again.launched_at == launched
    assert again.updated_at >= launched


def test_a_list_reads_children_in_one_query_per_table(admin, database):
    for n in range(12):
        builders.boot_server(admin, _uuid(n), metadata={'n': str(n)},
                             tags=['t%d' % n], launch_index=n)
    statements = []

    def count(conn, cursor, statement, *args):
        statements.append(statement)

    sa.event.listen(database.engine, 'before_cursor_execute', count)
    try:
        instances = objects.InstanceList.get_all(admin, project_id='demo')
    finally:
        sa.event.remove(database.engine, 'before_cursor_execute', count)
    selects = [s for s in statements if s.lstrip().upper().startswith(
        'SELECT')]
    # The instances, their metadata, their tags.
    assert len(selects) == 3, selects
    by_index = {i.launch_index: i for i in instances}
    assert len(by_index) == 12
    for n, instance in by_index.items():
        assert instance.metadata == {'n': str(n)}
        assert instance.tags == ['t%d' % n]


def test_metadata_and_tags_go_with_the_instance(admin):
    instance = builders.boot_server(admin, _uuid(1), metadata={'a': '1'}, tags=['x'])
    builders.boot_server(admin, _uuid(2), metadata={'a': '1'}, tags=['x'])
    assert instance.destroy()
    with pytest.raises(exception.InstanceNotFound):
        objects.Instance.get_by_uuid(admin, _uuid(1))
    assert _count(admin, models.InstanceMetadata.__table__, _uuid(1)) == 0
    assert _count(admin, models.InstanceTag.__table__, _uuid(1)) == 0
    # The other instance keeps its own.
    other = objects.Instance.get_by_uuid(admin, _uuid(2))
    assert (other.metadata, other.tags) == ({'a': '1'}, ['x'])


def test_metadata_writes(admin):
    instance = _active(admin, _uuid(1), metadata={'a': '1', 'b': '2'})
    stamp = objects.Instance.get_by_uuid(admin, _uuid(1)).updated_at

    assert instance.update_metadata({'b': 'two', 'c': '3'}) == {
        'a': '1', 'b': 'two', 'c': '3'}
    stored = objects.Instance.get_by_uuid(admin, _uuid(1))
    assert stored.metadata == {'a': '1', 'b': 'two', 'c': '3'}
    assert stored.updated_at > stamp
    assert stored.updated_at == instance.updated_at

    assert instance.replace_metadata({'z': '26'}) == {'z': '26'}
    assert objects.Instance.get_by_uuid(admin, _uuid(1)).metadata == {
        'z': '26'}

    assert instance.delete_metadata_item('z') == {}
    assert objects.Instance.get_by_uuid(admin, _uuid(1)).metadata == {}

    before = objects.Instance.get_by_uuid(admin, _uuid(1)).updated_at
    with pytest.raises(exception.InstanceMetadataNotFound):
        instance.delete_metadata_item('z')
    # Nothing changed: updated_at neither.
    assert objects.Instance.get_by_uuid(
        admin, _uuid(1)).updated_at == before


def test_metadata_of_a_building_instance_does_not_change(admin):
    instance = builders.boot_server(admin, _uuid(1), metadata={'a': '1'})
    with pytest.raises(exception.InstanceInvalidState) as info:
        instance.update_metadata({'b': '2'})
    assert info.value.format_message() == (
        "Cannot 'update metadata' instance %s while it is in vm_state "
        "building" % _uuid(1))
    assert objects.Instance.get_by_uuid(admin, _uuid(1)).metadata == {
        'a': '1'}
    # Unless the caller says any state will do.
    assert instance.update_metadata({'b': '2'}, states=None) == {
        'a': '1', 'b': '2'}


def test_metadata_of_a_deleted_instance(admin):
    instance = _active(admin, _uuid(1))
    objects.Instance.get_by_uuid(admin, _uuid(1)).destroy()
    for write in (lambda: instance.update_metadata({'a': '1'}),
                  lambda: instance.replace_metadata({'a': '1'}),
                  lambda: instance.delete_metadata_item('a'),
                  lambda: instance.set_description('x')):
        with pytest.raises(exception.InstanceNotFound):
            write()


def test_metadata_quota(admin):
    full = {'k%03d' % n: 'v' for n in range(instance_obj.MAX_METADATA_ITEMS)}
    with pytest.raises(exception.MetadataLimitExceeded) as info:
        builders.boot_server(admin, _uuid(1), metadata=dict(full, extra='v'))
    assert info.value.format_message() == (
        'Maximum number of metadata items exceeds 128')
    instance = _active(admin, _uuid(2), metadata=full)
    # Changing existing items is fine at the limit; a new one is not.
    instance.update_metadata({'k000': 'changed'})
    with pytest.raises(exception.MetadataLimitExceeded):
        instance.update_metadata({'new': 'v'})
    with pytest.raises(exception.MetadataLimitExceeded):
        instance.replace_metadata(dict(full, new='v'))
    stored = objects.Instance.get_by_uuid(admin, _uuid(2)).metadata
    assert len(stored) == instance_obj.MAX_METADATA_ITEMS
    assert stored['k000'] == 'changed' and 'new' not in stored


def test_metadata_quota_holds_under_concurrent_writers(admin):
    """16 workers each add a new item to a server 6 short of the quota:
    6 succeed, 10 get MetadataLimitExceeded, none fails otherwise, and
    the server ends with exactly the quota.
    """
    room = 6
    _active(admin, _uuid(1), metadata={
        'k%03d' % n: 'v'
        for n in range(instance_obj.MAX_METADATA_ITEMS - room)})

    def add(index):
        instance = objects.Instance.get_by_uuid(
            nm_context.get_admin_context(), _uuid(1))
        instance.update_metadata({'new-%02d' % index: str(index)})

    errors = threads.race(add, 16)
    assert len(errors) == 16 - room, errors
    assert all(isinstance(exc, exception.MetadataLimitExceeded)
               for _index, exc in errors), errors
    stored = objects.Instance.get_by_uuid(admin, _uuid(1)).metadata
    assert len(stored) == instance_obj.MAX_METADATA_ITEMS
    failed = {index for index, _exc in errors}
    assert {key for key in stored if key.startswith('new-')} == {
        'new-%02d' % i for i in range(16) if i not in failed}


def test_concurrent_merges_lose_nothing(admin):
    _active(admin, _uuid(1))

    def merge(index):
        context = nm_context.get_admin_context()
        for round_ in range(4):
            objects.Instance.get_by_uuid(context, _uuid(1)).update_metadata(
                {'t%d-r%d' % (index, round_): 'v', 'shared': str(index)})

    assert threads.race(merge, 8) == []
    stored = objects.Instance.get_by_uuid(admin, _uuid(1)).metadata
    assert len(stored) == 8 * 4 + 1
    assert stored['shared'] in {str(i) for i in range(8)}


def test_update_details(admin):
    instance = builders.boot_server(admin, _uuid(1), name='old name')
    stamp = instance.updated_at
    instance.update_details(name='New Name', access_ip_v4='192.0.2.1')
    instance.set_description('described')
    stored = objects.Instance.get_by_uuid(admin, _uuid(1))
    assert (stored.name, stored.description, stored.access_ip_v4) == (
        'New Name', 'described', '192.0.2.1')
    assert stored.hostname == 'new-name'
    assert stored.updated_at > stamp
    instance.set_description(None)
    assert objects.Instance.get_by_uuid(admin, _uuid(1)).description is None
    with pytest.raises(ValueError):
        instance.update_details(vm_state='active')


def test_older_targets_get_version_1_0(admin):
    instance = builders.boot_server(admin, _uuid(1), metadata={'a': '1'},
                                    tags=['t'], user_data=USER_DATA)
    primitive = instance.obj_to_primitive(target_version='1.0')
    data = primitive['nova_mini_object.data']
    assert primitive['nova_mini_object.version'] == '1.0'
    for name in instance_obj.Instance._FIELDS_1_1:
        assert name not in data
    assert data['uuid'] == _uuid(1)
    current = instance.obj_to_primitive()['nova_mini_object.data']
    assert current['metadata'] == {'a': '1'}
    assert isinstance(instance.created_at, datetime.datetime)
