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

"""A scheduler killed (SIGKILL) in the middle of builds, with another one
consuming the same topic: every server ends ACTIVE, or ERROR with a fault,
by the build deadline, and no node stays claimed by an instance that is
not on it.

oslo.messaging acknowledges a cast as the scheduler takes it, so the
builds the killed scheduler had begun are not delivered again: they end
in ERROR at their deadline ("Timed out waiting for a scheduler"), and the
nodes it had claimed or deployed for them are freed by the surviving
scheduler's periodic clean-up (nova_mini.scheduler.cleanup). Casts it had
received but not begun go back to the queue, to the other scheduler.

The victim is frozen (SIGSTOP) while the servers are created, so that its
share of the casts waits for it; then it either dies frozen (every cast
goes to the other scheduler), or takes its casts while the test holds the
database's write lock, then runs 10 ms at a time until the database shows
one of its claims, and is killed (its builds are then between claim and
end).
"""

import os
import signal
import time
import uuid

import pytest
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

BOOTS = 8
NODES = 24
# [DEFAULT] rpc_response_timeout of this test's API and schedulers: the
# build deadline, and the age at which the clean-up frees a claim (a
# killed scheduler's builds are waited for that long: 20 s still leaves
# the surviving scheduler's builds of fake nodes many times what they
# take).
DEADLINE = 20
CLEANUP_INTERVAL = 2
RESOURCE_CLASS = 'baremetal-kill-%s' % helpers.RUN
FLAVOR = 'bm-kill-%s' % helpers.RUN
TIMED_OUT = 'Timed out waiting for a scheduler'

_NODES = models.Node.__table__
_INSTANCES = models.Instance.__table__


@pytest.fixture
def vhost(stack):
    """A RabbitMQ virtual host of this test; (its name, transport URL)."""
    name = 'nova_mini_kill_%s' % uuid.uuid4().hex[:8]
    with stack.rabbit.virtual_hosts(name) as urls:
        yield name, urls[0]


@pytest.fixture
def deployment(stack, vhost, extra_api):
    """Two schedulers (kill-a, kill-b) and an API of their own on the
    test's virtual host; yields ``(compute URL, {host: Process})``.
    """
    default = {'transport_url': vhost[1], 'rpc_response_timeout': DEADLINE}
    schedulers = {}
    for host in ('kill-a', 'kill-b'):
        name = 'nova-mini-scheduler-%s-%s' % (host, helpers.RUN)
        extra = stack.nova.write_extra_config(name, {
            'DEFAULT': dict(default, host=host),
            'filter_scheduler': {'cleanup_interval': CLEANUP_INTERVAL,
                                 'weighers': 'RAMWeigher,RandomWeigher',
                                 'host_subset_size': 8,
                                 'max_attempts': 5}})
        schedulers[host] = stack.nova.start(
            nova.SCHEDULER, name=name,
            config_files=[stack.nova.conf_path, extra])
    _proc, port = extra_api(workers=2, sections={'DEFAULT': default})
    yield 'http://%s:%d/compute/v2.1' % (util.LOCALHOST, port), schedulers
    for proc in schedulers.values():
        if proc.running:
            os.kill(proc.pid, signal.SIGCONT)
        stack.nova.stop(proc.name, timeout=30)


def _claims(engine):
    """``{node uuid: (instance uuid, provision state)}`` of this test's
    claimed nodes.
    """
    with engine.connect() as connection:
        return {row.uuid: (row.instance_uuid, row.provision_state)
                for row in connection.execute(sa.select(
                    _NODES.c.uuid, _NODES.c.instance_uuid,
                    _NODES.c.provision_state).where(
                    _NODES.c.resource_class == RESOURCE_CLASS,
                    _NODES.c.instance_uuid.isnot(None)))}


def _instances(engine, uuids):
    with engine.connect() as connection:
        return {row.uuid: row for row in connection.execute(sa.select(
            _INSTANCES.c.uuid, _INSTANCES.c.vm_state,
            _INSTANCES.c.node_uuid).where(_INSTANCES.c.uuid.in_(uuids)))}


def _building_claims(engine):
    """Claims of instances still building: what a scheduler holds between
    its claim and the end of the build.
    """
    claims = _claims(engine)
    rows = _instances(engine, [i for i, _s in claims.values()])
    return {node: instance for node, (instance, _s) in claims.items()
            if instance in rows and rows[instance].vm_state == 'building'}


def _orphans(engine):
    """Claims whose instance is gone, or not ACTIVE on that node."""
    claims = _claims(engine)
    rows = _instances(engine, [i for i, _s in claims.values()])
    return {node: instance for node, (instance, _s) in claims.items()
            if instance not in rows or rows[instance].vm_state != 'active'
            or rows[instance].node_uuid != node}


def _boot_all(url, headers, prefix, engine):
    """Two multi-creates of BOOTS // 2 servers each: two build casts, which
    RabbitMQ hands to the two schedulers in turn (two POSTs, as each
    checks its image in Glance, slow on a loaded machine).

    :returns: ``{server id: when its POST was answered}`` (monotonic, after
        its ``created_at``).
    """
    servers = {}
    for index in range(2):
        name = '%s-%s-%d' % (prefix, helpers.RUN, index)
        helpers.create_server(url, headers, FLAVOR, name,
                              min_count=BOOTS // 2, max_count=BOOTS // 2)
        answered = time.monotonic()
        with engine.connect() as connection:
            made = connection.execute(sa.select(_INSTANCES.c.uuid).where(
                _INSTANCES.c.name.like(name + '-%'))).scalars().all()
        assert len(made) == BOOTS // 2
        servers.update(dict.fromkeys(made, answered))
    return servers


def _building(engine, servers):
    return {u for u, row in _instances(engine, list(servers)).items()
            if row.vm_state == 'building'}


def _held_by(stack, virtual_host, proc):
    """The messages RabbitMQ delivered to ``proc`` that it has not
    acknowledged, and those of all clients of ``virtual_host``.
    """
    counts = stack.rabbit.unacknowledged_by_client(virtual_host)
    mine = sum(count for name, count in counts.items()
               if name.split(':')[1:2] == [str(proc.pid)])
    return mine, sum(counts.values())


def _settled(stack, virtual_host, victim, engine, servers, timeout=60):
    """Wait until RabbitMQ delivered both casts, the frozen ``victim``
    holding its share unacknowledged, and the running scheduler has taken
    the others and ended their builds: as many servers building as the
    victim holds casts. Those servers.
    """
    def settled():
        if stack.rabbit.queue_messages(virtual_host).get(
                'scheduler', (None, None))[0] != 0:
            return None         # not all delivered
        held, everyone = _held_by(stack, virtual_host, victim)
        if held != everyone:
            return None         # the other one has not taken its own
        building = _building(engine, servers)
        if len(building) != held * (BOOTS // 2):
            return None         # ... or not ended their builds
        return [building]

    return util.wait_until(
        settled, timeout, 'the running scheduler ending the builds of its '
        'casts, the frozen one holding the others')[0]


def _wait_all(url, headers, servers):
    """Every server as shown once it left BUILD (by its deadline)."""
    shown = {}
    for server_id, created in servers.items():
        left = created + DEADLINE + 10 - time.monotonic()
        shown[server_id] = helpers.wait_for_build(
            url, headers, server_id, timeout=max(left, 0))
    assert not [s for s in shown.values() if s['status'] == 'BUILD']
    return shown


def _setup(stack, engine):
    for _i in range(NODES):
        helpers.insert_node(engine, RESOURCE_CLASS, name_prefix='kill')
    helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS)
    return {'X-Auth-Token': stack.token('demo')}


def test_casts_of_a_scheduler_killed_before_taking_them(stack, vhost,
                                                        deployment, engine):
    """Killed while frozen: what it had received but not taken goes back
    to the queue, and the other scheduler builds every server.
    """
    url, schedulers = deployment
    headers = _setup(stack, engine)
    victim, survivor = schedulers['kill-a'], schedulers['kill-b']
    os.kill(victim.pid, signal.SIGSTOP)
    servers = _boot_all(url, headers, 'frozen', engine)
    # Its share waits for it (unless the other one took them all).
    waiting = _settled(stack, vhost[0], victim, engine, servers)
    os.kill(victim.pid, signal.SIGKILL)
    victim.wait(10)
    shown = _wait_all(url, headers, servers)
    assert [s['status'] for s in shown.values()] == ['ACTIVE'] * BOOTS, [
        s.get('fault') for s in shown.values()]
    with open(survivor.log_path) as f:
        log = f.read()
    for server_id in waiting:
        assert 'Instance %s is ACTIVE' % server_id in log
    assert not _orphans(engine)
    # Their nodes are free again for the next test.
    for server_id in servers:
        helpers.delete(stack, server_id)
    assert not _claims(engine)


def test_scheduler_killed_mid_build(stack, vhost, deployment, engine):
    url, schedulers = deployment
    headers = _setup(stack, engine)
    victim, survivor = schedulers['kill-a'], schedulers['kill-b']
    os.kill(victim.pid, signal.SIGSTOP)
    servers = _boot_all(url, headers, 'kill', engine)
    # The survivor built its share; the victim's waits for it.
    waiting = _settled(stack, vhost[0], victim, engine, servers)
    assert waiting, 'the frozen scheduler got no cast'
    with helpers.database_locked(stack):
        os.kill(victim.pid, signal.SIGCONT)
        # It takes its casts (acknowledged: never delivered again); their
        # claims wait for the lock.
        helpers.wait_queue(stack, vhost[0], (0, 0),
                           'the victim taking its casts')
        os.kill(victim.pid, signal.SIGSTOP)
    # Let it run 10 ms at a time until one of its claims is in the
    # database, then kill it: its builds are between claim and end.
    held = {}
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        held = _building_claims(engine)
        if held:
            break
        os.kill(victim.pid, signal.SIGCONT)
        time.sleep(0.01)
        os.kill(victim.pid, signal.SIGSTOP)
    os.kill(victim.pid, signal.SIGKILL)
    killed_at = time.monotonic()
    victim.wait(10)
    assert victim.returncode == -signal.SIGKILL
    assert held, 'the victim claimed no node'

    # Every server leaves BUILD by its deadline (GET shows an overdue
    # build as the ERROR it is).
    shown = _wait_all(url, headers, servers)
    active = {i for i, s in shown.items() if s['status'] == 'ACTIVE'}
    failed = {i: s for i, s in shown.items() if s['status'] == 'ERROR'}
    assert active | set(failed) == set(servers)
    # The builds it held were lost with it; only those failed, each with
    # the deadline's fault.
    assert set(held.values()) <= set(failed)
    assert set(failed) <= waiting
    for server in failed.values():
        assert server['fault']['code'] == 500
        assert server['fault']['message'].startswith(TIMED_OUT), server

    # The claims the kill left are freed by the survivor's clean-up once
    # their nodes have been left alone for the deadline: nothing stays
    # claimed by an instance that is not on it.
    util.wait_until(lambda: not _orphans(engine),
                    max(killed_at + DEADLINE + 4 * CLEANUP_INTERVAL + 15
                        - time.monotonic(), 1),
                    'orphan claims freed')
    claims = _claims(engine)
    rows = _instances(engine, list(servers))
    # Each ACTIVE server is on a deployed node that names it, and every
    # claim is one of those.
    for server_id in active:
        assert claims.get(rows[server_id].node_uuid) == (
            server_id, 'active'), server_id
    assert len(claims) == len(active)
    for node in held:
        assert node not in claims
    with open(survivor.log_path) as f:
        log = f.read()
    for node, instance in held.items():
        assert 'Freed node %s, claimed by instance %s which is not on it' % (
            node, instance) in log
