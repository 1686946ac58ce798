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

"""Two nova-mini-scheduler processes consume one topic on a real RabbitMQ
and claim nodes in one SQLite database for 100 concurrent boots: no node
is ever given to two instances.

The claim happens in the scheduler (RPC ``claim_destinations``): it
selects a node and alternates, claims with a conditional UPDATE and moves
on to the next alternate when another scheduler won the node.

NOTE: both schedulers and the client use a RabbitMQ virtual host of their
own. A control exchange of their own would not keep them apart:
oslo.messaging's rabbit driver names a topic's queue after the topic
alone ("scheduler"), so every scheduler on the broker, whatever its
exchange (the stack's own, other test runs'), consumes the same queue.
"""

import concurrent.futures
import uuid

import pytest
import sqlalchemy as sa

from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import request_spec
from nova_mini import rpc
from nova_mini.scheduler import rpcapi
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova

pytestmark = pytest.mark.live

CONF = conf.CONF
NODES = 120
REQUESTS = 100
RESOURCE_CLASS = 'baremetal-live'
TRAIT = 'CUSTOM_LIVE_CLAIMS'


@pytest.fixture
def vhost(stack):
    """A RabbitMQ virtual host of this test; its transport URL."""
    name = 'nova_mini_claims_%s' % uuid.uuid4().hex[:8]
    with stack.rabbit.virtual_hosts(name) as urls:
        yield urls[0]


@pytest.fixture
def schedulers(stack, vhost):
    """Two extra schedulers (hosts sched-a and sched-b) on a virtual host
    of their own; yields the config files a client of them reads.
    """
    started, files = [], []
    for host in ('sched-a', 'sched-b'):
        name = 'nova-mini-scheduler-%s' % host
        extra = stack.nova.write_extra_config(name, {
            'DEFAULT': {'host': host, 'transport_url': vhost},
            'filter_scheduler': {'weighers': 'RAMWeigher,RandomWeigher',
                                 'host_subset_size': 8,
                                 'max_attempts': 5}})
        files = [stack.nova.conf_path, extra]
        proc = stack.nova.start(nova.SCHEDULER, name=name,
                                config_files=files)
        started.append(proc)
    yield files, started
    for proc in started:
        stack.nova.stop(proc.name, timeout=30)


@pytest.fixture
def client_conf(schedulers):
    files, _procs = schedulers
    rpc.register_opts(CONF)
    argv = []
    for path in files:
        argv += ['--config-file', path]
    CONF(argv, project='nova_mini', default_config_files=[])
    yield CONF
    rpc.cleanup()
    CONF.clear()


def _create_nodes(engine):
    return {
        helpers.insert_node(
            engine, RESOURCE_CLASS, [TRAIT], 'claims',
            properties={'cpus': 8, 'memory_mb': 8192 + i, 'local_gb': 100,
                        'cpu_arch': 'x86_64'})
        for i in range(NODES)}


def _spec():
    flavor = objects.Flavor(
        id=1, flavorid='bm-live', name='bm.live', memory_mb=4096, vcpus=4,
        root_gb=50, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=None, is_public=True, disabled=False, description=None,
        extra_specs={'resources:CUSTOM_BAREMETAL_LIVE': '1',
                     'trait:%s' % TRAIT: 'required'},
        created_at=None, updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


def test_two_schedulers_never_double_book(stack, schedulers, client_conf,
                                          engine):
    objects.register_all()
    node_uuids = _create_nodes(engine)
    api = rpcapi.SchedulerAPI(client_conf)
    ctxt = nm_context.get_admin_context()

    def boot(_index):
        instance_uuid = str(uuid.uuid4())
        try:
            [selection] = api.claim_destinations(ctxt, _spec(),
                                                 [instance_uuid], timeout=90)
        except exception.NoValidHost as exc:
            return instance_uuid, exc
        return instance_uuid, selection.node_uuid

    with concurrent.futures.ThreadPoolExecutor(REQUESTS) as pool:
        results = list(pool.map(boot, range(REQUESTS)))

    failures = [r for _u, r in results if isinstance(r, Exception)]
    claimed = {u: r for u, r in results if not isinstance(r, Exception)}
    # No node given twice, every node claimed is one of ours.
    assert len(set(claimed.values())) == len(claimed)
    assert set(claimed.values()) <= node_uuids
    # The database holds exactly what each caller was told.
    table = models.Node.__table__
    with engine.connect() as connection:
        rows = dict(connection.execute(
            sa.select(table.c.uuid, table.c.instance_uuid).where(
                table.c.uuid.in_(sorted(node_uuids)))).all())
    assert {n: i for i, n in claimed.items()} == {
        n: i for n, i in rows.items() if i is not None}
    # 120 nodes for 100 boots: lost races end on alternates, not in
    # failures.
    assert not failures, failures[:3]
    assert len(claimed) == REQUESTS
    # Both schedulers took part (competing consumers of one topic).
    _files, procs = schedulers
    for proc in procs:
        with open(proc.log_path) as f:
            assert 'Claimed node' in f.read(), proc.name
