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

"""HTTP builders of the live tests, on the stack of real services: a node
of this run's resource class, its flavor, a server booted and deleted
through the compute API (Keystone tokens, RabbitMQ, the scheduler), or
only created and waited for at a given API.
In-process tests have theirs in nova_mini.tests.fixtures.builders.
"""

import base64
import contextlib
import datetime
import os
import sqlite3
import time
import uuid

import kombu
import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.objects.baremetal import node as node_obj
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-md-%s' % RUN
FLAVOR = 'bm-md-%s' % RUN
# The stack's cirros-like image in Glance (uploaded by the harness).
IMAGE = glance_harness.CIRROS_ID


def start_or_fail(service, what):
    """Start a nova_mini_deploy service (its ``start()``); if it does not
    start, stop it and fail the test with one line naming ``what``.
    """
    try:
        service.start()
    except util.ServiceError as exc:
        service.stop(timeout=5)
        pytest.fail('%s did not start: %s' % (what, exc), pytrace=False)


def stack_engine(stack):
    """Open the stack's database (its SQLite file) for a test's own rows.

    :param stack: the running nova_mini_deploy.Stack.
    :returns: an SQLAlchemy engine; the caller disposes of it.
    """
    path = os.path.join(stack.nova.state_dir, 'nova_mini.sqlite')
    return sa.create_engine('sqlite:///%s' % path,
                            connect_args={'timeout': 30})


# The states of /proc/net/tcp.
TCP_ESTABLISHED, TCP_LISTEN = '01', '0A'


def tcp_sockets():
    """The machine's TCP sockets, from /proc/net/tcp and tcp6: a list of
    ``(local port, remote port, state, send queue, receive queue)``, the
    queues in bytes (an established socket's send queue holds what the
    peer has not acknowledged, its receive queue what no process has
    read yet).
    """
    sockets = []
    for name in ('tcp', 'tcp6'):
        try:
            with open('/proc/net/' + name) as f:
                lines = f.read().splitlines()[1:]
        except FileNotFoundError:
            continue
        for line in lines:
            fields = line.split()
            send, receive = fields[4].split(':')
            sockets.append((int(fields[1].rsplit(':', 1)[1], 16),
                            int(fields[2].rsplit(':', 1)[1], 16),
                            fields[3], int(send, 16), int(receive, 16)))
    return sockets


def requests_read(server_port, client_ports):
    """Whether the server on ``server_port`` has read everything that the
    clients on ``client_ports`` (local ports) sent so far: each connection
    established, nothing left in the client's send queue nor in the
    server's receive queue. The kernel queues what a client sends before
    the server accepts it: an empty receive queue means that a server
    process took the connection and read the bytes.
    """
    sockets = tcp_sockets()
    for client in client_ports:
        ends = {(local, state): (send, receive)
                for local, remote, state, send, receive in sockets
                if (local, remote) in ((client, server_port),
                                       (server_port, client))}
        client_end = ends.get((client, TCP_ESTABLISHED))
        server_end = ends.get((server_port, TCP_ESTABLISHED))
        if not (client_end and server_end and client_end[0] == 0
                and server_end[1] == 0):
            return False
    return True


def wait_requests_read(server_port, client_ports, timeout=60, abort=None):
    """Wait until requests_read(); ServiceError after ``timeout`` seconds
    or as soon as ``abort()`` gives a reason.
    """
    client_ports = list(client_ports)
    util.wait_until(
        lambda: requests_read(server_port, client_ports), timeout,
        'the server on port %d reading the requests sent from ports %s'
        % (server_port, client_ports), interval=0.05, abort=abort)


def listening(port):
    """Whether some process listens on TCP ``port``."""
    return any(local == port and state == TCP_LISTEN
               for local, _remote, state, _send, _receive in tcp_sockets())


def log_has(proc, text):
    """Whether the log of ``proc`` (a nova_mini_deploy Process) has
    ``text``.
    """
    with open(proc.log_path) as f:
        return text in f.read()


def wait_queue(stack, virtual_host, counts, what, queue='scheduler',
               timeout=60):
    """Wait until RabbitMQ's ``queue`` of ``virtual_host`` holds ``counts``
    messages, ``(ready, delivered but unacknowledged)``; AssertionError
    naming ``what`` and the last counts after ``timeout`` seconds.

    The RPC server acknowledges a message before it runs it: (0, 0) on
    the ``scheduler`` queue means every build cast was taken (a scheduler
    stopped or killed from then on never gets it again); a frozen
    scheduler holds what RabbitMQ delivered to it, unacknowledged.
    """
    deadline = time.monotonic() + timeout
    while True:
        now = stack.rabbit.queue_messages(virtual_host).get(queue)
        if now == tuple(counts):
            return
        if time.monotonic() > deadline:
            raise AssertionError(
                '%s: queue %s of %s still holds (ready, unacknowledged) '
                '%s, not %s, after %ss' % (what, queue, virtual_host, now,
                                           tuple(counts), timeout))
        time.sleep(0.2)


@contextlib.contextmanager
def database_locked(stack):
    """Hold the write lock of the stack's database (SQLite) for the block:
    the daemons' writes wait for it meanwhile (reads go on).

    :param stack: the running nova_mini_deploy.Stack.
    """
    path = os.path.join(stack.nova.state_dir, 'nova_mini.sqlite')
    connection = sqlite3.connect(path, timeout=30, isolation_level=None)
    try:
        connection.execute('BEGIN IMMEDIATE')
        yield
    finally:
        connection.execute('ROLLBACK')
        connection.close()


def insert_node(engine, resource_class, traits=(), name_prefix='md',
                properties=None):
    """Insert an available node (8 cpus, 8 GiB, 100 GB) and its traits.

    :param engine: the stack's engine (stack_engine).
    :param resource_class: the node's resource class.
    :param traits: trait names to give it.
    :param name_prefix: its name is ``<prefix>-<uuid start>``.
    :param properties: its properties instead of the default ones; the
        capacity columns are written from them, as Node.create does.
    :returns: the node's uuid.
    """
    if properties is None:
        properties = {'cpus': 8, 'memory_mb': 8192, 'local_gb': 100}
    nodes, node_traits = models.Node.__table__, models.NodeTrait.__table__
    now = datetime.datetime.utcnow()
    node_uuid = str(uuid.uuid4())
    with engine.begin() as connection:
        connection.execute(nodes.insert(), [dict(
            node_obj.capacity_of(properties), uuid=node_uuid,
            name='%s-%s' % (name_prefix, node_uuid[:8]),
            driver='fake-hardware', resource_class=resource_class,
            provision_state='available', power_state='power off',
            maintenance=False, properties=properties, driver_info={},
            instance_info={}, extra={}, created_at=now)])
        if traits:
            node_id = connection.execute(sa.select(nodes.c.id).where(
                nodes.c.uuid == node_uuid)).scalar_one()
            connection.execute(node_traits.insert(), [
                {'node_id': node_id, 'trait': t, 'created_at': now}
                for t in traits])
    return node_uuid


def remove_fleet(engine, node_uuids, instance_uuids=()):
    """Delete a test's nodes (with their traits) and instances (with the
    rows that hang on them) from the stack's database, so that the tests
    after it see the fleet they would see alone: a list of every node, as
    ironic-tempest-plugin's takes, holds one page only up to
    ``[api] max_limit`` nodes.

    :param engine: the stack's engine (stack_engine).
    :param node_uuids: the nodes to delete.
    :param instance_uuids: the instances to delete.
    """
    nodes, node_traits = models.Node.__table__, models.NodeTrait.__table__
    instances = models.Instance.__table__
    node_uuids, instance_uuids = sorted(node_uuids), sorted(instance_uuids)
    with engine.begin() as connection:
        for start in range(0, len(instance_uuids), 500):
            batch = instance_uuids[start:start + 500]
            # The tables that refer to an instance (SQLite does not
            # cascade unless asked), then the instances.
            for table in models.Base.metadata.sorted_tables:
                for key in table.foreign_keys:
                    if key.column is instances.c.uuid:
                        connection.execute(table.delete().where(
                            key.parent.in_(batch)))
            connection.execute(instances.delete().where(
                instances.c.uuid.in_(batch)))
        for start in range(0, len(node_uuids), 500):
            ids = sa.select(nodes.c.id).where(
                nodes.c.uuid.in_(node_uuids[start:start + 500]))
            connection.execute(node_traits.delete().where(
                node_traits.c.node_id.in_(ids)))
            connection.execute(nodes.delete().where(
                nodes.c.uuid.in_(node_uuids[start:start + 500])))


def add_node(stack):
    """Add a node of this run's resource class, available: the stack's
    scheduler places the servers of FLAVOR on it.

    :returns: the node's uuid.
    """
    engine = stack_engine(stack)
    try:
        return insert_node(engine, RESOURCE_CLASS)
    finally:
        engine.dispose()


def make_flavor(stack, flavor_id=FLAVOR, resource_class=RESOURCE_CLASS,
                traits=(), vcpus=4):
    """A bare-metal flavor (made if missing): one node of
    ``resource_class`` with every trait of ``traits``, no VCPU, memory or
    disk of its own.

    :param stack: the live stack.
    :param flavor_id: the flavor's id and name (default FLAVOR).
    :param resource_class: the nodes' Ironic resource class (default
        RESOURCE_CLASS).
    :param traits: traits the flavor requires.
    :param vcpus: the flavor's vcpus, which its servers count against
        their project's cores quota (not the node's cpus).
    :returns: the flavor's id.
    """
    url = stack.nova.compute_url
    headers = {'X-Auth-Token': stack.token('admin')}
    response = requests.post(url + '/flavors', json={'flavor': {
        'name': flavor_id, 'id': flavor_id, 'ram': 4096, 'vcpus': vcpus,
        'disk': 50}}, headers=headers, timeout=30)
    assert response.status_code in (200, 409), response.text
    extra_specs = {
        'resources:CUSTOM_%s' % resource_class.upper().replace('-', '_'):
            '1',
        'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
        'resources:DISK_GB': '0'}
    extra_specs.update(('trait:%s' % trait, 'required') for trait in traits)
    response = requests.post(
        url + '/flavors/%s/os-extra_specs' % flavor_id,
        json={'extra_specs': extra_specs}, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return flavor_id


def lift_server_quotas(url, headers, project_id):
    """Give a project no instances, cores or ram quota (PUT
    /os-quota-sets/{project_id} as an administrator): for the tests that
    boot fleets in one project, which the defaults (10 servers, 20 vcpus,
    so five of make_flavor's) would refuse. Nothing else is lifted.

    :param url: the compute API's URL (``.../compute/v2.1``), whose
        database keeps the limit.
    :param headers: an administrator's request headers.
    :param project_id: the project.
    :returns: the project's quota set as the API answered it.
    """
    response = requests.put(
        url + '/os-quota-sets/%s' % project_id, json={'quota_set': {
            'instances': -1, 'cores': -1, 'ram': -1}},
        headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()['quota_set']


def project_id(stack, name):
    """The id of the stack's Keystone project ``name`` (admin, demo)."""
    return stack.keystone.admin_client().ensure_project(name)


def create_server(url, headers, flavor_id, name, **fields):
    """POST /servers to the compute API at ``url`` (202 asserted).

    :param url: the compute API's URL (``.../compute/v2.1``).
    :param headers: the request's headers (token, microversion).
    :param flavor_id: the flavorRef.
    :param name: the server's name.
    :param fields: further fields of the server body (``metadata`` ...);
        ``imageRef`` defaults to the stack's cirros-like image (IMAGE).
    :returns: the new server's id.
    """
    body = dict({'name': name, 'flavorRef': flavor_id,
                 'imageRef': IMAGE}, **fields)
    response = requests.post(url + '/servers', json={'server': body},
                             headers=headers, timeout=30)
    assert response.status_code == 202, response.text
    return response.json()['server']['id']


def wait_for_build(url, headers, server_id, timeout=60):
    """Poll GET /servers/{id} until the server leaves BUILD.

    :param url: the compute API's URL (``.../compute/v2.1``).
    :param headers: the request's headers (token, microversion).
    :param server_id: the server's id.
    :param timeout: the seconds to poll for.
    :returns: the server as last shown (still BUILD if the time ran out).
    """
    deadline = time.monotonic() + timeout
    while True:
        response = requests.get(url + '/servers/%s' % server_id,
                                headers=headers, timeout=30)
        assert response.status_code == 200, response.text
        server = response.json()['server']
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(0.2)


def boot(stack, flavor_id, name, metadata=None, user_data=None,
         user='demo'):
    """Boot a server as ``user`` on a new node and wait until it is
    ACTIVE; the server as GET /servers/{id} shows it.
    """
    add_node(stack)
    url = stack.nova.compute_url
    headers = {'X-Auth-Token': stack.token(user)}
    fields = {}
    if metadata is not None:
        fields['metadata'] = metadata
    if user_data is not None:
        fields['user_data'] = base64.b64encode(user_data).decode('ascii')
    server_id = create_server(url, headers, flavor_id, name, **fields)
    server = wait_for_build(url, headers, server_id)
    assert server['status'] == 'ACTIVE', server
    return server


def delete(stack, server_id, user='demo'):
    """Delete a server as ``user`` (204)."""
    response = requests.delete(
        stack.nova.compute_url + '/servers/%s' % server_id,
        headers={'X-Auth-Token': stack.token(user)}, timeout=30)
    assert response.status_code == 204, response.text


def declare_scheduler_queue(stack, transport_url):
    """Declare the queue the stack's schedulers consume, on the virtual
    host of ``transport_url``, with no consumer: as if a scheduler had run
    there and gone. Builds cast to it are then accepted and wait (the API
    refuses them with 503 while no such queue exists).

    :param stack: the live stack (its RPC exchange).
    :param transport_url: a ``rabbit://`` URL of the virtual host.
    """
    exchange = kombu.Exchange(stack.exchange, type='topic', durable=False)
    queue = kombu.Queue('scheduler', exchange, routing_key='scheduler',
                        durable=False)
    with kombu.Connection(transport_url.replace('rabbit://', 'amqp://', 1),
                          connect_timeout=10) as connection:
        queue(connection.channel()).declare()
