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

"""A mix of concurrent writes through the API, and the checks that every
accepted write is there afterwards: shared by the live test
(tests/live/test_write_mix_live.py) and the benchmark
(tools/bench/api_write_mix.py).

``Deployment`` runs a nova-mini-api (2 workers) and a nova-mini-scheduler
of their own (noauth2) on a RabbitMQ virtual host of their own and on a
database of the backend asked for (a SQLite file, a fresh PostgreSQL or
MariaDB database). ``WriteMix`` has ``clients`` threads write for
``duration`` seconds, each in a loop of:

* flavor creates (a new name each);
* extra-spec writes: each thread sets its own key of one of 4 shared
  flavors to a counter (the last accepted value must be the stored one);
* node trait adds and removes: each thread its own 4 trait names on 4
  shared nodes, so that the threads race past the 50-trait limit
  (refused with 400) and the last accepted answer decides each trait;
* server boots on nodes of a resource class of the run, and deletes of
  the thread's earlier servers.

``check`` then reads everything back through the API and the database:
no 5xx, no unexpected refusal, every accepted write present, no node with
more than 50 traits, no node holding two servers, every server settled.
"""

import collections
import os
import random
import threading
import time
import uuid

import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova
from nova_mini_deploy import rabbitmq
from nova_mini_deploy import util

TRAIT_LIMIT = 50
SPEC_FLAVORS = 4
TRAIT_NODES = 4
TRAITS_PER_CLIENT = 4
REQUEST_TIMEOUT = 90
# The operations and their weights.
OPERATIONS = (('flavor_create', 1), ('extra_spec', 3), ('trait', 3),
              ('boot', 1), ('delete', 1))
COMPUTE_HEADERS = {'X-Auth-Token': 'admin:admin',
                   'X-OpenStack-Nova-API-Version': '2.61'}
BAREMETAL_HEADERS = {'X-Auth-Token': 'admin:admin',
                     'X-OpenStack-Ironic-API-Version': '1.37'}


class Deployment(object):
    """An API (``workers`` workers) and a scheduler on ``connection``.

    :param state_dir: configs and logs go there.
    :param connection: the SQLAlchemy URL of an empty database.
    :param workers: API workers.
    """

    def __init__(self, state_dir, connection, workers=2):
        self.rabbit = rabbitmq.RabbitMQ()
        self.vhost = 'nova_mini_mix_%s' % uuid.uuid4().hex[:8]
        self.connection = connection
        self.nova = nova.NovaMini(
            state_dir, self.rabbit.url(self.vhost), util.free_port(),
            util.free_port(), keystone=None,
            exchange=self.vhost, api_workers=workers)
        self.nova.extra_sections = {'database': {'connection': connection}}
        self._vhost_made = False

    def __enter__(self):
        self.rabbit.ensure()
        self._vhost_made = self.rabbit.add_virtual_host(self.vhost)
        try:
            self.nova.write_config()
            self.nova.db_sync()
            self.nova.start(nova.SCHEDULER)
            self.nova.start(nova.API)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        codes = self.nova.stop_all(timeout=30)
        if self._vhost_made:
            self.rabbit.delete_virtual_host(self.vhost)
        return codes

    @property
    def compute_url(self):
        return self.nova.compute_url

    @property
    def baremetal_url(self):
        return self.nova.baremetal_url + '/v1'

    def engine(self):
        """An engine on the deployment's database (dispose of it)."""
        url = self.connection
        if url.startswith('postgresql://'):
            url = 'postgresql+psycopg2://' + url[len('postgresql://'):]
        return sa.create_engine(url, poolclass=sa.pool.NullPool)

    def log_paths(self):
        return [proc.log_path for proc in self.nova.processes.values()]


class Result(object):
    """What the clients saw: latencies, statuses, accepted writes."""

    def __init__(self):
        self.lock = threading.Lock()
        self.latencies = []
        self.counts = collections.Counter()   # (operation, status)
        self.server_errors = []               # 5xx: (op, status, body)
        self.unexpected = []                  # other surprises
        self.transport_errors = []
        self.flavors = {}                     # flavorid: name
        self.specs = {}                       # (flavor, key): value
        self.traits = {}                      # (node, trait): present
        self.unknown_traits = set()           # answer lost: undecided
        self.trait_limit_refusals = 0
        self.booted = set()                   # server ids (202)
        self.deleted = set()                  # server ids (204)
        self.elapsed = 0.0

    @property
    def requests(self):
        return len(self.latencies)

    def per_second(self):
        return self.requests / self.elapsed if self.elapsed else 0.0

    def percentile(self, fraction):
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]

    def summary(self):
        return {
            'requests': self.requests,
            'seconds': round(self.elapsed, 1),
            'requests_per_s': round(self.per_second(), 1),
            'p50_ms': round(self.percentile(0.50) * 1000, 1),
            'p99_ms': round(self.percentile(0.99) * 1000, 1),
            'status_counts': {'%s %s' % key: n for key, n in
                              sorted(self.counts.items())},
            'server_errors': len(self.server_errors),
            'trait_limit_refusals': self.trait_limit_refusals,
        }


class WriteMix(object):
    """The workload on a Deployment (or any compute and baremetal URLs
    whose database ``engine`` reaches).
    """

    def __init__(self, compute_url, baremetal_url, engine, clients=64,
                 duration=15.0, boot_nodes=200, seed=None):
        self.compute_url = compute_url
        self.baremetal_url = baremetal_url
        self.engine = engine
        self.clients = clients
        self.duration = duration
        self.boot_nodes = boot_nodes
        self.random = random.Random(seed)
        self.run_id = uuid.uuid4().hex[:6]
        # An image id, as Nova's schema wants (noauth2, no Glance: kept).
        self.image_ref = str(uuid.uuid4())
        self.resource_class = 'mix-%s' % self.run_id
        self.boot_flavor = 'mix-boot-%s' % self.run_id
        self.spec_flavors = ['mix-spec-%s-%d' % (self.run_id, i)
                             for i in range(SPEC_FLAVORS)]
        self.trait_nodes = []
        self.node_uuids = set()
        self._local = threading.local()
        self.result = Result()
        self.operations = OPERATIONS
        self.statuses = collections.Counter()
        self.faults = collections.Counter()     # ERROR servers' faults

    # -- HTTP

    def _session(self):
        if not hasattr(self._local, 'session'):
            self._local.session = requests.Session()
        return self._local.session

    def _call(self, operation, method, url, headers, body=None,
              expected=(200,)):
        """One request, timed and classified; the response or None."""
        start = time.monotonic()
        try:
            resp = self._session().request(method, url, json=body,
                                           headers=headers,
                                           timeout=REQUEST_TIMEOUT)
        except requests.RequestException as exc:
            with self.result.lock:
                self.result.transport_errors.append(
                    (operation, method, url, repr(exc)))
            return None
        latency = time.monotonic() - start
        with self.result.lock:
            self.result.latencies.append(latency)
            self.result.counts[(operation, resp.status_code)] += 1
            if resp.status_code >= 500:
                self.result.server_errors.append(
                    (operation, method, url, resp.status_code,
                     resp.text[:300]))
            elif resp.status_code not in expected:
                self.result.unexpected.append(
                    (operation, method, url, resp.status_code,
                     resp.text[:300]))
        return resp

    def _compute(self, operation, method, path, body=None, expected=(200,)):
        return self._call(operation, method, self.compute_url + path,
                          COMPUTE_HEADERS, body, expected)

    def _baremetal(self, operation, method, path, body=None,
                   expected=(200,)):
        return self._call(operation, method, self.baremetal_url + path,
                          BAREMETAL_HEADERS, body, expected)

    # -- set-up

    def setup(self):
        """Make the shared flavors and the nodes (before the clients)."""
        placement = 'CUSTOM_' + self.resource_class.upper().replace('-', '_')
        # The clients' boots add up past the default instances quota (10)
        # of their project, noauth2's admin: the mix is about lost
        # writes, not quotas.
        resp = self._compute('setup', 'PUT', '/os-quota-sets/admin', {
            'quota_set': {'instances': -1, 'cores': -1, 'ram': -1}})
        assert resp is not None and resp.status_code == 200, resp
        for name in [self.boot_flavor] + self.spec_flavors:
            resp = self._compute('setup', 'POST', '/flavors', {'flavor': {
                'name': name, 'id': name, 'ram': 1024, 'vcpus': 1,
                'disk': 10}})
            assert resp is not None and resp.status_code == 200, resp
        resp = self._compute(
            'setup', 'POST', '/flavors/%s/os-extra_specs' % self.boot_flavor,
            {'extra_specs': {'resources:%s' % placement: '1',
                             'resources:VCPU': '0',
                             'resources:MEMORY_MB': '0',
                             'resources:DISK_GB': '0'}})
        assert resp is not None and resp.status_code == 200, resp
        for _ in range(self.boot_nodes):
            self.node_uuids.add(helpers.insert_node(
                self.engine, self.resource_class, name_prefix='mix'))
        for _ in range(TRAIT_NODES):
            self.trait_nodes.append(helpers.insert_node(
                self.engine, 'mix-traits-%s' % self.run_id,
                name_prefix='mixt'))
        self.result = Result()

    # -- the clients

    def run(self):
        """Run the clients for ``duration`` seconds; the Result."""
        weights = [w for _op, w in self.operations]
        names = [op for op, _w in self.operations]
        stop_at = time.monotonic() + self.duration
        seeds = [self.random.random() for _ in range(self.clients)]

        def client(index):
            rng = random.Random(seeds[index])
            own_servers = []
            counter = 0
            while time.monotonic() < stop_at:
                counter += 1
                operation = rng.choices(names, weights)[0]
                getattr(self, '_' + operation)(index, counter, rng,
                                               own_servers)

        threads = [threading.Thread(target=client, args=(i,), daemon=True)
                   for i in range(self.clients)]
        start = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(self.duration + REQUEST_TIMEOUT * 2)
        self.result.elapsed = time.monotonic() - start
        stuck = [t for t in threads if t.is_alive()]
        assert not stuck, '%d clients still running' % len(stuck)
        return self.result

    def _flavor_create(self, index, counter, rng, own_servers):
        name = 'mix-f-%s-%d-%d' % (self.run_id, index, counter)
        resp = self._compute('flavor_create', 'POST', '/flavors', {
            'flavor': {'name': name, 'id': name, 'ram': 64 + counter,
                       'vcpus': 1, 'disk': 0}})
        if resp is not None and resp.status_code == 200:
            with self.result.lock:
                self.result.flavors[name] = 64 + counter

    def _extra_spec(self, index, counter, rng, own_servers):
        flavor = rng.choice(self.spec_flavors)
        key = 'mix:client%d' % index
        resp = self._compute(
            'extra_spec', 'POST', '/flavors/%s/os-extra_specs' % flavor,
            {'extra_specs': {key: str(counter)}})
        if resp is not None and resp.status_code == 200:
            # One client writes its key in order: the last accepted wins.
            with self.result.lock:
                self.result.specs[(flavor, key)] = str(counter)

    def _trait(self, index, counter, rng, own_servers):
        node = rng.choice(self.trait_nodes)
        trait = 'CUSTOM_MIX_C%d_%d' % (index, rng.randrange(
            TRAITS_PER_CLIENT))
        path = '/nodes/%s/traits/%s' % (node, trait)
        add = rng.random() < 0.7
        resp = self._baremetal('trait', 'PUT' if add else 'DELETE', path,
                               expected=(204, 400) if add else (204, 404))
        with self.result.lock:
            if resp is None:
                self.result.unknown_traits.add((node, trait))
            elif resp.status_code == 204:
                self.result.traits[(node, trait)] = add
            elif add and resp.status_code == 400:
                if 'trait' not in resp.text.lower():
                    self.result.unexpected.append(
                        ('trait', 'PUT', path, 400, resp.text[:300]))
                self.result.trait_limit_refusals += 1
            elif not add and resp.status_code == 404:
                self.result.traits[(node, trait)] = False

    def _boot(self, index, counter, rng, own_servers):
        resp = self._compute('boot', 'POST', '/servers', {'server': {
            'name': 'mix-%s-%d-%d' % (self.run_id, index, counter),
            'flavorRef': self.boot_flavor,
            'imageRef': self.image_ref}}, expected=(202,))
        if resp is not None and resp.status_code == 202:
            server_id = resp.json()['server']['id']
            own_servers.append(server_id)
            with self.result.lock:
                self.result.booted.add(server_id)

    def _delete(self, index, counter, rng, own_servers):
        if not own_servers:
            return self._boot(index, counter, rng, own_servers)
        server_id = own_servers.pop(0)
        resp = self._compute('delete', 'DELETE', '/servers/%s' % server_id,
                             expected=(204, 404))
        if resp is not None and resp.status_code in (204, 404):
            with self.result.lock:
                self.result.deleted.add(server_id)
        elif resp is not None:
            own_servers.append(server_id)

    # -- the checks

    def check(self, settle_seconds=120):
        """Read every accepted write back; a list of problems (empty when
        all is as the clients were told).
        """
        result = self.result
        problems = ['5xx: %s' % (e,) for e in result.server_errors[:10]]
        problems += ['unexpected: %s' % (e,) for e in result.unexpected[:10]]
        problems += ['transport: %s' % (e,)
                     for e in result.transport_errors[:10]]
        problems += self._check_flavors() + self._check_specs()
        problems += self._check_traits()
        problems += self._check_servers(settle_seconds)
        return problems

    def _get(self, url, headers):
        resp = requests.get(url, headers=headers, timeout=REQUEST_TIMEOUT)
        return resp

    def _check_flavors(self):
        problems = []
        listed = {}
        url = self.compute_url + '/flavors/detail?limit=1000'
        while url:
            body = self._get(url, COMPUTE_HEADERS).json()
            listed.update((f['id'], f['ram']) for f in body['flavors'])
            links = [link['href'] for link in body.get('flavors_links', [])
                     if link['rel'] == 'next']
            url = links[0] if links else None
        for flavorid, ram in self.result.flavors.items():
            if listed.get(flavorid) != ram:
                problems.append('flavor %s: %r stored, %r accepted'
                                % (flavorid, listed.get(flavorid), ram))
        return problems

    def _check_specs(self):
        problems = []
        for flavor in self.spec_flavors:
            stored = self._get(
                self.compute_url + '/flavors/%s/os-extra_specs' % flavor,
                COMPUTE_HEADERS).json()['extra_specs']
            for (spec_flavor, key), value in self.result.specs.items():
                if spec_flavor == flavor and stored.get(key) != value:
                    problems.append('flavor %s spec %s: %r stored, %r '
                                    'accepted last' % (flavor, key,
                                                       stored.get(key),
                                                       value))
        return problems

    def _check_traits(self):
        problems = []
        for node in self.trait_nodes:
            traits = set(self._get(
                self.baremetal_url + '/nodes/%s/traits' % node,
                BAREMETAL_HEADERS).json()['traits'])
            if len(traits) > TRAIT_LIMIT:
                problems.append('node %s has %d traits' % (node,
                                                           len(traits)))
            for (trait_node, trait), present in self.result.traits.items():
                if trait_node != node or (node, trait) in \
                        self.result.unknown_traits:
                    continue
                if (trait in traits) != present:
                    problems.append('node %s trait %s: %s, the last '
                                    'accepted answer said %s' % (
                                        node, trait, trait in traits,
                                        present))
        return problems

    def _check_nodes(self, statuses):
        """(problems, nodes holding a server that no longer exists)."""
        problems, orphans = [], []
        nodes, instances = models.Node.__table__, models.Instance.__table__
        with self.engine.connect() as connection:
            held = connection.execute(
                sa.select(nodes.c.uuid, nodes.c.instance_uuid).where(
                    nodes.c.uuid.in_(sorted(self.node_uuids)),
                    nodes.c.instance_uuid.isnot(None))).all()
            placed = connection.execute(
                sa.select(instances.c.node_uuid, sa.func.count()).where(
                    instances.c.node_uuid.isnot(None)).group_by(
                        instances.c.node_uuid)).all()
            where = dict(connection.execute(
                sa.select(instances.c.uuid, instances.c.node_uuid).where(
                    instances.c.node_uuid.isnot(None))).all())
            existing = set(connection.execute(
                sa.select(instances.c.uuid)).scalars())
        doubled = [(node, n) for node, n in placed if n > 1]
        if doubled:
            problems.append('nodes with two servers: %s' % doubled[:5])
        for node, instance in held:
            if instance not in existing:
                orphans.append('node %s holds %s, which no longer exists'
                               % (node, instance))
            elif where.get(instance) != node:
                problems.append('node %s holds %s, which is on %s' % (
                    node, instance, where.get(instance)))
        holders = {instance for _node, instance in held}
        for server_id, status in statuses.items():
            if status == 'ACTIVE' and server_id not in holders:
                problems.append('ACTIVE server %s holds no node'
                                % server_id)
        return problems, orphans

    def _check_servers(self, settle_seconds):
        problems = []
        alive = self.result.booted - self.result.deleted
        statuses, faults = {}, {}
        pending = set(alive)
        end = time.monotonic() + settle_seconds
        while pending and time.monotonic() < end:
            for server_id in sorted(pending):
                resp = self._get(self.compute_url + '/servers/%s'
                                 % server_id, COMPUTE_HEADERS)
                if resp.status_code != 200:
                    problems.append('server %s: GET %d' % (
                        server_id, resp.status_code))
                    pending.discard(server_id)
                    continue
                server = resp.json()['server']
                statuses[server_id] = server['status']
                if server['status'] == 'ERROR':
                    faults[server_id] = server.get('fault', {}).get(
                        'message', '')
                if server['status'] != 'BUILD':
                    pending.discard(server_id)
            if pending:
                time.sleep(0.5)
        if pending:
            problems.append('%d servers still BUILD after %ds' % (
                len(pending), settle_seconds))
        for server_id in self.result.deleted:
            resp = self._get(self.compute_url + '/servers/%s' % server_id,
                             COMPUTE_HEADERS)
            if resp.status_code != 404:
                problems.append('deleted server %s: GET %d' % (
                    server_id, resp.status_code))
        # A build that a scheduler finishes after its server was deleted
        # holds its node until that scheduler frees it (servers.py): the
        # database checks are retried for a while for those.
        end = time.monotonic() + 30
        while True:
            found, orphans = self._check_nodes(statuses)
            if not orphans or time.monotonic() > end:
                break
            time.sleep(1)
        problems += found + orphans
        self.statuses = collections.Counter(statuses.values())
        self.faults = collections.Counter(faults.values())
        return problems


def log_tails(deployment, lines=40):
    """The ends of the deployment's logs, for a failure report."""
    parts = []
    for path in deployment.log_paths():
        if os.path.exists(path):
            parts.append('---- %s\n%s' % (path, util.tail(path, lines)))
    return '\n'.join(parts)
