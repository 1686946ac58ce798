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

"""The bare-metal objects of one row each (objects/baremetal/db_row.py), on every
test backend: created with their empty documents, read back (with their
node's values where they have them), saved (updated_at set, the row
changed), their unique constraints as their own Conflicts, and deleted
(then not found).
"""

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.tests.fixtures import builders

MAC = '52:54:00:12:34:%02x'


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def node(admin):
    return builders.create_node(admin, 'n1', owner='p1', lessee='p2',
                                power_state='power off')


def _port(admin, node, index=1, **values):
    port = objects.Port(admin, node_id=node.id, address=MAC % index,
                        **values)
    port.create()
    return port


def _group(admin, node, name='g1', **values):
    group = objects.Portgroup(admin, node_id=node.id, name=name, **values)
    group.create()
    return group


def _chassis(admin, **values):
    chassis = objects.Chassis(admin, **values)
    chassis.create()
    return chassis


def _allocation(admin, name='a1', **values):
    allocation = objects.Allocation(admin, name=name, **values)
    allocation.create()
    return allocation


def _template(admin, name='CUSTOM_A', **values):
    template = objects.DeployTemplate(
        admin, name=name, steps=[{'interface': 'bios', 'step': 's',
                                  'args': {}, 'priority': '10'}], **values)
    template.create()
    return template


# name -> (make(admin, node) -> object, load(admin, object), a change,
#          the documents created empty, the exception of a missing one)
RESOURCES = {
    'port': (_port, lambda admin, port: objects.Port.get_by_uuid(
        admin, port.uuid), ('pxe_enabled', False),
        {'extra': {}, 'local_link_connection': {}, 'internal_info': {}},
        exception_baremetal.PortNotFound),
    'portgroup': (_group, lambda admin, group: objects.Portgroup.get(
        admin, group.uuid), ('mode', '802.3ad'),
        {'extra': {}, 'internal_info': {}, 'properties': {}},
        exception_baremetal.PortgroupNotFound),
    'chassis': (lambda admin, node: _chassis(admin),
                lambda admin, chassis: objects.Chassis.get_by_uuid(
                    admin, chassis.uuid), ('description', 'd'),
                {'extra': {}}, exception_baremetal.ChassisNotFound),
    'allocation': (lambda admin, node: _allocation(admin),
                   lambda admin, allocation: objects.Allocation.get_by_uuid(
                       admin, allocation.uuid), ('extra', {'k': 'v'}),
                   {'extra': {}, 'traits': [], 'candidate_nodes': []},
                   exception_baremetal.AllocationNotFound),
    'deploy_template': (
        lambda admin, node: _template(admin),
        lambda admin, template: objects.DeployTemplate.get_by_uuid(
            admin, template.uuid), ('name', 'CUSTOM_B'), {'extra': {}},
        exception_baremetal.DeployTemplateNotFound),
    'node': (lambda admin, node: node,
             lambda admin, node: objects.Node.get_by_uuid(admin, node.uuid),
             ('description', 'd'),
             {'extra': {}, 'instance_info': {}, 'driver_internal_info': {}},
             exception_baremetal.NodeNotFound),
}


@pytest.mark.parametrize('name', sorted(RESOURCES))
def test_created_read_saved_and_deleted(admin, node, name):
    make, load, (field, value), empty, not_found = RESOURCES[name]
    item = make(admin, node)
    loaded = load(admin, item)
    assert loaded.id == item.id and loaded.created_at is not None
    assert {key: getattr(loaded, key) for key in empty} == empty
    assert loaded.updated_at is None and not loaded.obj_what_changed()
    setattr(loaded, field, value)
    loaded.save()
    assert loaded.updated_at is not None and not loaded.obj_what_changed()
    again = load(admin, item)
    assert getattr(again, field) == value
    assert again.updated_at == loaded.updated_at
    again.save()
    assert load(admin, item).updated_at == loaded.updated_at
    again.destroy()
    with pytest.raises(not_found):
        load(admin, item)
    with pytest.raises(not_found):
        again.destroy()
    with pytest.raises(not_found):
        setattr(again, field, value)
        again.save()


def test_joined_values_follow_a_move(admin, node):
    other = builders.create_node(admin, 'n2', owner='p3')
    group = _group(admin, other)
    port = _port(admin, node)
    assert (port.node_uuid, port.node_owner, port.node_lessee,
            port.portgroup_uuid) == (node.uuid, 'p1', 'p2', None)
    port.node_id = other.id
    port.portgroup_id = group.id
    port.save()
    assert (port.node_uuid, port.node_owner, port.node_lessee,
            port.portgroup_uuid) == (other.uuid, 'p3', None, group.uuid)
    group.node_id = node.id
    group.save()
    assert (group.node_uuid, group.node_owner) == (node.uuid, 'p1')


def test_unique_constraints_are_their_conflicts(admin, node):
    port = _port(admin, node)
    with pytest.raises(exception_baremetal.MACAlreadyExists):
        _port(admin, node)
    with pytest.raises(exception_baremetal.PortExists):
        _port(admin, node, 2, uuid=port.uuid)
    second = _port(admin, node, 3)
    second.address = port.address
    with pytest.raises(exception_baremetal.MACAlreadyExists):
        second.save()
    _group(admin, node, address=MAC % 9)
    with pytest.raises(exception_baremetal.PortgroupDuplicateName):
        _group(admin, node)
    with pytest.raises(exception_baremetal.PortgroupMACAlreadyExists):
        _group(admin, node, 'g2', address=MAC % 9)
    chassis = _chassis(admin)
    with pytest.raises(exception_baremetal.ChassisExists):
        _chassis(admin, uuid=chassis.uuid)
    allocation = _allocation(admin)
    with pytest.raises(exception_baremetal.AllocationDuplicateName):
        _allocation(admin)
    with pytest.raises(exception_baremetal.AllocationAlreadyExists):
        _allocation(admin, 'a2', uuid=allocation.uuid)
    renamed = _allocation(admin, 'a3')
    renamed.name = 'a1'
    with pytest.raises(exception_baremetal.AllocationDuplicateName):
        renamed.save()
    _template(admin)
    renamed = _template(admin, 'CUSTOM_C')
    renamed.name = 'CUSTOM_A'
    with pytest.raises(exception_baremetal.DeployTemplateDuplicateName):
        renamed.save()
    with pytest.raises(exception_baremetal.NodeNameExists):
        builders.create_node(admin, 'n1')


def test_template_steps_stored_normalised(admin):
    template = _template(admin)
    assert template.steps[0]['priority'] == 10
    template.steps = [{'interface': 'raid', 'step': 'x', 'args': {},
                       'priority': '5'}]
    template.save()
    assert template.steps[0]['priority'] == 5
    assert objects.DeployTemplate.get_by_name(
        admin, 'CUSTOM_A').steps[0]['priority'] == 5


LISTS = {'port': 'PortList', 'portgroup': 'PortgroupList',
         'chassis': 'ChassisList', 'allocation': 'AllocationList',
         'deploy_template': 'DeployTemplateList'}
UNKNOWN = '00000000-0000-4000-8000-000000000000'


@pytest.mark.parametrize('name', sorted(LISTS))
def test_pages(admin, node, name):
    make, load, _change, _empty, not_found = RESOURCES[name]
    item = make(admin, node)
    page = getattr(objects, LISTS[name]).get_all(admin, sort_key='uuid',
                                                 limit=5)
    assert [each.uuid for each in page] == [item.uuid]
    assert not page.obj_what_changed()
    assert page[0].obj_to_primitive() == load(admin, item).obj_to_primitive()
    with pytest.raises(exception.InvalidSortKey):
        getattr(objects, LISTS[name]).get_all(admin, sort_key='extra')
    with pytest.raises(not_found):
        getattr(objects, LISTS[name]).get_all(admin, marker=UNKNOWN)
