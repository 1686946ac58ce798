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

"""A server write and its instance action are one transaction: when the
action cannot be written (here: another session holds PostgreSQL's lock on
``instance_actions`` for longer than ``[database] write_wait_timeout``),
the request is answered 503 and the server is as it was. Before, a delete
answered 503 had deleted the server all the same (found by the database
restart test, whose client then kept the server for alive).

Once the server is deleted, freeing its node is a step of its own: when
that step cannot run (the ``nodes`` table locked), the delete is still
answered 204, and the node, an orphan claim now, is freed by the
schedulers' periodic clean-up.

The same for a bare-metal allocation: created with its node's claim in
one transaction, so a 503 leaves no allocation stuck ``allocating`` (whose
name a retry would find taken).

PostgreSQL only: SQLite has one lock for the whole database, so a write to
one table cannot be held up while the others go through.
"""

import contextlib
import time

import oslo_messaging as messaging
import pytest
import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini import rpc
from nova_mini.scheduler import cleanup
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini import states
from nova_mini.tests.fixtures import builders

# Image ids (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'
IMAGE_2 = 'c0ffee00-0000-4000-8000-000000000002'

pytestmark = pytest.mark.postgresql

V21 = '/compute/v2.1'
ADMIN = {'X-Auth-Token': 'admin:admin'}
DEMO = {'X-Auth-Token': 'demo:demo'}


@pytest.fixture
def stack(api_fixture_factory):
    """(webtest app, database engine); a scheduler serves the builds."""
    fixture = api_fixture_factory(backend='postgresql', conf_overrides={
        'database.write_wait_timeout': 0.5,
        'database.write_retry_interval': 0.01,
        'database.write_max_retry_interval': 0.05})
    scheduler = manager.SchedulerManager('unit', fixture.conf)
    server = rpc.get_server(
        fixture.conf, messaging.Target(topic=rpcapi.TOPIC, server='unit'),
        [scheduler])
    server.start()
    builders.create_flavor(nm_context.get_admin_context(), extra_specs={
        'resources:CUSTOM_BAREMETAL': '1', 'resources:VCPU': '0',
        'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0'})
    try:
        yield webtest.TestApp(fixture.app), fixture.database.engine
    finally:
        server.stop()
        server.wait()


@contextlib.contextmanager
def _table_locked(engine, table):
    """Hold ``table`` from another session: its rows can be read, not
    written, until the block ends.
    """
    connection = engine.connect()
    try:
        connection.execute(sa.text('LOCK TABLE %s IN EXCLUSIVE MODE'
                                   % table))
        yield
    finally:
        connection.rollback()
        connection.close()


def _node(name):
    return builders.create_node(
        nm_context.get_admin_context(), name, resource_class='baremetal',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(1, 1024, 10))


def _boot(app, name='srv'):
    return app.post_json(V21 + '/servers', {'server': {
        'name': name, 'flavorRef': 'bm', 'imageRef': IMAGE}},
        headers=DEMO, expect_errors=True)


def _active(app, server_id, timeout=10):
    """The server, once its build is over; it must be ACTIVE."""
    url = V21 + '/servers/%s' % server_id
    deadline = time.monotonic() + timeout
    server = app.get(url, headers=ADMIN).json['server']
    while server['status'] == 'BUILD' and time.monotonic() < deadline:
        time.sleep(0.05)
        server = app.get(url, headers=ADMIN).json['server']
    assert server['status'] == 'ACTIVE', server
    return server


def _actions(engine, server_id):
    table = models.InstanceAction.__table__
    with engine.connect() as connection:
        return sorted(connection.execute(
            sa.select(table.c.action).where(
                table.c.instance_uuid == server_id)).scalars())


def _count(engine, model):
    with engine.connect() as connection:
        return connection.execute(sa.select(sa.func.count()).select_from(
            model.__table__)).scalar()


def _assert_unavailable(response):
    assert response.status_int == 503, response.text
    assert response.headers['Retry-After']
    assert 'Retry the request' in response.json['serviceUnavailable'][
        'message']


def test_a_create_whose_action_cannot_be_written_creates_nothing(stack):
    app, engine = stack
    _node('n1')
    with _table_locked(engine, 'instance_actions'):
        _assert_unavailable(_boot(app))
    for model in (models.Instance, models.RequestSpec,
                  models.InstanceAction):
        assert _count(engine, model) == 0, model
    # The same request, the table free again.
    created = _boot(app)
    assert created.status_int == 202, created.text
    server_id = created.json['server']['id']
    _active(app, server_id)
    assert _actions(engine, server_id) == ['create']


def test_a_delete_whose_action_cannot_be_written_deletes_nothing(stack):
    app, engine = stack
    node = _node('n1')
    server_id = _boot(app).json['server']['id']
    _active(app, server_id)
    with _table_locked(engine, 'instance_actions'):
        _assert_unavailable(app.delete(V21 + '/servers/%s' % server_id,
                                       headers=DEMO, expect_errors=True))
    # The server, its node and its actions as they were.
    server = _active(app, server_id)
    assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] == node.uuid
    admin = nm_context.get_admin_context()
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.instance_uuid == server_id
    assert stored.provision_state == states.ACTIVE
    assert _actions(engine, server_id) == ['create']
    assert _count(engine, models.RequestSpec) == 1

    # Retried, it is done, once.
    response = app.delete(V21 + '/servers/%s' % server_id, headers=DEMO)
    assert response.status_int == 204
    app.get(V21 + '/servers/%s' % server_id, headers=ADMIN, status=404)
    assert _actions(engine, server_id) == ['create', 'delete']
    assert _count(engine, models.RequestSpec) == 0
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.instance_uuid is None
    assert stored.provision_state == states.AVAILABLE


def test_a_lock_whose_action_cannot_be_written_locks_nothing(stack):
    app, engine = stack
    _node('n1')
    server_id = _boot(app).json['server']['id']
    _active(app, server_id)
    url = V21 + '/servers/%s/action' % server_id
    headers = dict(DEMO, **{'OpenStack-API-Version': 'compute 2.73'})
    with _table_locked(engine, 'instance_actions'):
        _assert_unavailable(app.post_json(
            url, {'lock': {'locked_reason': 'maintenance'}},
            headers=headers, expect_errors=True))
    server = app.get(V21 + '/servers/%s' % server_id,
                     headers=headers).json['server']
    assert server['locked'] is False
    assert server['locked_reason'] is None
    assert _actions(engine, server_id) == ['create']

    app.post_json(url, {'lock': {'locked_reason': 'maintenance'}},
                  headers=headers, status=202)
    with _table_locked(engine, 'instance_actions'):
        _assert_unavailable(app.post_json(url, {'unlock': None},
                                          headers=headers,
                                          expect_errors=True))
    server = app.get(V21 + '/servers/%s' % server_id,
                     headers=headers).json['server']
    assert server['locked'] is True
    assert server['locked_reason'] == 'maintenance'
    assert _actions(engine, server_id) == ['create', 'lock']


def test_a_delete_whose_node_cannot_be_freed_now_is_done(stack):
    """The server is gone and the answer says so; its node is freed by
    the clean-up once the nodes can be written again.
    """
    app, engine = stack
    node = _node('n1')
    server_id = _boot(app).json['server']['id']
    _active(app, server_id)
    with _table_locked(engine, 'nodes'):
        response = app.delete(V21 + '/servers/%s' % server_id,
                              headers=DEMO)
        assert response.status_int == 204
    app.get(V21 + '/servers/%s' % server_id, headers=ADMIN, status=404)
    assert _actions(engine, server_id) == ['create', 'delete']
    admin = nm_context.get_admin_context()
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.instance_uuid == server_id       # an orphan claim now
    _expired, freed = cleanup.run_once(admin, 0)
    assert [orphan.node_uuid for orphan in freed] == [node.uuid]
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.instance_uuid is None
    assert stored.provision_state == states.AVAILABLE


def _state(app, server_id):
    server = app.get(V21 + '/servers/%s' % server_id,
                     headers=ADMIN).json['server']
    return (server['status'], server['OS-EXT-STS:task_state'],
            server['OS-EXT-STS:power_state'], server['image']['id'],
            server['name'])


def test_a_stop_or_rebuild_whose_action_cannot_be_written_changes_nothing(
        stack):
    """The whole task is one transaction: its task state, the node's
    power, the server's new state and the action.
    """
    app, engine = stack
    node = _node('n1')
    server_id = _boot(app).json['server']['id']
    _active(app, server_id)
    before = _state(app, server_id)
    assert before == ('ACTIVE', None, 1, IMAGE, 'srv')
    url = V21 + '/servers/%s/action' % server_id
    admin = nm_context.get_admin_context()
    with _table_locked(engine, 'instance_actions'):
        _assert_unavailable(app.post_json(url, {'os-stop': None},
                                          headers=DEMO, expect_errors=True))
        _assert_unavailable(app.post_json(
            url, {'rebuild': {'imageRef': IMAGE_2, 'name': 'renamed'}},
            headers=DEMO, expect_errors=True))
    assert _state(app, server_id) == before
    assert objects.Node.get_by_uuid(admin, node.uuid).power_state == \
        states.POWER_ON
    assert _actions(engine, server_id) == ['create']

    # The same requests, the table free again.
    app.post_json(url, {'os-stop': None}, headers=DEMO, status=202)
    assert _state(app, server_id) == ('SHUTOFF', None, 4, IMAGE, 'srv')
    assert objects.Node.get_by_uuid(admin, node.uuid).power_state == \
        states.POWER_OFF
    app.post_json(url, {'rebuild': {'imageRef': IMAGE_2, 'name': 'renamed'}},
                  headers=DEMO, status=202)
    assert _state(app, server_id) == ('SHUTOFF', None, 4, IMAGE_2,
                                      'renamed')
    assert _actions(engine, server_id) == ['create', 'rebuild', 'stop']


def test_an_allocation_whose_node_cannot_be_claimed_is_not_created(stack):
    """The allocation and its node's claim are one transaction."""
    app, engine = stack
    _node('n1')
    headers = {'X-Auth-Token': 'admin:admin',
               'X-OpenStack-Ironic-API-Version': '1.58'}
    body = {'name': 'alloc-1', 'resource_class': 'baremetal'}
    with _table_locked(engine, 'nodes'):
        response = app.post_json('/baremetal/v1/allocations', body,
                                 headers=headers, expect_errors=True)
    assert response.status_int == 503, response.text
    assert _count(engine, models.Allocation) == 0
    # The same request, the nodes free again: the name is not taken.
    response = app.post_json('/baremetal/v1/allocations', body,
                             headers=headers, status=201)
    shown = app.get('/baremetal/v1/allocations/alloc-1',
                    headers=headers).json
    assert shown['state'] == 'active'
    assert shown['node_uuid']
