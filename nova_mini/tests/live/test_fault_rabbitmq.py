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

"""RabbitMQ faults with real daemons: the broker down when servers are
created, back again, and restarted in the middle of a build.

The broker is a node of this module's own (harness PrivateRabbitMQ: its
own name, ports, cookie and mnesia directory), which the tests stop and
start; the machine's shared broker is never touched. An API and a
scheduler of the session's stack (its Keystone and database) use it; they
are started once and never restarted, so whatever works after the broker
returns was done by their own reconnection.
"""

import concurrent.futures
import os
import signal
import time
import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.harness import rabbitmq
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-rabbit-%s' % RUN
TRAIT = 'CUSTOM_RABBIT_%s' % RUN.upper()
FLAVOR = 'bm-rabbit-%s' % RUN
# [DEFAULT] rpc_response_timeout of these daemons: the build deadline.
BUILD_TIMEOUT = 20
# Seconds within which the daemons must be back on a returned broker:
# [oslo_messaging_rabbit] rabbit_interval_max and a margin.
RECONNECT_BOUND = 45
# The daemons' longest wait between two attempts to reconnect: 2 s rather
# than nova_mini's 10, so that each return of the broker is seen within
# seconds (reconnecting, not its pace, is what the tests are about).
RECONNECT = {'oslo_messaging_rabbit': {'rabbit_interval_max': 2}}
HEADERS_VERSION = '2.47'


@pytest.fixture(scope='module')
def broker():
    node = rabbitmq.PrivateRabbitMQ()
    try:
        node.start()
        yield node
    finally:
        node.cleanup()


@pytest.fixture(scope='module')
def daemons(stack, broker):
    """{'api': compute URL, 'scheduler': its Process} on the private
    broker; stopped at the end of the module.
    """
    common = {'transport_url': broker.url(),
              'rpc_response_timeout': BUILD_TIMEOUT}
    host = 'sched-rabbit-%s' % RUN
    sched_name = 'nova-mini-scheduler-%s' % host
    api_name = 'nova-mini-api-rabbit-%s' % RUN
    port = util.free_port()
    sched_conf = stack.nova.write_extra_config(
        sched_name, dict(RECONNECT, DEFAULT=dict(common, host=host)))
    api_conf = stack.nova.write_extra_config(
        api_name, dict(RECONNECT, DEFAULT=common,
                       api={'bind_port': port, 'workers': 2}))
    started = []
    try:
        sched = stack.nova.start(
            nova.SCHEDULER, name=sched_name,
            config_files=[stack.nova.conf_path, sched_conf])
        started.append(sched.name)
        api = stack.nova.start(nova.API, name=api_name, port=port,
                               config_files=[stack.nova.conf_path,
                                             api_conf])
        started.append(api.name)
        yield {'api': 'http://127.0.0.1:%d/compute/v2.1' % port,
               'scheduler': sched, 'api_process': api}
    finally:
        for name in started:
            stack.nova.stop(name, timeout=30)


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS, [TRAIT])


@pytest.fixture
def headers(admin_token):
    return {'X-Auth-Token': admin_token,
            'OpenStack-API-Version': 'compute %s' % HEADERS_VERSION}


def _post(url, headers, name, count=1):
    body = {'server': {'name': name, 'flavorRef': FLAVOR,
                       'imageRef': helpers.IMAGE, 'min_count': count}}
    return requests.post(url + '/servers', json=body, headers=headers,
                         timeout=60)


def _instance_rows(engine, name):
    instances = models.Instance.__table__
    with engine.connect() as connection:
        return connection.execute(sa.select(
            instances.c.uuid, instances.c.vm_state).where(
                instances.c.name.like(name + '%'))).all()


def _listed(url, headers, name):
    response = requests.get(url + '/servers/detail',
                            params={'name': '^%s' % name},
                            headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()['servers']


def _node_of(engine, instance_uuid):
    nodes = models.Node.__table__
    with engine.connect() as connection:
        return connection.execute(sa.select(nodes.c.uuid).where(
            nodes.c.instance_uuid == instance_uuid)).scalar()


def _scheduler_consumers(broker):
    try:
        return broker.queues().get('scheduler', 0)
    except util.ServiceError:
        return 0


def _assert_ended(server, engine):
    """ACTIVE on its node, or ERROR with a fault as Nova shows it (and no
    node held).
    """
    assert server['status'] in ('ACTIVE', 'ERROR'), server
    if server['status'] == 'ACTIVE':
        assert _node_of(engine, server['id']) == server[
            'OS-EXT-SRV-ATTR:hypervisor_hostname']
        assert 'fault' not in server
    else:
        fault = server['fault']
        assert set(fault) >= {'code', 'message', 'created'}, fault
        assert fault['code'] == 500
        assert fault['message']
        assert _node_of(engine, server['id']) is None


def test_broker_down_at_create_then_back(broker, daemons, flavor, engine,
                                         headers):
    url = daemons['api']
    sched = daemons['scheduler']
    for _index in range(3):
        helpers.insert_node(engine, RESOURCE_CLASS, [TRAIT], 'rabbit')
    # Up: a boot works.
    name = 'rabbit-up-%s' % RUN
    response = _post(url, headers, name)
    assert response.status_code == 202, response.text
    server = helpers.wait_for_build(url, headers,
                                    response.json()['server']['id'])
    assert server['status'] == 'ACTIVE', server

    broker.stop()

    # Down: every create is refused with 503 in Nova's format, several
    # clients at once, and nothing is left in BUILD (or at all).
    name = 'rabbit-down-%s' % RUN
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(
            lambda index: _post(url, headers, '%s-%d' % (name, index),
                                count=1 + index % 2), range(4)))
    elapsed = time.monotonic() - started
    for answer in answers:
        assert answer.status_code == 503, answer.text
        fault = answer.json()['serviceUnavailable']
        assert fault['code'] == 503
        assert fault['message'].startswith(
            'The message broker does not answer'), fault
        assert 'Nothing was created' in fault['message']
        assert int(answer.headers['Retry-After']) > 0
    # Bounded: a few broker attempts, not oslo.messaging's endless ones.
    assert elapsed < 30, elapsed
    assert _instance_rows(engine, name) == []
    assert _listed(url, headers, name) == []
    # Reads do not need the broker.
    assert len(_listed(url, headers, 'rabbit-up-%s' % RUN)) == 1

    # Back: the same daemons (never restarted) reconnect on their own.
    broker.start()
    util.wait_until(lambda: _scheduler_consumers(broker) >= 1,
                    RECONNECT_BOUND, 'the scheduler consuming again')
    assert sched.running and daemons['api_process'].running
    name = 'rabbit-back-%s' % RUN
    deadline = time.monotonic() + RECONNECT_BOUND
    while True:
        response = _post(url, headers, name)
        if response.status_code != 503 or time.monotonic() > deadline:
            break
        # Not yet reconnected: a clear answer, then a retry as told.
        assert 'Retry-After' in response.headers
        time.sleep(1)
    assert response.status_code == 202, response.text
    server = helpers.wait_for_build(url, headers,
                                    response.json()['server']['id'])
    assert server['status'] == 'ACTIVE', server
    _assert_ended(server, engine)


def test_broker_restart_during_builds(broker, daemons, flavor, engine,
                                      headers):
    url = daemons['api']
    sched = daemons['scheduler']
    for _index in range(4):
        helpers.insert_node(engine, RESOURCE_CLASS, [TRAIT], 'rabbit')
    util.wait_until(lambda: _scheduler_consumers(broker) >= 1,
                    RECONNECT_BOUND, 'the scheduler consuming')

    # Builds the scheduler has been sent but not taken (it is paused) when
    # the broker stops: lost with the broker's queue, or read from the
    # socket before; either way they must end, not stay in BUILD.
    os.killpg(sched.pid, signal.SIGSTOP)
    try:
        paused = _post(url, headers, 'rabbit-paused-%s' % RUN, count=2)
        assert paused.status_code == 202, paused.text
        broker.stop()
    finally:
        os.killpg(sched.pid, signal.SIGCONT)
    broker.start()
    util.wait_until(lambda: _scheduler_consumers(broker) >= 1,
                    RECONNECT_BOUND, 'the scheduler consuming again')
    # Builds sent just before a restart, the scheduler working on them
    # while the broker goes away.
    busy = _post(url, headers, 'rabbit-busy-%s' % RUN, count=2)
    assert busy.status_code == 202, busy.text
    broker.restart()

    ids = [row.uuid for prefix in ('rabbit-paused-', 'rabbit-busy-')
           for row in _instance_rows(engine, prefix + RUN)]
    assert len(ids) == 4
    # Bounded: the build deadline, then a margin for the poll.
    servers = [helpers.wait_for_build(url, headers, server_id,
                                      BUILD_TIMEOUT + 30)
               for server_id in ids]
    for server in servers:
        _assert_ended(server, engine)
    assert _listed(url, headers, 'rabbit-') and not [
        s for s in _listed(url, headers, 'rabbit-')
        if s['status'] == 'BUILD']

    # And the daemons work on the restarted broker.
    util.wait_until(lambda: _scheduler_consumers(broker) >= 1,
                    RECONNECT_BOUND, 'the scheduler consuming again')
    for server in servers:
        if server['status'] == 'ACTIVE':
            requests.delete(url + '/servers/%s' % server['id'],
                            headers=headers, timeout=30)
    deadline = time.monotonic() + RECONNECT_BOUND
    while True:
        response = _post(url, headers, 'rabbit-after-%s' % RUN)
        if response.status_code != 503 or time.monotonic() > deadline:
            break
        time.sleep(1)
    assert response.status_code == 202, response.text
    server = helpers.wait_for_build(url, headers,
                                    response.json()['server']['id'])
    assert server['status'] == 'ACTIVE', server
