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

"""Allocations in the database (objects.baremetal.allocation, node_allocation):
which node an allocation gets, backfilling, and what deleting an
allocation, tearing its node down or deleting the node does.
"""

import pytest

from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import node_allocation
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')


def _node(admin, name, traits=(), **values):
    values.setdefault('resource_class', 'gold')
    values.setdefault('provision_state', 'available')
    values.setdefault('power_state', 'power off')
    return builders.create_node(admin, name, traits, **values)


def _allocate(admin, **values):
    """Create and allocate as the API does: in one transaction."""
    values.setdefault('resource_class', 'gold')
    created, given = node_allocation.create(
        objects.Allocation(admin, **values))
    assert created.state == 'allocating'
    assert created.node_id is None
    assert created.uuid == given.uuid
    return given


def test_gets_a_node_with_every_trait(admin):
    _node(admin, 'plain', ['CUSTOM_A'])
    both = _node(admin, 'both', ['CUSTOM_A', 'CUSTOM_B'])
    allocation = _allocate(admin, traits=['CUSTOM_A', 'CUSTOM_B'])
    assert (allocation.state, allocation.node_id) == ('active', both.id)
    node = objects.Node.get_by_uuid(admin, both.uuid)
    assert node.instance_uuid == allocation.uuid
    assert node.instance_info['traits'] == ['CUSTOM_A', 'CUSTOM_B']


@pytest.mark.parametrize('values', [
    {'maintenance': True}, {'provision_state': 'manageable'},
    {'power_state': None}, {'resource_class': 'silver'},
    {'instance_uuid': '0b1c2d3e-4f50-4617-8899-aabbccddeeff'}])
def test_skips_a_node_it_may_not_have(admin, values):
    _node(admin, 'n', **values)
    allocation = _allocate(admin)
    assert allocation.state == 'error'
    assert allocation.node_id is None
    assert allocation.last_error == (
        'Failed to process allocation %s: no available nodes match the '
        'resource class gold.' % allocation.uuid)


def test_candidates_and_owner_narrow_the_nodes(admin):
    first = _node(admin, 'first', owner='p1')
    second = _node(admin, 'second', lessee='p2')
    allocation = _allocate(admin, candidate_nodes=[second.uuid])
    assert allocation.node_id == second.id
    # p2 leased the second node, now taken: the first is p1's.
    refused = _allocate(admin, owner='p2')
    assert refused.state == 'error'
    assert _allocate(admin, owner='p1').node_id == first.id


def test_traits_missing(admin):
    _node(admin, 'n', ['CUSTOM_A'])
    allocation = _allocate(admin, traits=['CUSTOM_B'])
    assert allocation.last_error.endswith(
        'no suitable nodes have the requested traits CUSTOM_B.')


def test_delete_frees_the_node_unless_active(admin):
    node = _node(admin, 'n')
    allocation = _allocate(admin)
    objects.Node.get_by_uuid(admin, node.uuid).set_provision_state('active')
    with pytest.raises(exception_baremetal.InvalidState):
        allocation.destroy()
    assert objects.Node.get_by_uuid(admin, node.uuid).instance_uuid == (
        allocation.uuid)
    # In maintenance it may go.
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    stored.maintenance = True
    stored.save()
    allocation.destroy()
    assert objects.Node.get_by_uuid(admin, node.uuid).instance_uuid is None
    with pytest.raises(exception_baremetal.AllocationNotFound):
        objects.Allocation.get_by_uuid(admin, allocation.uuid)


def test_tear_down_and_node_delete_remove_the_allocation(admin):
    node = _node(admin, 'n')
    allocation = _allocate(admin)
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    stored.set_provision_state('active')
    stored.set_provision_state('deleted')
    with pytest.raises(exception_baremetal.AllocationNotFound):
        objects.Allocation.get_by_uuid(admin, allocation.uuid)
    again = _allocate(admin)
    assert again.node_id == node.id
    objects.Node.get_by_uuid(admin, node.uuid).destroy()
    with pytest.raises(exception_baremetal.AllocationNotFound):
        objects.Allocation.get_by_uuid(admin, again.uuid)


def test_backfill_needs_an_active_matching_node(admin):
    node = _node(admin, 'n', ['CUSTOM_A'])
    allocation = objects.Allocation(admin, resource_class='gold',
                                    traits=['CUSTOM_A', 'CUSTOM_B'])
    allocation.create()
    failed = node_allocation.backfill(allocation, node)
    assert failed.state == 'error'
    assert 'Node must be in the "active" state' in failed.last_error
    assert 'does not match the requested traits' in failed.last_error
    objects.Node.get_by_uuid(admin, node.uuid).set_provision_state('active')
    allocation = objects.Allocation(admin, resource_class='gold')
    allocation.create()
    done = node_allocation.backfill(allocation, node)
    assert (done.state, done.node_id) == ('active', node.id)
    assert objects.Node.get_by_uuid(admin, node.uuid).instance_uuid == (
        done.uuid)


def test_names_and_uuids_are_unique(admin):
    first = objects.Allocation(admin, name='a', resource_class='gold')
    first.create()
    with pytest.raises(exception_baremetal.AllocationDuplicateName):
        objects.Allocation(admin, name='a', resource_class='gold').create()
    with pytest.raises(exception_baremetal.AllocationAlreadyExists):
        objects.Allocation(admin, uuid=first.uuid,
                           resource_class='gold').create()


def test_uuid_of_another_nodes_instance_fails_cleanly(admin):
    taken = '0b1c2d3e-4f50-4617-8899-aabbccddeeff'
    _node(admin, 'deployed', provision_state='active', instance_uuid=taken)
    _node(admin, 'free')
    allocation = _allocate(admin, uuid=taken)
    assert allocation.state == 'error'
    assert 'another node is associated with instance' in (
        allocation.last_error)
    # Stored so, in the transaction that the refused claim left usable
    # (a savepoint: on PostgreSQL a failed statement aborts it).
    stored = objects.Allocation.get_by_uuid(admin, taken)
    assert (stored.state, stored.node_id) == ('error', None)
    assert 'another node is associated' in stored.last_error


def test_a_create_that_fails_leaves_no_allocation(admin):
    """A backfill of a node deleted meanwhile: the error, and nothing
    stored (the create is in the same transaction).
    """
    node = _node(admin, 'n', provision_state='active')
    objects.Node.get_by_uuid(admin, node.uuid).destroy()
    with pytest.raises(exception_baremetal.NodeNotFound):
        node_allocation.create(
            objects.Allocation(admin, name='late', resource_class='gold'),
            node)
    with pytest.raises(exception_baremetal.AllocationNotFound):
        objects.Allocation.get_by_name(admin, 'late')
