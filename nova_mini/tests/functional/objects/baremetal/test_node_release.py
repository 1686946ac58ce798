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

"""Node.release when the node changes hands between its read and its move:
a server delete must never free a node that another instance has by then.
"""

from oslo_utils import uuidutils
import pytest

from nova_mini.db import models
from nova_mini import exception
from nova_mini import objects
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import database as db_fixture

pytestmark = pytest.mark.usefixtures('db')

_NODES = models.Node.__table__


def _node(admin, state, instance_uuid):
    return builders.create_node(
        admin, 'n', provision_state=state, power_state='power on',
        instance_uuid=instance_uuid, instance_info={'image_source': 'img'})


def _after_read(monkeypatch, change):
    """Run ``change(node)`` right after release's read of the node."""
    read = objects.Node.get_by_instance_uuid.__func__
    calls = []

    def get_by_instance_uuid(cls, context, instance_uuid):
        node = read(cls, context, instance_uuid)
        if not calls:
            calls.append(node.uuid)
            change(objects.Node.get_by_uuid(context, node.uuid))
        return node

    monkeypatch.setattr(objects.Node, 'get_by_instance_uuid',
                        classmethod(get_by_instance_uuid))
    return calls


def test_release_undeploys_the_instances_node(admin):
    mine = uuidutils.generate_uuid()
    node = _node(admin, 'active', mine)
    assert objects.Node.release(admin, mine) == node.uuid
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert (stored.provision_state, stored.instance_uuid) == (
        'available', None)


def test_release_leaves_a_node_another_instance_got_meanwhile(
        admin, monkeypatch):
    mine, theirs = uuidutils.generate_uuid(), uuidutils.generate_uuid()
    node = _node(admin, 'active', mine)

    def freed_and_given_to_another(fresh):
        # Another delete of the same server frees the node, then the
        # scheduler claims and deploys it for another instance.
        fresh.set_provision_state('deleted', instance_uuid=mine)
        assert objects.Node.claim(admin, fresh.uuid, theirs, None)
        fresh = objects.Node.get_by_uuid(admin, fresh.uuid)
        fresh.set_provision_state('active', instance_uuid=theirs)

    calls = _after_read(monkeypatch, freed_and_given_to_another)
    assert objects.Node.release(admin, mine) is None
    assert calls == [node.uuid]
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.instance_uuid == theirs
    assert stored.provision_state == 'active'
    assert stored.instance_info == {}


def test_release_of_a_claim_deployed_meanwhile_undeploys_it(
        admin, monkeypatch):
    mine = uuidutils.generate_uuid()
    node = _node(admin, 'available', mine)

    def deployed(fresh):
        fresh.set_provision_state('active', instance_uuid=mine)

    calls = _after_read(monkeypatch, deployed)
    assert objects.Node.release(admin, mine) == node.uuid
    assert calls == [node.uuid]
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert (stored.provision_state, stored.instance_uuid) == (
        'available', None)


@pytest.fixture
def locked_out_db(backend, conf):
    # A database of its own whose connections open with a short wait
    # (SQLite busy_timeout, PostgreSQL lock_timeout, InnoDB's), so that a
    # held lock makes a writer give up within a second.
    conf.config(write_wait_timeout=1.0, write_retry_interval=0.01,
                write_max_retry_interval=0.1, group='database')
    fixture = db_fixture.DatabaseFixture(backend)
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


def test_release_of_deleted_leaves_the_claim_when_the_database_is_busy(
        locked_out_db, admin, caplog):
    mine = uuidutils.generate_uuid()
    node = _node(admin, 'active', mine)
    holder = locked_out_db.engine.connect()
    # Another writer holds the node's row (SQLite: the database).
    holder.execute(_NODES.update().where(_NODES.c.uuid == node.uuid).values(
        description='held'))
    try:
        with pytest.raises(exception.DatabaseBusy):
            objects.Node.release(admin, mine)
        assert objects.Node.release_of_deleted(admin, mine) is None
    finally:
        holder.rollback()
        holder.close()
    assert "could not free its node now" in caplog.text
    # Still the deleted instance's: an orphan claim for the clean-up.
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert (stored.provision_state, stored.instance_uuid) == ('active', mine)
    assert objects.Node.release_of_deleted(admin, mine) == node.uuid
