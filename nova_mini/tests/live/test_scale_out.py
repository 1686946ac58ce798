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

"""The layout of a cloud that outgrew one host, on one machine: two
nova-mini-api and two nova-mini-metadata processes behind HAProxy, two
nova-mini-scheduler processes consuming one queue, one PostgreSQL
database, one RabbitMQ virtual host, and one memcached shared by the
metadata processes (doc/source/admin/scaling-out.rst). Keystone and Glance
are the live stack's.

* Servers booted through either API process and through HAProxy go
  ACTIVE, and both schedulers build some of them.
* 32 concurrent reads of one instance's vendor_data2.json through HAProxy,
  spread over both metadata processes, call each DynamicJSON target once.
* One API process stopped (SIGTERM) while clients keep creating and
  reading flavors through HAProxy: every request is answered 2xx, and the
  database holds every flavor whose creation was answered, once.

The figures (requests during the stop, retries, upstream calls) are
printed; run with ``-s`` to see them.
"""

import concurrent.futures
import signal
import threading
import time
import types
import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import memcached
from nova_mini.tests.harness import haproxy
from nova_mini.tests.harness import postgresql
from nova_mini.tests.live import helpers
from nova_mini.tests.live import test_metadata as md
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = [pytest.mark.live, pytest.mark.postgresql]

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-scale-%s' % RUN
FLAVOR = 'bm-scale-%s' % RUN
SCHEDULERS = ('scale-a', 'scale-b')
APIS = ('api-a', 'api-b')
METADATAS = ('md-a', 'md-b')
BOOTS = 8
READERS = 32
LOAD_CLIENTS = 4
# The requests of the load that each API process answers before the stop,
# and that are answered after it.
LOAD_WARM_UP = 20
LOAD_AFTER_STOP = 40
VENDOR_DATA2 = '/openstack/latest/vendor_data2.json'
TARGETS = {'one': {'realm': 'one.example', 'run': RUN},
           'two': {'realm': 'two.example', 'run': RUN}}


def _target(document):
    # Slow (0.5 s), so that concurrent readers find the entry cold and
    # wait on its lock; its answer may be kept a minute.
    server = http_servers.ReplyServer(http_servers.json_reply(
        document, headers={'Cache-Control': 'max-age=60'}, delay=0.5))
    server.setUp()
    return server


@pytest.fixture(scope='module')
def deployment(stack):
    """Everything above, started; a namespace with ``api`` (HAProxy's
    compute URL), ``apis`` ``{name: compute URL}``, ``processes``
    ``{name: Process}``, ``proxy`` (the HAProxy), ``engine`` (on the
    PostgreSQL database) and ``targets`` ``{name: ReplyServer}``.
    """
    cleanups = []
    started = []
    try:
        database = postgresql.TemporaryDatabase(prefix='nova_mini_scale')
        cleanups.append(database.drop)
        vhosts = stack.rabbit.virtual_hosts('nova_mini_scale_%s' % RUN)
        transport_url = vhosts.__enter__()[0]
        cleanups.append(lambda: vhosts.__exit__(None, None, None))
        cache = memcached.MemcachedServer()
        cache.setUp()
        cleanups.append(cache.cleanUp)
        targets = {}
        for name, document in TARGETS.items():
            targets[name] = _target(document)
            cleanups.append(targets[name].cleanUp)

        # What every process of this deployment shares: the broker's
        # virtual host and the database.
        common = stack.nova.write_extra_config('scale-%s' % RUN, {
            'DEFAULT': {'transport_url': transport_url},
            'database': {'connection': database.url}})
        base = [stack.nova.conf_path, common]
        stack.nova.manage('db', 'sync', config_files=base)

        def start(script, name, sections, port=None):
            name = 'nova-mini-%s-%s' % (name, RUN)
            extra = stack.nova.write_extra_config(name, sections)
            proc = stack.nova.start(script, name=name, port=port,
                                    config_files=base + [extra],
                                    timeout=120)
            started.append(proc.name)
            return proc

        processes, ports = {}, {}
        for host in SCHEDULERS:
            processes[host] = start(nova.SCHEDULER, host, {
                'DEFAULT': {'host': host}})
        for name in APIS:
            ports[name] = util.free_port()
            processes[name] = start(nova.API, name, {'api': {
                'bind_port': ports[name], 'workers': 1}}, ports[name])
        for name in METADATAS:
            ports[name] = util.free_port()
            processes[name] = start(nova.METADATA, name, {
                'metadata': {'bind_port': ports[name], 'workers': 1},
                'api': {'vendordata_providers': 'DynamicJSON',
                        'vendordata_dynamic_targets': ','.join(
                            '%s@%s' % (t, s.url)
                            for t, s in targets.items())},
                'cache': {'enabled': 'true',
                          'backend': 'dogpile.cache.pymemcache',
                          'memcache_servers': cache.url}}, ports[name])

        # The first authenticated request of an API worker sets up its
        # Keystone middleware (slow on a loaded machine): done here, not
        # in a test's request.
        token = stack.token('admin')
        for name in APIS:
            url = 'http://%s:%d/compute/v2.1/flavors' % (
                util.LOCALHOST, ports[name])
            response = requests.get(url, headers={'X-Auth-Token': token},
                                    timeout=180)
            assert response.status_code == 200, response.text

        proxy = haproxy.HAProxy(
            stack.nova.state_dir + '/haproxy-%s' % RUN, [
                # Checks every 3 s: a stopped API process stays in for 3
                # to 6 s, so requests meet its closed port and are sent
                # to the other one (the retries under test).
                haproxy.Backend('compute', [(n, ports[n]) for n in APIS],
                                check_path='/compute/', forwardfor=True,
                                check='inter 3s fall 2 rise 1'),
                haproxy.Backend('metadata',
                                [(n, ports[n]) for n in METADATAS])])
        proxy.start(timeout=60)
        cleanups.append(proxy.stop)
        engine = sa.create_engine(database.url)
        cleanups.append(engine.dispose)
        yield types.SimpleNamespace(
            api=proxy.url('compute') + '/compute/v2.1',
            metadata=proxy.url('metadata'),
            apis={n: 'http://%s:%d/compute/v2.1' % (util.LOCALHOST, ports[n])
                  for n in APIS},
            processes=processes, proxy=proxy, engine=engine,
            targets=targets)
    finally:
        for name in reversed(started):
            stack.nova.stop(name, timeout=45)
        for cleanup in reversed(cleanups):
            cleanup()


def _make_flavor(url, headers):
    """FLAVOR: one node of RESOURCE_CLASS, made through ``url``."""
    response = requests.post(url + '/flavors', headers=headers, timeout=60,
                             json={'flavor': {'name': FLAVOR, 'id': FLAVOR,
                                              'ram': 4096, 'vcpus': 4,
                                              'disk': 50}})
    assert response.status_code == 200, response.text
    custom = 'resources:CUSTOM_%s' % RESOURCE_CLASS.upper().replace('-', '_')
    response = requests.post(
        url + '/flavors/%s/os-extra_specs' % FLAVOR, headers=headers,
        timeout=60, json={'extra_specs': {
            custom: '1', 'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
            'resources:DISK_GB': '0'}})
    assert response.status_code == 200, response.text


def _instances(engine, uuids):
    table = models.Instance.__table__
    with engine.connect() as connection:
        return {row.uuid: row for row in connection.execute(sa.select(
            table.c.uuid, table.c.vm_state, table.c.node_uuid).where(
            table.c.uuid.in_(list(uuids))))}


def _nodes(engine):
    table = models.Node.__table__
    with engine.connect() as connection:
        return {row.uuid: row.instance_uuid for row in connection.execute(
            sa.select(table.c.uuid, table.c.instance_uuid).where(
                table.c.resource_class == RESOURCE_CLASS))}


@pytest.fixture(scope='module')
def servers(stack, deployment):
    """BOOTS servers, a quarter created through each API process and half
    through HAProxy; ``{id: server as shown once out of BUILD}``.
    """
    for _i in range(BOOTS + 2):
        helpers.insert_node(deployment.engine, RESOURCE_CLASS,
                            name_prefix='scale')
    admin = {'X-Auth-Token': stack.token('admin')}
    _make_flavor(deployment.api, admin)
    # This database's own quotas: BOOTS servers of 4 vcpus are past the
    # default cores quota (20).
    helpers.lift_server_quotas(deployment.api, admin,
                               helpers.project_id(stack, 'demo'))
    headers = {'X-Auth-Token': stack.token('demo')}
    urls = ([deployment.apis[n] for n in APIS] * (BOOTS // 4)
            + [deployment.api] * (BOOTS // 2))

    def create(index):
        # helpers.create_server's, with room for a loaded machine.
        response = requests.post(urls[index] + '/servers', timeout=180,
                                 headers=headers, json={'server': {
                                     'name': 'scale-%s-%d' % (RUN, index),
                                     'flavorRef': FLAVOR,
                                     'imageRef': helpers.IMAGE}})
        assert response.status_code == 202, response.text
        return response.json()['server']['id']

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        ids = list(pool.map(create, range(BOOTS)))
    return {server_id: helpers.wait_for_build(
        deployment.api, headers, server_id, timeout=180)
        for server_id in ids}


def test_servers_boot_through_either_api_and_both_schedulers_build(
        deployment, servers):
    assert [s['status'] for s in servers.values()] == ['ACTIVE'] * BOOTS, [
        s.get('fault') for s in servers.values()]
    # Stored as shown: each instance active on a node that names it.
    rows = _instances(deployment.engine, servers)
    nodes = _nodes(deployment.engine)
    for server_id, row in rows.items():
        assert row.vm_state == 'active'
        assert nodes[row.node_uuid] == server_id
    assert len(rows) == BOOTS
    # The two schedulers are competing consumers of one queue: each built
    # some, and together all.
    built = {}
    for host in SCHEDULERS:
        with open(deployment.processes[host].log_path) as f:
            log = f.read()
        built[host] = {i for i in servers if 'Instance %s is ACTIVE' % i
                       in log}
    print('\nscale-out: builds per scheduler %s'
          % {h: len(b) for h, b in built.items()})
    assert all(built.values()), built
    assert set.union(*built.values()) == set(servers)
    assert not set.intersection(*built.values())


def test_vendordata_fetched_once_per_target_across_metadata_processes(
        stack, deployment, servers):
    server = next(iter(servers.values()))
    headers = md.signed_headers(stack.nova.metadata_secret, server['id'],
                                server['tenant_id'])
    before_calls = {n: t.calls for n, t in deployment.targets.items()}
    before_served = _served(deployment.proxy, 'metadata')
    start = threading.Barrier(READERS)

    def read(_index):
        start.wait(timeout=60)
        # A connection of its own each: HAProxy spreads them.
        return requests.get(deployment.metadata + VENDOR_DATA2,
                            headers=dict(headers, Connection='close'),
                            timeout=120)

    with concurrent.futures.ThreadPoolExecutor(READERS) as pool:
        answers = list(pool.map(read, range(READERS)))
    for resp in answers:
        assert resp.status_code == 200, resp.text
        assert resp.json() == TARGETS
    calls = {n: t.calls - before_calls[n]
             for n, t in deployment.targets.items()}
    served = {n: c - before_served[n]
              for n, c in _served(deployment.proxy, 'metadata').items()}
    print('\nscale-out: %d vendordata reads, per metadata process %s, '
          'upstream calls per target %s' % (READERS, served, calls))
    # Both processes answered some, and each target was asked once.
    assert all(served.values()) and sum(served.values()) == READERS, served
    assert calls == {'one': 1, 'two': 1}
    for target in deployment.targets.values():
        assert target.json_bodies()[-1]['instance-id'] == server['id']


def _served(proxy, backend):
    """``{server: 2xx answers so far}`` of an HAProxy backend."""
    return {server: int(row['hrsp_2xx'] or 0)
            for (px, server), row in proxy.stats().items()
            if px == backend + '_back'
            and server not in ('FRONTEND', 'BACKEND')}


def _flavor_rows(engine, prefix):
    table = models.Flavor.__table__
    with engine.connect() as connection:
        return [row.flavorid for row in connection.execute(
            sa.select(table.c.flavorid).where(
                table.c.flavorid.like(prefix + '%')))]


def test_stopping_an_api_process_loses_no_request(stack, deployment,
                                                  servers):
    url = deployment.api
    headers = {'X-Auth-Token': stack.token('admin')}
    prefix = 'load-%s-' % RUN
    done = threading.Event()
    results = []     # (started at, method, flavor id, status or error)
    lock = threading.Lock()

    def client(index):
        session = requests.Session()
        count = 0
        while not done.is_set():
            flavor_id = '%s%d-%d' % (prefix, index, count)
            count += 1
            for method in ('POST', 'GET'):
                began = time.monotonic()
                try:
                    if method == 'POST':
                        resp = session.post(
                            url + '/flavors', headers=headers, timeout=60,
                            json={'flavor': {'name': flavor_id,
                                             'id': flavor_id, 'ram': 64,
                                             'vcpus': 1, 'disk': 0}})
                    else:
                        resp = session.get(url + '/flavors/' + flavor_id,
                                           headers=headers, timeout=60)
                        if resp.status_code == 200:
                            assert (resp.json()['flavor']['name']
                                    == flavor_id)
                    outcome = resp.status_code
                except Exception as exc:
                    outcome = repr(exc)
                with lock:
                    results.append((began, method, flavor_id, outcome))

    def answered_since(began):
        with lock:
            return len([r for r in results if r[0] > began])

    victim = deployment.processes[APIS[0]]
    baseline = _served(deployment.proxy, 'compute')
    with concurrent.futures.ThreadPoolExecutor(LOAD_CLIENTS) as pool:
        futures = [pool.submit(client, i) for i in range(LOAD_CLIENTS)]
        try:
            # Both processes serve the load.
            util.wait_until(lambda: sorted(
                server for server, count in _served(
                    deployment.proxy, 'compute').items()
                if count >= baseline.get(server, 0) + LOAD_WARM_UP)
                == sorted(APIS), 60,
                'each API process answering %d requests of the load'
                % LOAD_WARM_UP)
            served_before = _served(deployment.proxy, 'compute')
            stopped_at = time.monotonic()
            victim.send_signal(signal.SIGTERM)
            code = victim.wait(60)
            exited_at = time.monotonic()
            # Load goes on on the other process alone.
            util.wait_until(lambda: answered_since(exited_at)
                            >= LOAD_AFTER_STOP, 60,
                            '%d requests answered after the stop'
                            % LOAD_AFTER_STOP)
        finally:
            done.set()
            for future in futures:
                future.result()
    stack.nova.processes.pop(victim.name, None)
    victim.stop(5)
    assert code == 0, 'the API process did not exit 0 on SIGTERM'

    stats = deployment.proxy.stats()
    back = stats[('compute_back', 'BACKEND')]
    failed = [r for r in results if not (isinstance(r[3], int)
                                         and 200 <= r[3] < 300)]
    during = [r for r in results if stopped_at <= r[0] <= exited_at]
    print('\nscale-out: %d requests through HAProxy (%d begun during the '
          '%.1f s the API process took to stop, %d after), %d failed; '
          'answered by each API before the stop %s, by the stopped one in '
          'all %s; HAProxy retries %s, redispatches %s, 5xx %s; servers %s'
          % (len(results), len(during), exited_at - stopped_at,
             len([r for r in results if r[0] > exited_at]), len(failed),
             served_before, _served(deployment.proxy, 'compute')[APIS[0]],
             back['wretr'], back['wredis'], back['hrsp_5xx'],
             deployment.proxy.server_states('compute')))
    assert not failed, failed[:10]
    # Both processes served load before the stop, and requests went on
    # while it drained and after.
    assert all(served_before.values()), served_before
    # (results are in the order answered, not begun: a slow answer to a
    # request begun before the exit may come last)
    assert during and answered_since(exited_at) >= LOAD_AFTER_STOP
    # HAProxy's health checks take the stopped process out within a few
    # check intervals (the test spaces them to let requests meet the
    # closed port first).
    deployment.proxy.wait_for_servers('DOWN', names=[('compute', APIS[0])],
                                      timeout=30)
    # Before HAProxy's checks took it out, requests met the closed port:
    # HAProxy sent them to the other process.
    assert int(back['wredis']) > 0, back
    # Nothing lost: each flavor whose creation was answered is stored,
    # once, and nothing else.
    created = sorted(r[2] for r in results if r[1] == 'POST')
    stored = sorted(_flavor_rows(deployment.engine, prefix))
    assert stored == created
    # The servers booted before are still there, ACTIVE.
    rows = _instances(deployment.engine, servers)
    assert {r.vm_state for r in rows.values()} == {'active'}
    assert len(rows) == BOOTS
