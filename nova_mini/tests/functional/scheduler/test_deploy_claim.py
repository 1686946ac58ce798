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

"""A scheduler deploys a node only while the node is still claimed for the
instance it builds (SQLite, PostgreSQL, MariaDB): a node freed and claimed
for another server since the selection is left to that server, and the
late build ends ERROR with a fault, so no node ever holds two servers.
"""

import uuid

import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.scheduler import manager
from nova_mini import states
from nova_mini.tests.fixtures import builders

_NODES = models.Node.__table__


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _building(admin):
    server_uuid = str(uuid.uuid4())
    builders.boot_server(admin, server_uuid, vm_state=instance_obj.BUILDING)
    return objects.Instance.get_by_uuid(admin, server_uuid)


def _claimed_node(admin, engine, instance_uuid):
    node = builders.create_node(admin, 'n-%s' % instance_uuid[:8],
                                provision_state=states.AVAILABLE,
                                properties=builders.node_properties(),
                                resource_class='baremetal')
    with engine.begin() as connection:
        connection.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(instance_uuid=instance_uuid,
                                           instance_info={'traits': []}))
    return node.uuid


def _node_row(engine, node_uuid):
    with engine.connect() as connection:
        return connection.execute(sa.select(
            _NODES.c.instance_uuid, _NODES.c.provision_state).where(
                _NODES.c.uuid == node_uuid)).one()


def test_deploys_its_own_claim(admin, engine):
    server = _building(admin)
    node = _claimed_node(admin, engine, server.uuid)

    manager.SchedulerManager('test')._deploy(
        admin, server, objects.Selection(node_uuid=node))

    shown = objects.Instance.get_by_uuid(admin, server.uuid)
    assert (shown.vm_state, shown.node_uuid) == (instance_obj.ACTIVE, node)
    assert tuple(_node_row(engine, node)) == (server.uuid, states.ACTIVE)


def test_a_node_taken_by_another_server_is_not_deployed(admin, engine):
    late = _building(admin)
    other = _building(admin)
    # The late build's claim was freed (its server deleted and made
    # again, or cleaned up) and the node claimed for another server.
    node = _claimed_node(admin, engine, other.uuid)

    manager.SchedulerManager('test')._deploy(
        admin, late, objects.Selection(node_uuid=node))

    failed = objects.Instance.get_by_uuid(admin, late.uuid)
    assert failed.vm_state == instance_obj.ERROR
    assert failed.node_uuid is None
    assert failed.fault['message'] == (
        'No valid host was found. The node chosen for this server was '
        'taken by another server before it was deployed; booting again '
        'may succeed.')
    # The node is untouched: still the other server's, not deployed.
    assert tuple(_node_row(engine, node)) == (other.uuid, states.AVAILABLE)
    still = objects.Instance.get_by_uuid(admin, other.uuid)
    assert still.vm_state == instance_obj.BUILDING
