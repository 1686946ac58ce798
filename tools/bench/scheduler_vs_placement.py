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

"""Our select+claim beside Placement's GET /allocation_candidates on the
same fleet and request shapes, in one run, at 10k and 100k nodes.

Goal (issue 25): at every size and fill level, the median of our
``claim_destinations`` over RabbitMQ (select and claim one node) is below
the median of Placement's ``GET /allocation_candidates`` alone (no claim)
for the same shapes. Exits 1 when it is not.

Our side is ``scheduler_select.py``'s run (``run_one``: the same seeded
fleet, fill through the claim path, 4 requesters over RPC); after each
fill level's measurement, with our scheduler idle, this tool gives
Placement the same fleet and measures it:

1. per size: a scratch PostgreSQL database (dropped at the end),
   ``placement-manage db sync``, gunicorn serving
   ``placement.wsgi.api:application`` (``[api] auth_strategy = noauth2``)
   from ``--placement-venv`` (openstack-placement 16.0.0 and psycopg2);
2. one resource provider per node (its uuid and name): inventory of its
   resource class as Nova's ironic driver reports it (``CUSTOM_`` + the
   class upper-cased, ``-`` as ``_``; total 1, max_unit 1; reserved 1 when
   the node is in maintenance), the node's traits; the custom classes and
   traits created through the REST API, the rows bulk-inserted (the way
   ``../shared/anchors/placement/load.py --mode db`` does, here into
   PostgreSQL through the schema ``db sync`` made), then VACUUM ANALYZE and
   a server restart;
3. per fill level: one allocation of the class (used 1) for every node our
   fill deployed, its consumer the node's instance;
4. from as many clients at once as our requesters (4), each on its own
   keep-alive connection: per round every shape, in the client's own
   order, ``GET /allocation_candidates?resources=
   CUSTOM_<CLASS>:1&required=<trait>,!<trait>&limit=<--placement-limit>``
   (Nova's default ``max_placement_results`` 1000), then unless
   ``--no-placement-claim`` Placement's claim of the first candidate
   (``PUT /allocations/{consumer}``, timed apart, deleted untimed).

Placement answers what it stores: the resource class and traits. What a
shape asks beyond them (capabilities, ``resources:MEMORY_MB`` / ``VCPU`` /
``DISK_GB``, which bare-metal providers do not have) is left to Nova's
filters after Placement; numbered groups are sent flattened (one provider
per node: the same candidates).

Usage::

    flock /tmp/nova_mini-bench.lock .venv-tests/bin/python \\
        tools/bench/scheduler_vs_placement.py --backend postgresql
    ... --sizes 10000 --runs 10 --placement-runs 3     # a quick check

Options are scheduler_select.py's (see its --help) and ``--placement-*``.
"""

import collections
import concurrent.futures
import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import scheduler_select as ss  # noqa: E402  (the fleet, fill, our side)

log = ss.log
HEADERS = {'X-Auth-Token': 'admin',
           'OpenStack-API-Version': 'placement latest',
           'Content-Type': 'application/json',
           'Accept': 'application/json'}
PROJECT = uuid.UUID(int=25).hex
USER = uuid.UUID(int=26).hex
STANDARD_CLASSES = {'VCPU', 'MEMORY_MB', 'DISK_GB'}


def rc_name(resource_class):
    """The placement class of a node's ``resource_class`` (Nova's
    normalisation: upper case, anything else than A-Z0-9 as ``_``).
    """
    return 'CUSTOM_' + re.sub('[^A-Z0-9]', '_', resource_class.upper())


def placement_query(extra_specs, limit):
    """The GET /allocation_candidates query string for a flavor with
    ``extra_specs``: the custom resource class and the required and
    forbidden traits, numbered groups flattened.
    """
    resources, required = {}, []
    for key, value in extra_specs.items():
        kind, _sep, name = key.partition(':')
        kind = re.sub(r'(\d+|_[A-Za-z0-9_]+)$', '', kind)
        if kind == 'resources' and name not in STANDARD_CLASSES:
            resources[name] = int(value)
        elif kind == 'trait' and value in ('required', 'forbidden'):
            required.append(name if value == 'required' else '!' + name)
    params = [('resources', ','.join('%s:%d' % item
                                     for item in sorted(resources.items())))]
    if required:
        params.append(('required', ','.join(sorted(required))))
    params.append(('limit', str(limit)))
    return urllib.parse.urlencode(params, safe=':,!')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Client(object):
    """One keep-alive connection to Placement."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection('127.0.0.1', port,
                                               timeout=600)

    def call(self, method, path, body=None):
        data = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=data, headers=HEADERS)
        response = self.conn.getresponse()
        raw = response.read()
        return response.status, (json.loads(raw) if raw else None)

    def close(self):
        self.conn.close()


class Placement(object):
    """openstack-placement on a scratch PostgreSQL database, loaded with
    the nodes of our database; ``__call__`` is run_one's ``beside``.
    """

    def __init__(self, args):
        from nova_mini.tests.harness import postgresql
        self.args = args
        self.venv = args.placement_venv
        for name in ('placement-manage', 'gunicorn'):
            if not os.access(os.path.join(self.venv, 'bin', name), os.X_OK):
                raise SystemExit('%s not in %s/bin: see tools/bench/README.md'
                                 ' (scheduler_vs_placement.py)'
                                 % (name, self.venv))
        self.state = tempfile.mkdtemp(prefix='nm-bench-placement-')
        self.db = postgresql.TemporaryDatabase(prefix='placement_bench')
        self.port = free_port()
        self.proc = None
        self.loaded = False
        self.conf = os.path.join(self.state, 'placement.conf')
        ss.write_conf(self.conf, {
            'DEFAULT': {'debug': 'false',
                        'log_file': os.path.join(self.state,
                                                 'placement.log')},
            'api': {'auth_strategy': 'noauth2'},
            'placement_database': {'connection': self.db.url}})
        subprocess.run([os.path.join(self.venv, 'bin', 'placement-manage'),
                        '--config-file', self.conf, 'db', 'sync'],
                       check=True, timeout=300, capture_output=True)
        self.version = subprocess.run(
            [os.path.join(self.venv, 'bin', 'python'), '-c',
             'from importlib.metadata import version as v; '
             'print(v("openstack-placement"))'],
            check=True, capture_output=True, text=True).stdout.strip()

    # ------------------------------------------------------------ server
    def start(self):
        env = dict(os.environ, OS_PLACEMENT_CONFIG_DIR=self.state)
        with open(os.path.join(self.state, 'gunicorn.log'), 'ab') as out:
            self.proc = subprocess.Popen(
                [os.path.join(self.venv, 'bin', 'gunicorn'), '--bind',
                 '127.0.0.1:%d' % self.port, '--workers',
                 str(self.args.placement_workers), '--timeout', '600',
                 '--keep-alive', '60', 'placement.wsgi.api:application'],
                env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        end = time.monotonic() + 90
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise SystemExit('placement exited; see %s/gunicorn.log'
                                 % self.state)
            try:
                client = Client(self.port)
                status, _body = client.call('GET', '/')
                client.close()
                if status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.3)
        raise SystemExit('placement did not answer; see %s/gunicorn.log'
                         % self.state)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.proc = None

    def close(self):
        self.stop()
        self.db.drop()
        import shutil
        shutil.rmtree(self.state, ignore_errors=True)

    # ------------------------------------------------------------ loading
    def _engine(self):
        import sqlalchemy as sa
        return sa.create_engine(self.db.url)

    def load_providers(self, ours):
        """One provider per node of ``ours`` (our engine), through REST for
        the custom classes and traits and bulk INSERTs for the rest.
        """
        import sqlalchemy as sa

        from nova_mini.db import models
        start = time.perf_counter()
        nodes = models.Node.__table__
        node_traits = models.NodeTrait.__table__
        with ours.connect() as conn:
            rows = conn.execute(sa.select(
                nodes.c.id, nodes.c.uuid, nodes.c.name,
                nodes.c.resource_class, nodes.c.maintenance).order_by(
                    nodes.c.id)).all()
            traits = collections.defaultdict(list)
            for node_id, trait in conn.execute(sa.select(
                    node_traits.c.node_id, node_traits.c.trait)):
                traits[node_id].append(trait)
        classes = sorted({rc_name(r.resource_class) for r in rows})
        names = sorted({t for ts in traits.values() for t in ts})
        client = Client(self.port)
        for name in classes:
            status, body = client.call('PUT', '/resource_classes/' + name)
            assert status in (201, 204), (name, status, body)
        for name in names:
            if name.startswith('CUSTOM_'):
                status, body = client.call('PUT', '/traits/' + name)
                assert status in (201, 204), (name, status, body)
        client.close()
        engine = self._engine()
        meta = sa.MetaData()
        meta.reflect(engine, only=['resource_providers', 'inventories',
                                   'resource_provider_traits', 'traits',
                                   'resource_classes'])
        t = meta.tables
        now = time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())
        with engine.begin() as conn:
            rc_ids = dict(conn.execute(sa.select(
                t['resource_classes'].c.name,
                t['resource_classes'].c.id)).all())
            trait_ids = dict(conn.execute(sa.select(
                t['traits'].c.name, t['traits'].c.id)).all())
            missing = [n for n in names if n not in trait_ids]
            if missing:
                raise SystemExit('traits unknown to placement: %s' % missing)
            self.rc_ids = rc_ids
            self.provider = {}
            for first in range(0, len(rows), 5000):
                chunk = rows[first:first + 5000]
                providers, inventories, links = [], [], []
                for row in chunk:
                    rc = rc_name(row.resource_class)
                    self.provider[row.id] = (row.id, row.uuid, rc)
                    providers.append({
                        'id': row.id, 'uuid': row.uuid, 'name': row.name,
                        'generation': 1, 'root_provider_id': row.id,
                        'parent_provider_id': None, 'created_at': now})
                    inventories.append({
                        'resource_provider_id': row.id,
                        'resource_class_id': rc_ids[rc], 'total': 1,
                        'reserved': 1 if row.maintenance else 0,
                        'min_unit': 1, 'max_unit': 1, 'step_size': 1,
                        'allocation_ratio': 1.0, 'created_at': now})
                    links.extend({'resource_provider_id': row.id,
                                  'trait_id': trait_ids[name],
                                  'created_at': now}
                                 for name in traits[row.id])
                conn.execute(t['resource_providers'].insert(), providers)
                conn.execute(t['inventories'].insert(), inventories)
                conn.execute(t['resource_provider_traits'].insert(), links)
            conn.exec_driver_sql(
                "SELECT setval(pg_get_serial_sequence('resource_providers', "
                "'id'), (SELECT max(id) FROM resource_providers))")
        engine.dispose()
        self.counts = {'providers': len(rows),
                       'provider_traits': sum(len(v)
                                              for v in traits.values())}
        log('placement: %d providers, %d trait links loaded in %.1f s',
            len(rows), self.counts['provider_traits'],
            time.perf_counter() - start)

    def load_allocations(self, ours):
        """An allocation (used 1 of the node's class) for every node of
        ``ours`` that has an instance; those of an earlier fill replaced.
        """
        import sqlalchemy as sa

        from nova_mini.db import models
        start = time.perf_counter()
        nodes = models.Node.__table__
        with ours.connect() as conn:
            deployed = conn.execute(sa.select(
                nodes.c.id, nodes.c.instance_uuid).where(
                    nodes.c.instance_uuid.isnot(None))).all()
        engine = self._engine()
        meta = sa.MetaData()
        meta.reflect(engine, only=['allocations', 'consumers', 'projects',
                                   'users'])
        t = meta.tables
        now = time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())
        with engine.begin() as conn:
            conn.execute(t['allocations'].delete())
            conn.execute(t['consumers'].delete())
            ids = {}
            for table, external in (('projects', PROJECT), ('users', USER)):
                found = conn.execute(sa.select(t[table].c.id).where(
                    t[table].c.external_id == external)).scalar()
                if found is None:
                    found = conn.execute(t[table].insert().values(
                        external_id=external, created_at=now).returning(
                            t[table].c.id)).scalar()
                ids[table] = found
            for first in range(0, len(deployed), 5000):
                chunk = deployed[first:first + 5000]
                conn.execute(t['consumers'].insert(), [{
                    'uuid': instance, 'project_id': ids['projects'],
                    'user_id': ids['users'], 'generation': 1,
                    'created_at': now} for _node, instance in chunk])
                conn.execute(t['allocations'].insert(), [{
                    'resource_provider_id': node,
                    'resource_class_id': self.rc_ids[self.provider[node][2]],
                    'consumer_id': instance, 'used': 1, 'created_at': now}
                    for node, instance in chunk])
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            for table in ('resource_providers', 'inventories',
                          'resource_provider_traits', 'allocations',
                          'consumers'):
                conn.exec_driver_sql('VACUUM ANALYZE %s' % table)
        engine.dispose()
        log('placement: %d allocations loaded in %.1f s', len(deployed),
            time.perf_counter() - start)
        return len(deployed)

    # ---------------------------------------------------------- measuring
    def measure(self, mix):
        """``--placement-requesters`` clients at once (as many as our
        requesters by default), each going through every shape in its own
        order per round: the GET medians and, unless disabled, those of
        the GET and the claim of the first candidate.
        """
        args = self.args
        queries = [(name, placement_query(extra, args.placement_limit))
                   for name, extra in mix]
        requesters = args.placement_requesters or args.requesters
        lock = threading.Lock()
        get, put = [], []
        per_shape = collections.defaultdict(list)
        candidates = {}
        rounds = collections.Counter()
        end = time.monotonic() + args.placement_deadline
        barrier = threading.Barrier(requesters)

        def requester(k):
            client = Client(self.port)
            barrier.wait()
            try:
                for i in range(args.placement_warmup + args.placement_runs):
                    if time.monotonic() > end and rounds[k] >= 1:
                        log('placement requester %d: deadline reached after '
                            '%d rounds', k, rounds[k])
                        return
                    for n in range(len(queries)):
                        name, query = queries[(k * 5 + n) % len(queries)]
                        t_get, t_put, found = self._one(client, query)
                        if i >= args.placement_warmup:
                            with lock:
                                get.append(t_get)
                                per_shape[name].append(t_get)
                                candidates[name] = found
                                if t_put is not None:
                                    put.append(t_get + t_put)
                    if i >= args.placement_warmup:
                        rounds[k] += 1
            finally:
                client.close()

        with concurrent.futures.ThreadPoolExecutor(requesters) as pool:
            for future in [pool.submit(requester, k)
                           for k in range(requesters)]:
                future.result()
        return {'placement_get_ms': statistics.median(get),
                'placement_get_p90_ms': sorted(get)[
                    int(0.9 * (len(get) - 1))],
                'placement_get_put_ms': (statistics.median(put)
                                         if put else None),
                'placement_rounds': dict(rounds),
                'placement_requesters': requesters,
                'placement_get_samples_ms': get,
                'placement_per_shape_ms': {
                    name: statistics.median(v)
                    for name, v in per_shape.items()},
                'placement_candidates': candidates,
                'placement_queries': dict(queries)}

    def _one(self, client, query):
        """One GET (ms), the claim of its first candidate (ms, or None),
        the number of candidates.
        """
        start = time.perf_counter()
        status, body = client.call('GET', '/allocation_candidates?' + query)
        t_get = (time.perf_counter() - start) * 1000
        if status != 200:
            raise SystemExit('placement GET %s: %s %s' % (query, status,
                                                          body))
        found = body['allocation_requests']
        if not found or not self.args.placement_claim:
            return t_get, None, len(found)
        consumer = str(uuid.uuid4())
        claim = {'allocations': found[0]['allocations'],
                 'project_id': PROJECT, 'user_id': USER,
                 'consumer_generation': None, 'consumer_type': 'INSTANCE'}
        start = time.perf_counter()
        status, body = client.call('PUT', '/allocations/' + consumer, claim)
        t_put = (time.perf_counter() - start) * 1000
        if status == 409:
            # Another requester took that provider first (as in Nova, the
            # scheduler would retry with the next candidate): not timed.
            return t_get, None, len(found)
        if status != 204:
            raise SystemExit('placement PUT: %s %s' % (status, body))
        status, body = client.call('DELETE', '/allocations/' + consumer)
        if status != 204:
            raise SystemExit('placement DELETE: %s %s' % (status, body))
        return t_get, t_put, len(found)

    def check(self, ours):
        """The same fleet on both sides: per class, our free nodes (not in
        maintenance, no instance) and Placement's candidates for the class
        alone, which must be equal.
        """
        import sqlalchemy as sa

        from nova_mini.db import models
        nodes = models.Node.__table__
        with ours.connect() as conn:
            free = dict(conn.execute(sa.select(
                nodes.c.resource_class, sa.func.count()).where(
                    nodes.c.instance_uuid.is_(None),
                    nodes.c.maintenance.is_(False),
                    nodes.c.provision_state == 'available').group_by(
                        nodes.c.resource_class)).all())
        client = Client(self.port)
        found = {}
        for resource_class, count in sorted(free.items()):
            status, body = client.call(
                'GET', '/allocation_candidates?resources=%s:1&limit=%d'
                % (rc_name(resource_class), count + 1))
            found[resource_class] = [count, len(body['allocation_requests'])]
        client.close()
        wrong = {k: v for k, v in found.items() if v[0] != v[1]}
        if wrong:
            raise SystemExit('placement does not hold our fleet: free nodes '
                             '/ candidates per class %s' % wrong)
        return found

    def __call__(self, ours, result):
        if not self.loaded:
            self.start()
            self.load_providers(ours)
            self.loaded = True
        self.stop()
        allocations = self.load_allocations(ours)
        self.start()
        load = os.getloadavg()
        log('placement %d @%.2f: measuring (load %.2f)', result['size'],
            result['fill'], load[0])
        out = self.measure(ss.shapes(self.args.groups))
        out['placement_fleet_check'] = self.check(ours)
        out.update({'placement_loadavg': load,
                    'placement_allocations': allocations,
                    'placement_version': self.version,
                    'placement_workers': self.args.placement_workers})
        out.update(self.counts)
        log('placement %d @%.2f: GET %.2f ms (GET+PUT %s ms) vs ours %.2f '
            'ms', result['size'], result['fill'], out['placement_get_ms'],
            '%.2f' % out['placement_get_put_ms']
            if out['placement_get_put_ms'] is not None else '-',
            result['select_ms'])
        return out


def tree():
    try:
        head = subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                              cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(['git', 'status', '--porcelain',
                                '--untracked-files=no'], cwd=ROOT,
                               capture_output=True, text=True).stdout
        return head + ('+dirty' if dirty.strip() else '')
    except (OSError, subprocess.CalledProcessError):
        return 'unknown'


def report(results, args, revision):
    """The side-by-side table; whether we are ahead everywhere."""
    lines = ['tree %s, %s, placement %s (%d gunicorn workers, limit=%d), '
             '%d cores' % (revision, time.strftime('%Y-%m-%d %H:%M UTC',
                                                   time.gmtime()),
                           results[0]['placement_version'] if results
                           else '?', args.placement_workers,
                           args.placement_limit, os.cpu_count() or 1),
             '%-10s %5s %7s %10s %12s %12s %9s %7s %13s' % (
                 'backend', 'fill', 'nodes', 'ours ms', 'placement',
                 'plc GET+PUT', 'plc/ours', 'ahead', 'load (ours/plc)'),
             '%-10s %5s %7s %10s %12s %12s %9s %7s' % (
                 '', '', '', 'sel+claim', 'GET ms', 'ms', '', '')]
    ahead = True
    for r in results:
        ratio = r['placement_get_ms'] / r['select_ms']
        ok = r['select_ms'] < r['placement_get_ms']
        ahead = ahead and ok
        lines.append('%-10s %5.2f %7d %10.2f %12.2f %12s %9.2f %7s '
                     '%5.2f / %.2f' % (
                         r['backend'], r['fill'], r['size'], r['select_ms'],
                         r['placement_get_ms'],
                         '%.2f' % r['placement_get_put_ms']
                         if r['placement_get_put_ms'] is not None else '-',
                         ratio, 'yes' if ok else 'NO', r['loadavg'][0],
                         r['placement_loadavg'][0]))
    for r in results:
        lines.append('\n-- %s %d @%.2f per shape: ours select+claim ms / '
                     'placement GET ms (candidates; our NoValidHost)'
                     % (r['backend'], r['size'], r['fill']))
        for name, query in r['placement_queries'].items():
            lines.append('  %-34s %8.2f / %9.2f  (%5d; %d)  %s' % (
                name, r['per_shape_ms'].get(name, float('nan')),
                r['placement_per_shape_ms'].get(name, float('nan')),
                r['placement_candidates'].get(name, -1),
                r['no_valid_host'].get(name, 0), query))
    lines.append('\ngoal: our select+claim median below Placement\'s GET '
                 '/allocation_candidates median (no claim) at every size and '
                 'fill: %s' % ('met' if ahead else 'MISSED'))
    print('\n'.join(lines))
    return ahead


def markdown(results, revision):
    lines = ['| backend | fill | nodes | ours select+claim ms | Placement GET '
             'ms | Placement GET+PUT ms | Placement GET / ours | load ours / '
             'Placement | tree |', '|' + ' --- |' * 9]
    for r in results:
        lines.append('| %s | %d %% | %dk | %.2f | %.1f | %s | %.1f | %.2f / '
                     '%.2f | %s |' % (
                         r['backend'], round(r['fill'] * 100),
                         r['size'] // 1000, r['select_ms'],
                         r['placement_get_ms'],
                         '%.1f' % r['placement_get_put_ms']
                         if r['placement_get_put_ms'] is not None else '-',
                         r['placement_get_ms'] / r['select_ms'],
                         r['loadavg'][0], r['placement_loadavg'][0],
                         r.get('tree', revision)))
    return '\n'.join(lines)


def build_parser():
    parser = ss.build_parser()
    parser.description = __doc__.split('\n')[0]
    parser.add_argument('--placement-venv',
                        default='/tmp/placement_anchor/venv',
                        help='a venv with openstack-placement, gunicorn and '
                             'psycopg2')
    parser.add_argument('--placement-workers', type=int, default=2,
                        help='gunicorn sync workers')
    parser.add_argument('--placement-limit', type=int, default=1000,
                        help='GET /allocation_candidates limit (Nova\'s '
                             '[scheduler] max_placement_results)')
    parser.add_argument('--placement-requesters', type=int,
                        help='clients at once (default: --requesters)')
    parser.add_argument('--placement-runs', type=int, default=10,
                        help='timed rounds of every shape')
    parser.add_argument('--placement-warmup', type=int, default=1)
    parser.add_argument('--placement-deadline', type=float, default=300,
                        help='seconds of timed rounds at most per point '
                             '(at least one round)')
    parser.add_argument('--no-placement-claim', dest='placement_claim',
                        action='store_false',
                        help='do not time PUT /allocations')
    parser.add_argument('--markdown', action='store_true',
                        help='also print the README table')
    return parser


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--markdown-from':
        with open(sys.argv[2]) as f:
            print(markdown(json.load(f), '?'))
        return 0
    args = build_parser().parse_args()
    if args.groups == 'auto':
        args.groups = ss.groups_supported()
    else:
        args.groups = args.groups == 'on'
    backends = args.backend or ['postgresql']
    sizes = [int(s) for s in args.sizes.split(',')]
    revision = tree()
    log('tree %s; numbered groups: %s', revision,
        'as such' if args.groups else 'flattened')
    vhost = ss.VHost()
    results = []
    try:
        for backend in backends:
            for size in sizes:
                log('%s: %d nodes, beside placement', backend, size)
                placement = Placement(args)
                try:
                    results.extend(ss.run_one(args, backend, size, vhost,
                                              beside=placement))
                finally:
                    placement.close()
    finally:
        from nova_mini import rpc
        rpc.cleanup()
        vhost.delete()
    for r in results:
        r['tree'] = revision
    ahead = report(results, args, revision)
    if args.markdown:
        print('\n' + markdown(results, revision))
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump(results, f, indent=2)
    return 0 if ahead else 1


if __name__ == '__main__':
    sys.exit(main())
