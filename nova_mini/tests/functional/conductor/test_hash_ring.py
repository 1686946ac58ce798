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

"""The conductors' hash ring over the registry: nodes spread over the
alive conductors of their hardware type, a conductor leaving moves only
its own nodes, the copy refreshed every hash_ring_reset_interval, and
Ironic's no-valid-host error when no conductor drives the node.
"""

import collections
import datetime
import uuid

from oslo_utils import timeutils
import pytest

from nova_mini.conductor import hash_ring
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor as conductor_obj

Node = collections.namedtuple('Node', 'uuid driver conductor_group')

NODES = [Node(str(uuid.UUID(int=i * 7919 + 1)), 'redfish', '')
         for i in range(600)]


class Clock(object):
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def ring(conf, clock):
    return hash_ring.HashRingManager(clock=clock)


def _register(admin, host, drivers=('redfish',)):
    conductor_obj.register_host(admin, host, list(drivers))


def _age(engine, host, seconds):
    with engine.begin() as connection:
        connection.execute(models.Conductor.__table__.update().where(
            models.Conductor.hostname == host).values(
                updated_at=timeutils.utcnow() - datetime.timedelta(
                    seconds=seconds)))


@db_api.context_manager.writer
def _offline(context, host):
    conductor_obj.unregister(context.session, host)


def _mapping(ring, admin):
    return {node.uuid: ring.host_for(admin, node) for node in NODES}


def test_nodes_spread_over_the_conductors(admin, ring):
    for host in ('c-1', 'c-2', 'c-3'):
        _register(admin, host)
    counts = collections.Counter(_mapping(ring, admin).values())
    assert set(counts) == {'c-1', 'c-2', 'c-3'}
    # 32 partitions each: every conductor has a fair share.
    for count in counts.values():
        assert 100 < count < 320, counts


def test_a_conductor_leaving_moves_only_its_nodes(admin, ring, clock):
    for host in ('c-1', 'c-2', 'c-3'):
        _register(admin, host)
    before = _mapping(ring, admin)
    _offline(admin, 'c-2')
    # The copy is kept for hash_ring_reset_interval seconds.
    assert _mapping(ring, admin) == before
    clock.now += 15
    after = _mapping(ring, admin)
    moved = {node for node in before if before[node] != after[node]}
    assert moved == {node for node, host in before.items() if host == 'c-2'}
    assert set(after.values()) == {'c-1', 'c-3'}
    # Back: each node returns to the conductor it had.
    _register(admin, 'c-2')
    ring.reset()
    assert _mapping(ring, admin) == before


def test_a_conductor_joining_takes_nodes_from_the_others_only(admin, ring):
    for host in ('c-1', 'c-2'):
        _register(admin, host)
    before = _mapping(ring, admin)
    _register(admin, 'c-3')
    ring.reset()
    after = _mapping(ring, admin)
    for node, host in after.items():
        assert host in (before[node], 'c-3')
    assert 100 < list(after.values()).count('c-3') < 320


def test_only_alive_conductors_of_the_driver_and_group(conf, engine, admin,
                                                       ring):
    _register(admin, 'api-1', ['fake-hardware'])
    _register(admin, 'dead')
    _age(engine, 'dead', conf.conf.conductor.heartbeat_timeout + 5)
    with pytest.raises(exception_baremetal.NoValidConductor) as caught:
        ring.host_for(admin, NODES[0])
    assert caught.value.format_message() == (
        'No valid host was found. Reason: No conductor service registered '
        'which supports driver redfish for conductor group "".')
    _register(admin, 'alive')
    ring.reset()
    assert set(_mapping(ring, admin).values()) == {'alive'}
    assert ring.hosts_for_driver(admin, 'redfish') == ['alive']
    assert ring.hosts_for_driver(admin, 'ipmi') == []
    grouped = Node(NODES[0].uuid, 'redfish', 'rack-2')
    with pytest.raises(exception_baremetal.NoValidConductor) as caught:
        ring.host_for(admin, grouped)
    assert 'conductor group "rack-2"' in caught.value.format_message()


def test_every_service_agrees(admin, conf, clock):
    for host in ('c-1', 'c-2', 'c-3'):
        _register(admin, host)
    first = hash_ring.HashRingManager(clock=clock)
    second = hash_ring.HashRingManager(clock=clock)
    assert _mapping(first, admin) == _mapping(second, admin)


def test_partitions_follow_the_exponent(admin, conf, clock):
    conf.config(hash_partition_exponent=2)
    _register(admin, 'c-1')
    manager = hash_ring.HashRingManager(clock=clock)
    (ring,) = manager.rings(admin).values()
    assert ring.nodes == {'c-1': 1}
    assert len(ring._ring) == 4


def test_a_miss_rebuilds_the_rings_once(admin, ring):
    _register(admin, 'c-1')
    assert ring.host_for(admin, NODES[0]) == 'c-1'
    # A conductor of another hardware type registers: the copy (younger
    # than hash_ring_reset_interval) does not have it...
    _register(admin, 'i-1', ['ipmi'])
    other = Node(NODES[0].uuid, 'ipmi', '')
    with pytest.raises(exception_baremetal.NoValidConductor):
        ring.host_for(admin, other, rebuild=False)
    # ... but a miss rebuilds the rings before it is answered.
    assert ring.host_for(admin, other) == 'i-1'
    # A hit does not rebuild them.
    _register(admin, 'i-2', ['ipmi'])
    assert ring.host_for(admin, other) == 'i-1'
    assert ring.hosts_for_driver(admin, 'ipmi') == ['i-1']
    # Still none after the rebuild: NoValidConductor.
    with pytest.raises(exception_baremetal.NoValidConductor):
        ring.host_for(admin, Node(NODES[0].uuid, 'idrac', ''))


def test_owns_reads_the_rings_as_they_are(admin, ring):
    _register(admin, 'c-1')
    _register(admin, 'c-2')
    hosts = _mapping(ring, admin)
    for node in NODES[:20]:
        assert ring.owns(admin, node, hosts[node.uuid])
        assert not ring.owns(admin, node, 'c-3')
    # A conductor of another hardware type registers: a miss is an answer
    # (not this host's), not a rebuild.
    _register(admin, 'i-1', ['ipmi'])
    other = Node(NODES[0].uuid, 'ipmi', '')
    assert not ring.owns(admin, other, 'i-1')
    ring.reset()
    assert ring.owns(admin, other, 'i-1')
