#!/usr/bin/env python3
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

"""Redfish deploys through nova-mini-conductor, and the power sync's cost.

``deploy``: for each conductor count of ``--conductors`` (1,2), a fresh
deployment: a RabbitMQ virtual host, a database (SQLite or PostgreSQL),
Glance without authentication holding one ISO image, the images web
server of the conductors' ``[deploy] http_root``, ``--emulators`` (1)
sushy-tools emulators sharing ``--nodes`` (100) fake systems at the
emulator's own power delays (0-11 s; ``--power-delay LOW,HIGH`` narrows
them), nova-mini-api, a
nova-mini-scheduler and N nova-mini-conductor processes (hosts
``bench-conductor-<i>``). The nodes are enrolled through the bare-metal
API (``redfish`` driver, one per system), managed (the conductor reads
the BMC) and provided; then ``--nodes`` servers are created through the
compute API at once (``--clients`` threads) and the server list is read
every ``--poll`` seconds until each is ACTIVE or ERROR (``--via
baremetal``: the nodes themselves deployed through the bare-metal API,
``instance_info/image_source`` the ISO then provision ``active``, and the
node list read until each is ``active`` or ``deploy failed``: the
conductor's part alone, without the scheduler and Nova's polling of the
node every ``[ironic] api_retry_interval``). Figures per
conductor count: time from a server's create request to ACTIVE (p50,
p95, max), successful deploys per minute (servers ACTIVE over the time
from the first create to the last ACTIVE), the conductors' CPU seconds,
the share of the deploys each conductor did (the nodes' ``conductor``)
and the emulators' requests per deploy (their logs' request lines over
the deploys, a power sync pass included if one fell in).

``sync``: the power state sync of one conductor (its PowerSync, the
redfish driver through sushy, the hash ring, the database) over
``--sync-nodes`` (1000) redfish nodes spread over ``--sync-emulators``
emulators, run in a child process per backend of ``--backends``
(sqlite,postgresql) that does nothing else: wall time and CPU seconds of
the process per pass (``--passes`` passes after a warm-up pass that
opens the sessions to the BMCs, the median reported; every node in sync
with its BMC, so a pass reads each BMC once).

Goals (exit status 1 when one is missed):

- deploy: every server ACTIVE (no deploy failed, none left building);
  p50 time-to-ACTIVE within ``--max-overhead`` (10) seconds of the
  emulator's median power-on delay (5.5 s at its defaults: a deploy of a
  powered-off node waits for one power on); with 2 conductors, the hash
  ring splits the deploys: each conductor did ``--min-share`` (30) to
  70 % of them; with the emulator's delays at 0 (``--power-delay 0,0``;
  spread the systems over several emulators too, ``--emulators 4``: one
  emulator answers about 200-260 requests/s), 2 conductors at least
  ``--min-scaling`` (1.6) times the deploys per minute of 1 on a machine
  of at least ``--scaling-cores`` (4) CPUs, where a second conductor has
  a core to run on; on fewer (the 2-core machine these figures come
  from: the services and the client fill both cores, and a second
  conductor adds no capacity) 2 conductors lose at most ``--max-loss``
  (15) % of the deploys per minute of 1;
- sync: a pass over 1,000 nodes at most ``--max-sync-wall`` (30) s, half
  the default ``[conductor] sync_power_state_interval`` (60), and at
  most ``--max-sync-cpu`` (6) CPU seconds, a tenth of one core over that
  interval; every node read (none failed).

The output ends with the tree and the load average before and after.
Run it under the benchmarks' lock::

    flock /tmp/nova_mini-bench.lock .venv-tests/bin/python \\
        tools/bench/redfish_deploy.py deploy --json-out /tmp/rf-deploy.json
    flock /tmp/nova_mini-bench.lock .venv-tests/bin/python \\
        tools/bench/redfish_deploy.py sync
"""

import argparse
import collections
import concurrent.futures
import io
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _record  # noqa: E402  (the tree, the load, the goals)

# The emulator's power change: shown after int(now) + randint(1, 11)
# seconds, so 0 to 11 s after the request, median 5.5 s.
EMULATOR_DELAY = (1, 11)
CONDUCTOR_HOST = 'bench-conductor-%d'
RESOURCE_CLASS = 'bench-redfish'
FLAVOR = 'bench-redfish'
COMPUTE_HEADERS = {'X-Auth-Token': 'admin:admin',
                   'X-OpenStack-Nova-API-Version': '2.61'}
BAREMETAL_HEADERS = {'X-Auth-Token': 'admin:admin',
                     'X-OpenStack-Ironic-API-Version': '1.65'}
REQUEST_TIMEOUT = 60


# -- pure helpers (tests/unit/test_bench_redfish_deploy.py)

def percentile(values, fraction):
    """The nearest-rank percentile of ``values`` (None when empty)."""
    ordered = sorted(values)
    if not ordered:
        return None
    rank = max(1, -(-len(ordered) * fraction // 1))
    return ordered[int(min(rank, len(ordered))) - 1]


def median_delay(delay):
    """The median time a power change of the emulator takes to show, for
    its ``randint(low, high)`` delay (None: its own 1-11) added to a
    truncated ``int(now)``: (low + high) / 2 - 0.5, at least 0.
    """
    low, high = delay or EMULATOR_DELAY
    return max(0.0, (low + high) / 2.0 - 0.5)


def deploy_figures(created, finished, statuses):
    """Figures of one deploy run.

    :param created: {server: monotonic time its create was sent}.
    :param finished: {server: monotonic time it was first seen ended}.
    :param statuses: {server: the status it ended in (ACTIVE, ERROR) or
        None when it never ended}.
    """
    active = [s for s, status in statuses.items() if status == 'ACTIVE']
    times = [finished[s] - created[s] for s in active]
    figures = {'servers': len(statuses), 'active': len(active),
               'error': sum(1 for v in statuses.values() if v == 'ERROR'),
               'unfinished': sum(1 for v in statuses.values() if v is None),
               'p50_s': percentile(times, 0.5),
               'p95_s': percentile(times, 0.95),
               'max_s': max(times) if times else None,
               'span_s': None, 'per_minute': 0.0}
    if active:
        span = max(finished[s] for s in active) - min(created.values())
        figures['span_s'] = span
        figures['per_minute'] = len(active) * 60.0 / span if span else 0.0
    return figures


# A request line of the emulator's log (werkzeug's).
REQUEST_LINE = re.compile(
    r'"(GET|POST|PATCH|PUT|DELETE) (\S+) HTTP/[0-9.]+" (\d{3})')


def request_kind(method, path):
    """What an emulator request was, for the per-deploy counts."""
    path = path.split('?')[0].rstrip('/')
    if method == 'POST' and '/Actions/' in path:
        return path.rsplit('/Actions/', 1)[1]
    if '/VirtualMedia' in path:
        tail = path.rsplit('/VirtualMedia', 1)[1]
        return '%s VirtualMedia%s' % (method, ' device' if tail else '')
    if re.search(r'/Systems/[^/]+$', path):
        return '%s System' % method
    return '%s other' % method


def count_requests(lines):
    """{kind: count} of the request lines among ``lines``."""
    counts = collections.Counter()
    for line in lines:
        match = REQUEST_LINE.search(line)
        if match:
            counts[request_kind(match.group(1), match.group(2))] += 1
    return dict(counts)


def conductor_shares(nodes):
    """{conductor: deploys} of the nodes that ended ``active``."""
    shares = collections.Counter(
        node.get('conductor') or '-' for node in nodes
        if node['provision_state'] == 'active')
    return dict(shares)


def deploy_goals(runs, delay, max_overhead, min_scaling, cores=None,
                 scaling_cores=4, max_loss=0.15, min_share=0.3):
    """[(goal, met, measured)] of the deploy runs ({conductors:
    figures}).

    :param cores: the machine's CPUs (os.cpu_count()): below
        ``scaling_cores`` a second conductor has no core of its own and
        the scaling goal is at most ``max_loss`` lost rather than
        ``min_scaling`` gained.
    """
    cores = cores or os.cpu_count() or 1
    goals = []
    bound = median_delay(delay) + max_overhead
    for conductors, fig in sorted(runs.items()):
        goals.append(('%d conductor(s): every server ACTIVE' % conductors,
                      fig['active'] == fig['servers'] and fig['servers'] > 0,
                      '%d ACTIVE, %d ERROR, %d unfinished of %d' % (
                          fig['active'], fig['error'], fig['unfinished'],
                          fig['servers'])))
        p50 = fig['p50_s']
        goals.append(('%d conductor(s): p50 time-to-ACTIVE <= %.1f s (the '
                      "emulator's median delay %.1f + %.1f)" % (
                          conductors, bound, median_delay(delay),
                          max_overhead),
                      p50 is not None and p50 <= bound,
                      '-' if p50 is None else '%.1f s' % p50))
        if conductors == 2:
            shares = fig.get('deploys_by_conductor') or {}
            done = sum(shares.values())
            fractions = sorted(
                (host, count / float(done) if done else 0.0)
                for host, count in shares.items())
            goals.append((
                '2 conductors: each did %d-%d %% of the deploys (the hash '
                'ring)' % (100 * min_share, 100 * (1 - min_share)),
                len(fractions) == 2 and all(
                    min_share <= f <= 1 - min_share for _h, f in fractions),
                ', '.join('%s %.0f %%' % (h, 100 * f)
                          for h, f in fractions) or 'none'))
    if delay == (0, 0) and 1 in runs and 2 in runs:
        one, two = runs[1]['per_minute'], runs[2]['per_minute']
        ratio = two / one if one else 0.0
        if cores >= scaling_cores:
            goals.append(('2 conductors >= %.1fx the deploys per minute of '
                          '1 (emulator delays 0, %d CPUs)'
                          % (min_scaling, cores),
                          ratio >= min_scaling, '%.2fx' % ratio))
        else:
            goals.append((
                '2 conductors >= %.2fx the deploys per minute of 1 '
                '(emulator delays 0; %d CPUs, fewer than the %d the '
                '%.1fx goal needs)' % (1 - max_loss, cores, scaling_cores,
                                       min_scaling),
                ratio >= 1 - max_loss - 1e-9, '%.2fx' % ratio))
    return goals


def sync_goals(results, nodes, max_wall, max_cpu):
    """[(goal, met, measured)] of the sync runs ({backend: result});
    the bounds are per 1,000 nodes.
    """
    goals = []
    scale = nodes / 1000.0
    for backend, res in sorted(results.items()):
        wall = res['wall_s'] / scale
        cpu = res['cpu_s'] / scale
        goals.append(('%s: sync pass <= %.0f s per 1,000 nodes'
                      % (backend, max_wall), wall <= max_wall,
                      '%.2f s' % wall))
        goals.append(('%s: sync pass <= %.1f CPU-s per 1,000 nodes'
                      % (backend, max_cpu), cpu <= max_cpu,
                      '%.2f CPU-s' % cpu))
        bad = {k: v for k, v in res['outcomes'].items() if k != 'in sync'}
        goals.append(('%s: every node read and in sync' % backend,
                      not bad and res['outcomes'].get('in sync') == nodes,
                      json.dumps(res['outcomes'], sort_keys=True)))
    return goals


def split(total, parts):
    """``total`` systems over ``parts`` emulators, as evenly as can be."""
    return [total // parts + (1 if index < total % parts else 0)
            for index in range(parts)]


def parse_delay(text):
    if not text:
        return None
    low, high = (int(v) for v in text.split(','))
    return (low, high)


def process_cpu(pid):
    """User + system CPU seconds of ``pid`` and its children waited for
    (/proc/<pid>/stat), 0.0 when it is gone.
    """
    try:
        with open('/proc/%d/stat' % pid) as f:
            fields = f.read().rsplit(')', 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf('SC_CLK_TCK')
    return sum(int(v) for v in fields[11:15]) / float(ticks)


def log(message):
    print('[%s] %s' % (time.strftime('%H:%M:%S'), message), flush=True)


# -- services


def _iso_bytes(size=64 * 1024):
    import pycdlib
    image = pycdlib.PyCdlib()
    image.new(interchange_level=3, vol_ident='BENCH')
    payload = os.urandom(size)
    image.add_fp(io.BytesIO(payload), len(payload), '/PAYLOAD.BIN;1')
    out = io.BytesIO()
    image.write_fp(out)
    image.close()
    return out.getvalue()


class Database(object):
    """A fresh database of ``backend``: ``url``; ``drop()``."""

    def __init__(self, backend, state_dir):
        self.pg = None
        if backend == 'sqlite':
            self.url = 'sqlite:///%s/nova_mini.sqlite' % state_dir
        elif backend == 'postgresql':
            from nova_mini.tests.harness import postgresql
            self.pg = postgresql.TemporaryDatabase(prefix='nova_mini_rf')
            self.url = self.pg.url
        else:
            raise SystemExit('unknown backend %r' % backend)

    def drop(self):
        if self.pg is not None:
            self.pg.drop()


class Glance(object):
    """Glance without authentication holding one ISO (``image_id``)."""

    def __init__(self, state_dir):
        from keystoneauth1 import session as ks_session

        from nova_mini_deploy import glance as glance_harness
        from nova_mini_deploy import util
        self.glance = glance_harness.Glance(
            os.path.join(state_dir, 'glance'), util.free_port()).setup()
        self.glance.start()
        session = ks_session.Session(timeout=60)
        resp = session.post(self.glance.url + '/v2/images', json={
            'name': 'bench-boot-iso', 'disk_format': 'iso',
            'container_format': 'bare', 'visibility': 'shared'})
        self.image_id = resp.json()['id']
        session.put(self.glance.url + '/v2/images/%s/file' % self.image_id,
                    data=_iso_bytes(),
                    headers={'Content-Type': 'application/octet-stream'})
        self.url = self.glance.url

    def stop(self):
        self.glance.stop()


class Deployment(object):
    """API, scheduler and ``conductors`` conductors on a fresh virtual
    host and database, the images web server and an emulator.
    """

    def __init__(self, state_dir, backend, conductors, nodes, glance,
                 power_delay, emulators=1):
        from nova_mini_deploy import images_server
        from nova_mini_deploy import nova
        from nova_mini_deploy import rabbitmq
        from nova_mini_deploy import util
        self.nova_mod = nova
        self.state_dir = state_dir
        self.database = Database(backend, state_dir)
        self.rabbit = rabbitmq.RabbitMQ()
        self.vhost = 'nova_mini_rfbench_%s' % uuid.uuid4().hex[:8]
        self.conductors = conductors
        self.nodes = nodes
        self.power_delay = power_delay
        self.emulator_count = emulators
        http_root = os.path.join(state_dir, 'httpboot')
        self.images = images_server.ImagesServer(
            os.path.join(state_dir, 'images'), http_root)
        self.nova = nova.NovaMini(
            state_dir, self.rabbit.url(self.vhost), util.free_port(),
            util.free_port(), keystone=None, exchange=self.vhost,
            api_workers=2)
        self.nova.extra_sections = {
            'DEFAULT': {'rpc_response_timeout': 300},
            'database': {'connection': self.database.url},
            'glance': {'endpoint_override': glance.url},
            'deploy': {'http_root': http_root,
                       'http_url': self.images.url},
        }
        self.emulators = []
        self._vhost_made = False

    def __enter__(self):
        from nova_mini_deploy import redfish_emulator
        self.rabbit.ensure()
        self._vhost_made = self.rabbit.add_virtual_host(self.vhost)
        try:
            for index, count in enumerate(
                    split(self.nodes, self.emulator_count)):
                self.emulators.append(redfish_emulator.start(
                    systems=count, power_delay=self.power_delay,
                    state_dir=os.path.join(self.state_dir,
                                           'bmc-%d' % index)))
            self.images.start()
            self.nova.write_config()
            self.nova.db_sync()
            self.nova.start(self.nova_mod.SCHEDULER)
            self.nova.start(self.nova_mod.API)
            for index in range(1, self.conductors + 1):
                host = CONDUCTOR_HOST % index
                extra = self.nova.write_extra_config(
                    host, {'DEFAULT': {'host': host}})
                self.nova.start('nova-mini-conductor', name=host,
                                config_files=[self.nova.conf_path, extra])
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc):
        codes = self.nova.stop_all(timeout=60)
        codes['images'] = self.images.stop()
        for index, emulator in enumerate(self.emulators):
            codes['emulator-%d' % index] = emulator.stop()
        self.emulators = []
        if self._vhost_made:
            self.rabbit.delete_virtual_host(self.vhost)
            self._vhost_made = False
        self.database.drop()
        #: {service: exit status} of the stop
        self.exit_codes = codes

    def conductor_pids(self):
        return [proc.pid for name, proc in self.nova.processes.items()
                if name.startswith('bench-conductor-')]

    def log_tails(self, lines=15):
        out = []
        for proc in self.nova.processes.values():
            try:
                with open(proc.log_path, errors='replace') as f:
                    tail = f.readlines()[-lines:]
            except OSError:
                continue
            out.append('--- %s\n%s' % (proc.log_path, ''.join(tail)))
        return '\n'.join(out)


class Client(object):
    def __init__(self, nova):
        import requests
        self.session = requests.Session()
        adapter = requests.adapters.HTTPAdapter(pool_maxsize=64)
        self.session.mount('http://', adapter)
        self.compute = nova.compute_url
        self.baremetal = nova.baremetal_url + '/v1'

    def call(self, method, url, headers, body=None, expected=(200,)):
        resp = self.session.request(method, url, headers=headers, json=body,
                                    timeout=REQUEST_TIMEOUT)
        if resp.status_code not in expected:
            raise RuntimeError('%s %s: %d %s' % (method, url,
                                                 resp.status_code,
                                                 resp.text[:500]))
        return resp

    def bm(self, method, path, body=None, expected=(200,)):
        return self.call(method, self.baremetal + path, BAREMETAL_HEADERS,
                         body, expected)

    def nova(self, method, path, body=None, expected=(200,)):
        return self.call(method, self.compute + path, COMPUTE_HEADERS,
                         body, expected)

    def node_states(self):
        nodes = self.bm('GET', '/nodes?fields=uuid,provision_state,'
                        'last_error,conductor&limit=1000').json()['nodes']
        return {n['uuid']: n for n in nodes}

    def wait_nodes(self, state, uuids, timeout):
        deadline = time.monotonic() + timeout
        while True:
            nodes = self.node_states()
            bad = {u: nodes[u] for u in uuids
                   if nodes[u]['provision_state'] != state}
            if not bad:
                return
            if time.monotonic() > deadline:
                raise RuntimeError('nodes not %s after %d s: %s' % (
                    state, timeout, list(bad.values())[:3]))
            time.sleep(1)


def enroll(client, emulators, clients):
    """Enroll a redfish node per system of ``emulators``; manage and
    provide them.
    """
    def create(item):
        index, emulator, system = item
        body = {'name': 'bench-%d-%s' % (index, system['name']),
                'driver': 'redfish',
                'resource_class': RESOURCE_CLASS,
                'properties': {'cpus': 8, 'memory_mb': 8192,
                               'local_gb': 100, 'cpu_arch': 'x86_64'},
                'driver_info': {'redfish_address': emulator.url,
                                'redfish_system_id': system['system_id']}}
        return client.bm('POST', '/nodes', body, (201,)).json()['uuid']

    def target(node, verb):
        client.bm('PUT', '/nodes/%s/states/provision' % node,
                  {'target': verb}, (202,))

    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        uuids = list(pool.map(create, [(i, e, s)
                                       for i, e in enumerate(emulators)
                                       for s in e.systems]))
        list(pool.map(lambda n: target(n, 'manage'), uuids))
        client.wait_nodes('manageable', uuids, 300)
        list(pool.map(lambda n: target(n, 'provide'), uuids))
        client.wait_nodes('available', uuids, 300)
    return uuids


def node_status(node):
    """A node's provision state as a server status: ACTIVE, ERROR, or
    None while it deploys.
    """
    state = node['provision_state']
    if state == 'active':
        return 'ACTIVE'
    if state in ('deploy failed', 'error'):
        return 'ERROR'
    return None


def follow(read, statuses, finished, timeout, poll):
    """Read ``read()`` ({id: (status, detail)}) every ``poll`` seconds
    until every id of ``statuses`` has ended (or ``timeout``), noting
    when each was first seen ended.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        seen = time.monotonic()
        try:
            found = read()
        except Exception as exc:
            log('reading the states failed (retried): %s' % exc)
            time.sleep(poll)
            continue
        for key, (status, detail) in found.items():
            if key in statuses and statuses[key] is None and status:
                statuses[key] = status
                finished[key] = seen
                if status == 'ERROR':
                    log('ERROR %s: %s' % (key, detail))
        if all(v is not None for v in statuses.values()):
            return
        time.sleep(poll)


def create_servers(client, args, glance):
    """``--nodes`` servers created through the compute API at once,
    followed until ACTIVE or ERROR: (created, finished, statuses).
    """
    client.nova('PUT', '/os-quota-sets/admin', {'quota_set': {
        'instances': -1, 'cores': -1, 'ram': -1}})
    client.nova('POST', '/flavors', {'flavor': {
        'name': FLAVOR, 'id': FLAVOR, 'ram': 1024, 'vcpus': 1,
        'disk': 10}})
    placement = 'CUSTOM_' + RESOURCE_CLASS.upper().replace('-', '_')
    client.nova('POST', '/flavors/%s/os-extra_specs' % FLAVOR,
                {'extra_specs': {'resources:%s' % placement: '1',
                                 'resources:VCPU': '0',
                                 'resources:MEMORY_MB': '0',
                                 'resources:DISK_GB': '0'}})
    created, finished, statuses = {}, {}, {}
    lock = threading.Lock()

    def boot(index):
        sent = time.monotonic()
        try:
            resp = client.nova('POST', '/servers', {'server': {
                'name': 'bench-%d' % index, 'flavorRef': FLAVOR,
                'imageRef': glance.image_id}}, (202,))
        except Exception as exc:
            # A refused create is a failed deploy, not the end of the run.
            log('ERROR create %d: %s' % (index, exc))
            with lock:
                statuses['create-%d' % index] = 'ERROR'
            return
        with lock:
            server = resp.json()['server']['id']
            created[server] = sent
            statuses[server] = None

    def read():
        servers = client.nova('GET', '/servers/detail?limit=1000').json()[
            'servers']
        return {s['id']: (s['status'] if s['status'] in ('ACTIVE', 'ERROR')
                          else None, s.get('fault'))
                for s in servers}

    with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(boot, range(args.nodes)))
    follow(read, statuses, finished, args.timeout, args.poll)
    return created, finished, statuses


def deploy_nodes(client, args, glance, uuids):
    """The nodes deployed through the bare-metal API (their
    ``instance_info/image_source`` the Glance ISO, then provision
    ``active``), followed until active or deploy failed: (created,
    finished, statuses).
    """
    def patch(node):
        client.bm('PATCH', '/nodes/%s' % node, [
            {'op': 'add', 'path': '/instance_info/image_source',
             'value': glance.image_id}])

    created, finished = {}, {}
    statuses = dict.fromkeys(uuids)

    def deploy(node):
        created[node] = time.monotonic()
        try:
            client.bm('PUT', '/nodes/%s/states/provision' % node,
                      {'target': 'active'}, (202,))
        except Exception as exc:
            log('ERROR deploy %s: %s' % (node, exc))
            statuses[node] = 'ERROR'

    def read():
        return {u: (node_status(n), n.get('last_error'))
                for u, n in client.node_states().items()}

    with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
        list(pool.map(patch, uuids))
        list(pool.map(deploy, uuids))
    follow(read, statuses, finished, args.timeout, args.poll)
    return created, finished, statuses


def deploy_run(args, conductors, glance):
    state_dir = tempfile.mkdtemp(prefix='nova-mini-rfbench-')
    result = {'conductors': conductors, 'via': args.via}
    try:
        with Deployment(state_dir, args.backend, conductors, args.nodes,
                        glance, args.power_delay,
                        args.emulators) as deployment:
            client = Client(deployment.nova)
            log('%d conductor(s): enrolling %d nodes' % (conductors,
                                                         args.nodes))
            start = time.monotonic()
            uuids = enroll(client, deployment.emulators, args.clients)
            result['enroll_s'] = time.monotonic() - start
            pids = deployment.conductor_pids()
            logs = [e.log_path for e in deployment.emulators]
            log_offsets = [_size(path) for path in logs]
            cpu_before = sum(process_cpu(p) for p in pids)
            log('%d conductor(s): deploying %d nodes through the %s API'
                % (conductors, args.nodes, args.via))
            if args.via == 'compute':
                created, finished, statuses = create_servers(
                    client, args, glance)
            else:
                created, finished, statuses = deploy_nodes(
                    client, args, glance, uuids)
            result['conductor_cpu_s'] = sum(
                process_cpu(p) for p in pids) - cpu_before
            requests = collections.Counter()
            for path, offset in zip(logs, log_offsets):
                requests.update(count_requests(_lines_from(path, offset)))
            result.update(deploy_figures(created, finished, statuses))
            result['conductor_cpu_ms_per_deploy'] = (
                1000.0 * result['conductor_cpu_s'] / result['active']
                if result['active'] else None)
            result['emulator_requests'] = dict(requests)
            result['emulator_requests_per_deploy'] = (
                sum(requests.values()) / float(result['active'])
                if result['active'] else None)
            nodes = client.node_states()
            result['deploys_by_conductor'] = conductor_shares(
                nodes.values())
            result['nodes_by_state'] = dict(
                (s, sum(1 for n in nodes.values()
                        if n['provision_state'] == s))
                for s in sorted({n['provision_state']
                                 for n in nodes.values()}))
            if result['active'] != result['servers']:
                print(deployment.log_tails())
        result['exit_codes'] = deployment.exit_codes
    finally:
        if not args.keep_state:
            shutil.rmtree(state_dir, ignore_errors=True)
        else:
            log('state kept in %s' % state_dir)
    return result


def _size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _lines_from(path, offset):
    try:
        with open(path, errors='replace') as f:
            f.seek(offset)
            return f.readlines()
    except OSError:
        return []


def fmt(value, pattern='%.1f'):
    return '-' if value is None else pattern % value


def cmd_deploy(args, run):
    glance_dir = tempfile.mkdtemp(prefix='nova-mini-rfbench-glance-')
    glance = Glance(glance_dir)
    runs = {}
    try:
        for conductors in args.conductors:
            runs[conductors] = deploy_run(args, conductors, glance)
            print(json.dumps(runs[conductors], indent=2, sort_keys=True),
                  flush=True)
    finally:
        glance.stop()
        shutil.rmtree(glance_dir, ignore_errors=True)
    delay = args.power_delay
    print('\nemulator power delay: %s (median %.1f s), %s, %d nodes on %d '
          'emulator(s), through the %s API, load %s' % (
              'default 0-11 s' if delay is None else '%d-%d s' % delay,
              median_delay(delay), args.backend, args.nodes, args.emulators,
              args.via, _record.load()))
    print('\n| conductors | ACTIVE | ERROR | p50 s | p95 s | max s | '
          'deploys/min | conductor CPU ms/deploy | enroll s | emulator '
          'requests/deploy | deploys per conductor |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- '
          '| --- |')
    for conductors, fig in sorted(runs.items()):
        print('| %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |' % (
            conductors, fig['active'], fig['error'], fmt(fig['p50_s']),
            fmt(fig['p95_s']), fmt(fig['max_s']),
            fmt(fig['per_minute']),
            fmt(fig['conductor_cpu_ms_per_deploy'], '%.0f'),
            fmt(fig['enroll_s']),
            fmt(fig['emulator_requests_per_deploy']),
            ', '.join('%s %d' % item for item in sorted(
                fig['deploys_by_conductor'].items()))))
    for goal in deploy_goals(runs, delay, args.max_overhead,
                             args.min_scaling, os.cpu_count(),
                             args.scaling_cores, args.max_loss / 100.0,
                             args.min_share / 100.0):
        run.goal(*goal)
    return {'deploy': {str(k): v for k, v in runs.items()}}


# -- sync


def sync_child(args):
    """In a process of its own: the sync passes over the nodes of the
    emulators described in ``args.emulators`` on ``args.connection``;
    prints one JSON line.
    """
    from nova_mini.conductor import power_sync
    from nova_mini import conductor_heartbeat
    from nova_mini import conf
    from nova_mini import config
    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini import objects
    from nova_mini_deploy import nova

    with open(args.emulators) as f:
        emulators = json.load(f)
    state_dir = os.path.dirname(args.emulators)
    conf_path = nova.write_ini(os.path.join(state_dir, 'sync.conf'), {
        'DEFAULT': {'host': CONDUCTOR_HOST % 1,
                    'state_path': state_dir},
        'database': {'connection': args.connection},
        'conductor': {'sync_power_state_workers': args.sync_workers},
    })
    config.parse_args(['redfish_deploy', '--config-file', conf_path])
    CONF = conf.CONF
    db_api.configure(CONF)
    objects.register_all()
    context = nm_context.get_admin_context()
    host = CONF.host
    heartbeat = conductor_heartbeat.Heartbeat(
        CONF.database.connection, host, CONF.conductor.heartbeat_interval,
        drivers=['redfish'])
    heartbeat.start()
    for emulator in emulators:
        for system in emulator['systems']:
            objects.Node(
                context, name='sync-%s-%s' % (emulator['url'].rsplit(
                    ':', 1)[1], system['name']),
                driver='redfish', resource_class=RESOURCE_CLASS,
                provision_state='available', power_state='power off',
                properties={'cpus': 8, 'memory_mb': 8192, 'local_gb': 100},
                driver_info={'redfish_address': emulator['url'],
                             'redfish_system_id': system['system_id']},
            ).create()
    syncing = power_sync.PowerSync(host, ['redfish'])
    passes = []
    # A warm-up pass first: it opens the sessions to the BMCs, which a
    # running conductor keeps from one pass to the next.
    for _ in range(args.passes + 1):
        cpu, wall = time.process_time(), time.monotonic()
        outcomes = syncing.run_once(context)
        passes.append({'wall_s': time.monotonic() - wall,
                       'cpu_s': time.process_time() - cpu,
                       'outcomes': dict(outcomes)})
    heartbeat.stop()
    print('RESULT ' + json.dumps(passes), flush=True)
    return 0


def cmd_sync(args, run):
    from nova_mini_deploy import nova
    from nova_mini_deploy import redfish_emulator
    results = {}
    for backend in args.backends:
        state_dir = tempfile.mkdtemp(prefix='nova-mini-rfsync-')
        database = Database(backend, state_dir)
        emulators = []
        try:
            for index, count in enumerate(split(args.sync_nodes,
                                                args.sync_emulators)):
                emulators.append(redfish_emulator.start(
                    systems=count, power_delay=args.power_delay,
                    state_dir=os.path.join(state_dir, 'bmc-%d' % index)))
            description = os.path.join(state_dir, 'emulators.json')
            with open(description, 'w') as f:
                json.dump([{'url': e.url, 'systems': e.systems}
                           for e in emulators], f)
            writer = nova.NovaMini(state_dir, 'rabbit://unused', 1, 1)
            writer.extra_sections = {'database': {
                'connection': database.url}}
            writer.write_config()
            writer.db_sync()
            log('%s: %d nodes on %d emulator(s), %d passes' % (
                backend, args.sync_nodes, len(emulators), args.passes))
            proc = subprocess.run(
                [sys.executable, os.path.abspath(__file__), '_sync_child',
                 '--connection', database.url, '--emulators', description,
                 '--passes', str(args.passes),
                 '--sync-workers', str(args.sync_workers)],
                capture_output=True, text=True, timeout=3600)
            line = [x for x in proc.stdout.splitlines()
                    if x.startswith('RESULT ')]
            if proc.returncode or not line:
                print(proc.stdout[-3000:], proc.stderr[-5000:])
                raise SystemExit('the sync child failed (%d)'
                                 % proc.returncode)
            warmup, *passes = json.loads(line[0][len('RESULT '):])
            for p in [warmup] + passes:
                log('%s pass%s: %.2f s wall, %.2f CPU-s, %s' % (
                    backend, ' (warm-up)' if p is warmup else '',
                    p['wall_s'], p['cpu_s'], p['outcomes']))
            results[backend] = {
                'warmup': warmup, 'passes': passes,
                'wall_s': statistics.median(p['wall_s'] for p in passes),
                'cpu_s': statistics.median(p['cpu_s'] for p in passes),
                'outcomes': passes[-1]['outcomes']}
        finally:
            for emulator in emulators:
                emulator.stop()
            database.drop()
            shutil.rmtree(state_dir, ignore_errors=True)
    print('\n%d nodes on %d emulator(s), %d sync workers, median of %d '
          'passes, load %s' % (args.sync_nodes, args.sync_emulators,
                               args.sync_workers, args.passes,
                               _record.load()))
    print('\n| backend | wall s / pass | CPU-s / pass | per 1,000 nodes: '
          'wall s | CPU-s | outcomes (last pass) |')
    print('| --- | --- | --- | --- | --- | --- |')
    scale = args.sync_nodes / 1000.0
    for backend, res in sorted(results.items()):
        print('| %s | %.2f | %.2f | %.2f | %.2f | %s |' % (
            backend, res['wall_s'], res['cpu_s'], res['wall_s'] / scale,
            res['cpu_s'] / scale, json.dumps(res['outcomes'])))
    for goal in sync_goals(results, args.sync_nodes, args.max_sync_wall,
                           args.max_sync_cpu):
        run.goal(*goal)
    return {'sync': results}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = parser.add_subparsers(dest='command', required=True)
    deploy = sub.add_parser('deploy', help='deploys through the API')
    deploy.add_argument('--nodes', type=int, default=100)
    deploy.add_argument('--conductors', default='1,2',
                        type=lambda v: [int(x) for x in v.split(',')])
    deploy.add_argument('--backend', default='sqlite',
                        choices=('sqlite', 'postgresql'))
    deploy.add_argument('--via', choices=('compute', 'baremetal'),
                        default='compute',
                        help='servers created through the compute API, '
                             'or nodes deployed through the bare-metal '
                             'API')
    deploy.add_argument('--emulators', type=int, default=1,
                        help='emulators the systems are spread over')
    deploy.add_argument('--clients', type=int, default=16,
                        help='threads sending the creates')
    deploy.add_argument('--poll', type=float, default=0.5)
    deploy.add_argument('--timeout', type=float, default=600)
    deploy.add_argument('--max-overhead', type=float, default=10.0)
    deploy.add_argument('--min-scaling', type=float, default=1.6)
    deploy.add_argument('--scaling-cores', type=int, default=4,
                        help='CPUs the --min-scaling goal needs; on fewer '
                             'the goal is --max-loss')
    deploy.add_argument('--max-loss', type=float, default=15.0,
                        help='percent of the deploys per minute 2 '
                             'conductors may lose against 1 on fewer than '
                             '--scaling-cores CPUs')
    deploy.add_argument('--min-share', type=float, default=30.0,
                        help='percent of the deploys each of 2 conductors '
                             'does at least (and 100 - it at most)')
    sync = sub.add_parser('sync', help='the power sync of 1,000 nodes')
    sync.add_argument('--sync-nodes', type=int, default=1000)
    sync.add_argument('--sync-emulators', type=int, default=1)
    sync.add_argument('--backends', default='sqlite,postgresql',
                      type=lambda v: v.split(','))
    sync.add_argument('--passes', type=int, default=3)
    sync.add_argument('--sync-workers', type=int, default=8,
                      help='[conductor] sync_power_state_workers')
    sync.add_argument('--max-sync-wall', type=float, default=30.0)
    sync.add_argument('--max-sync-cpu', type=float, default=6.0)
    for p in (deploy, sync):
        p.add_argument('--power-delay', type=parse_delay, default=None,
                       help="LOW,HIGH seconds (default: the emulator's "
                            'own)')
        p.add_argument('--keep-state', action='store_true')
        p.add_argument('--json-out')
    child = sub.add_parser('_sync_child')
    child.add_argument('--connection', required=True)
    child.add_argument('--emulators', required=True)
    child.add_argument('--passes', type=int, default=3)
    child.add_argument('--sync-workers', type=int, default=8)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.command == '_sync_child':
        return sync_child(args)
    run = _record.Run(None if argv is None else
                      ['redfish_deploy.py'] + list(argv))
    if args.command == 'deploy':
        figures = cmd_deploy(args, run)
    else:
        figures = cmd_sync(args, run)
    status = run.report()
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump(dict(figures, run=run.as_dict()), f, indent=2,
                      sort_keys=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
