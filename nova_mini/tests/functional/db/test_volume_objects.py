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

"""Volume connectors and targets in the database, on every test backend:
the unique constraints as Conflicts, the node states a change and a
deletion need (checked in the writing transaction), pages, and removal
with the node.
"""

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.tests.fixtures import builders


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _connector(admin, node, connector_id, kind='iqn', **values):
    connector = objects.VolumeConnector(
        admin, node_id=node.id, type=kind, connector_id=connector_id,
        **values)
    connector.create()
    return connector


def _target(admin, node, boot_index, **values):
    target = objects.VolumeTarget(
        admin, node_id=node.id, volume_type='iscsi',
        volume_id='vol-%d' % boot_index, boot_index=boot_index, **values)
    target.create()
    return target


def test_created_with_their_node(admin):
    node = builders.create_node(admin, 'n1', owner='p1', lessee='p2',
                                power_state='power off')
    connector = _connector(admin, node, 'iqn.2026-11.org.example:a')
    loaded = objects.VolumeConnector.get_by_uuid(admin, connector.uuid)
    assert (loaded.node_uuid, loaded.node_owner, loaded.node_lessee) == (
        node.uuid, 'p1', 'p2')
    assert (loaded.type, loaded.connector_id, loaded.extra) == (
        'iqn', 'iqn.2026-11.org.example:a', {})
    target = _target(admin, node, 0, properties={'lun': 1})
    loaded = objects.VolumeTarget.get_by_uuid(admin, target.uuid)
    assert (loaded.boot_index, loaded.volume_id, loaded.properties,
            loaded.extra) == (0, 'vol-0', {'lun': 1}, {})
    assert loaded.created_at is not None and loaded.updated_at is None


def test_unique_constraints_are_conflicts(admin):
    node = builders.create_node(admin, 'n1', power_state='power off')
    other = builders.create_node(admin, 'n2', power_state='power off')
    connector = _connector(admin, node, 'c1')
    with pytest.raises(exception_baremetal.VolumeConnectorTypeAndIdAlreadyExists):
        _connector(admin, other, 'c1')
    _connector(admin, other, 'c1', kind='ip')
    with pytest.raises(exception_baremetal.VolumeConnectorAlreadyExists):
        _connector(admin, other, 'c2', uuid=connector.uuid)
    target = _target(admin, node, 0)
    with pytest.raises(exception_baremetal.VolumeTargetBootIndexAlreadyExists):
        _target(admin, node, 0)
    _target(admin, other, 0)
    with pytest.raises(exception_baremetal.VolumeTargetAlreadyExists):
        _target(admin, other, 1, uuid=target.uuid)
    second = _target(admin, node, 1)
    second.boot_index = 0
    with pytest.raises(exception_baremetal.VolumeTargetBootIndexAlreadyExists):
        second.save()
    assert objects.VolumeTarget.get_by_uuid(admin,
                                            second.uuid).boot_index == 1


def test_changes_need_the_node_powered_off(admin):
    node = builders.create_node(admin, 'n1', power_state='power on',
                                provision_state='available')
    connector = _connector(admin, node, 'c1')
    connector.extra = {'a': 'b'}
    with pytest.raises(exception_baremetal.VolumeNodeStateInvalid) as error:
        connector.save()
    assert 'volume connector update' in error.value.format_message()
    with pytest.raises(exception_baremetal.VolumeNodeStateInvalid):
        connector.destroy()
    loaded = objects.VolumeConnector.get_by_uuid(admin, connector.uuid)
    assert loaded.extra == {}
    node.power_state = 'power off'
    node.save()
    loaded.extra = {'a': 'b'}
    loaded.save()
    assert loaded.updated_at is not None
    assert objects.VolumeConnector.get_by_uuid(
        admin, connector.uuid).extra == {'a': 'b'}
    loaded.destroy()
    with pytest.raises(exception_baremetal.VolumeConnectorNotFound):
        objects.VolumeConnector.get_by_uuid(admin, connector.uuid)


@pytest.mark.parametrize('state', ['enroll', 'manageable'])
def test_deletion_while_on_in_some_states(admin, state):
    node = builders.create_node(admin, 'n1', power_state='power on',
                                provision_state=state)
    target = _target(admin, node, 0)
    target.volume_id = 'vol-x'
    with pytest.raises(exception_baremetal.VolumeNodeStateInvalid):
        target.save()
    target.destroy()
    with pytest.raises(exception_baremetal.VolumeTargetNotFound):
        objects.VolumeTarget.get_by_uuid(admin, target.uuid)


def test_pages_and_filters(admin):
    node = builders.create_node(admin, 'n1', owner='p1')
    other = builders.create_node(admin, 'n2', lessee='p1')
    third = builders.create_node(admin, 'n3', owner='p3')
    made = [_connector(admin, node, 'c%d' % index) for index in range(3)]
    made.append(_connector(admin, other, 'c3'))
    made.append(_connector(admin, third, 'c4'))
    page = objects.VolumeConnectorList.get_all(admin, limit=2)
    assert [c.uuid for c in page] == [c.uuid for c in made[:2]]
    page = objects.VolumeConnectorList.get_all(admin, limit=2,
                                               marker=made[1].uuid)
    assert [c.uuid for c in page] == [c.uuid for c in made[2:4]]
    mine = objects.VolumeConnectorList.get_all(admin,
                                               filters={'project': 'p1'})
    assert len(mine) == 4
    of_node = objects.VolumeConnectorList.get_all(
        admin, filters={'node_id': node.id}, sort_key='connector_id',
        sort_dir='desc')
    assert [c.connector_id for c in of_node] == ['c2', 'c1', 'c0']
    with pytest.raises(exception.InvalidSortKey):
        objects.VolumeConnectorList.get_all(admin, sort_key='extra')
    with pytest.raises(exception_baremetal.VolumeTargetNotFound):
        objects.VolumeTargetList.get_all(admin, marker=made[0].uuid)


def test_removed_with_their_node(admin):
    node = builders.create_node(admin, 'n1', power_state='power on')
    other = builders.create_node(admin, 'n2')
    _connector(admin, node, 'c1')
    _target(admin, node, 0)
    kept = _target(admin, other, 0)
    node.destroy()
    assert len(objects.VolumeConnectorList.get_all(admin)) == 0
    assert [t.uuid for t in objects.VolumeTargetList.get_all(admin)] == [
        kept.uuid]
