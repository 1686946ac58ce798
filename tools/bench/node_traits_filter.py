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

"""Node lists filtered by traits: ``GET /baremetal/v1/nodes?traits=A,B,C``
over 10k and 100k nodes, through a running nova-mini-api.

For each backend (SQLite file, and PostgreSQL if asked) and each size, the
tool:

1. makes a fresh database (SQLite: a file in a temporary state directory;
   PostgreSQL: a new database on 127.0.0.1:5432, dropped afterwards) and
   runs ``nova-mini-manage db sync``;
2. seeds it directly through the DB layer (bulk INSERTs of nova_mini's
   tables, not the API): N nodes, each with ``--traits-per-node`` (10)
   traits drawn from a pool of 100 ``CUSTOM_POOL_nnn`` traits and 20
   standard os-traits names, plus ``CUSTOM_COMMON_A/B/C``, each on a node
   with probability 1/2. The draw is seeded: every run has the same data;
3. starts nova-mini-api (noauth2, ``--workers`` workers) on a free port;
4. times, one request at a time on a keep-alive connection, after
   ``--warmup`` untimed requests, the median of ``--runs`` requests of:

   * ``rare``: ``?traits=CUSTOM_POOL_001,CUSTOM_POOL_002,CUSTOM_POOL_003``
     (about 0.06% of the nodes have all three: ~6 at 10k, ~60 at 100k);
   * ``common``: ``?traits=CUSTOM_COMMON_A,CUSTOM_COMMON_B,CUSTOM_COMMON_C``
     (1/8 of the nodes: more than a page, so a full page comes back);

   with no ``limit`` (the API's default page, ``[api] max_limit`` = 1000 as
   in Ironic) unless ``--limit`` is given, at microversion 1.37;
5. EXPLAINs the SELECTs that the object layer issues for the same filter
   (``NodeList.get_all``, captured with a SQLAlchemy event, so it is the
   API's own query), and times that call in-process too (database and
   objects only, no HTTP);

then prints the medians and the 100k/10k ratio per scenario (the goal:
under 3, i.e. the filter is answered from the indexes, not by a scan).

Usage::

    .venv-tests/bin/python tools/bench/node_traits_filter.py      # SQLite
    .venv-tests/bin/python tools/bench/node_traits_filter.py \\
        --backend sqlite --backend postgresql --runs 21 --json-out r.json
    .venv-tests/bin/python tools/bench/node_traits_filter.py --sizes 2000 \\
        --runs 5        # a quick check
"""

import argparse
import datetime
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import _sql  # noqa: E402  (the SELECTs a call issues, their plans)

SEED = 37
VERSION = '1.37'
POOL = ['CUSTOM_POOL_%03d' % i for i in range(100)]
COMMON = ['CUSTOM_COMMON_A', 'CUSTOM_COMMON_B', 'CUSTOM_COMMON_C']
SCENARIOS = {
    'rare': ['CUSTOM_POOL_001', 'CUSTOM_POOL_002', 'CUSTOM_POOL_003'],
    'common': COMMON,
}
BATCH = 5000


def log(message, *args):
    sys.stderr.write('[bench] ' + (message % args if args else message)
                     + '\n')
    sys.stderr.flush()


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def venv_script(name):
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.access(path, os.X_OK):
        raise SystemExit('%s not found next to %s: run this tool with the '
                         'venv nova_mini is installed in' % (name,
                                                             sys.executable))
    return path


def standard_traits(count=20):
    import os_traits
    names = sorted(t for t in os_traits.get_traits()
                   if t.startswith('HW_CPU_X86_'))
    return names[:count]


# ------------------------------------------------------------- databases
class Database(object):
    """A fresh database of one backend; ``url`` for [database] connection."""

    def __init__(self, backend, state):
        self.backend = backend
        self._pg = None
        if backend == 'sqlite':
            self.url = 'sqlite:///%s' % os.path.join(state,
                                                     'nova_mini.sqlite')
        else:
            from nova_mini.tests.harness import postgresql
            self._pg = postgresql.TemporaryDatabase(prefix='nova_mini_bench')
            self.url = self._pg.url

    def drop(self):
        if self._pg is not None:
            self._pg.drop()


def seed(engine, size, traits_per_node, rng):
    """Bulk-insert ``size`` nodes and their traits; the number of trait
    rows.
    """
    from nova_mini.db import models
    nodes = models.Node.__table__
    node_traits = models.NodeTrait.__table__
    pool = POOL + standard_traits()
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    total = 0
    start = time.perf_counter()
    with engine.begin() as conn:
        for first in range(1, size + 1, BATCH):
            ids = range(first, min(first + BATCH, size + 1))
            conn.execute(nodes.insert(), [{
                'id': i, 'uuid': str(uuid.UUID(int=rng.getrandbits(128),
                                               version=4)),
                'name': 'bench-%06d' % i, 'driver': 'fake-hardware',
                'resource_class': 'baremetal',
                'properties': {'cpus': 8, 'memory_mb': 16384,
                               'local_gb': 100, 'cpu_arch': 'x86_64'},
                'provision_state': 'available', 'maintenance': False,
                'instance_info': {}, 'driver_info': {}, 'extra': {},
                'created_at': now} for i in ids])
            rows = []
            for i in ids:
                chosen = rng.sample(pool, traits_per_node)
                chosen += [t for t in COMMON if rng.random() < 0.5]
                rows.extend({'node_id': i, 'trait': t, 'created_at': now}
                            for t in chosen)
            conn.execute(node_traits.insert(), rows)
            total += len(rows)
    if engine.dialect.name == 'postgresql':
        # What autovacuum would have done by the time anyone lists
        # (statistics, and the visibility map index-only scans rely on).
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            conn.exec_driver_sql('VACUUM ANALYZE nodes')
            conn.exec_driver_sql('VACUUM ANALYZE node_traits')
    log('seeded %d nodes, %d trait rows in %.1f s', size, total,
        time.perf_counter() - start)
    return total


# ------------------------------------------------------------- the server
class Api(object):
    def __init__(self, state, conf, workers):
        self.state = state
        self.conf = conf
        self.workers = workers
        self.proc = None
        self.log_path = os.path.join(state, 'nova-mini-api.log')

    def start(self, port):
        with open(self.log_path, 'ab') as out:
            self.proc = subprocess.Popen(
                [venv_script('nova-mini-api'), '--config-file', self.conf],
                stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)
        url = 'http://127.0.0.1:%d/baremetal/v1' % port
        end = time.monotonic() + 60
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise SystemExit('nova-mini-api exited; see %s'
                                 % self.log_path)
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return url
            except urllib.error.HTTPError as exc:
                raise SystemExit('GET %s: %d (is the /baremetal root there?)'
                                 % (url, exc.code))
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise SystemExit('nova-mini-api did not answer; see %s'
                         % self.log_path)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def write_conf(state, url, port, workers):
    path = os.path.join(state, 'nova_mini.conf')
    with open(path, 'w') as f:
        f.write('\n'.join([
            '[DEFAULT]', 'state_path = %s' % state, '',
            '[api]', 'auth_strategy = noauth2', 'bind_host = 127.0.0.1',
            'bind_port = %d' % port, 'workers = %d' % workers, '',
            '[database]', 'connection = %s' % url, '']))
    return path


# ------------------------------------------------------------ measuring
def time_requests(base, traits, runs, warmup, limit, deadline):
    """Median ms of ``runs`` GETs (after ``warmup``), the number of nodes
    the last one listed, and every sample.
    """
    import requests
    session = requests.Session()
    session.headers.update({'X-Auth-Token': 'admin:admin',
                            'X-OpenStack-Ironic-API-Version': VERSION})
    params = {'traits': ','.join(traits)}
    if limit:
        params['limit'] = str(limit)
    samples = []
    listed = None
    end = time.monotonic() + deadline
    for i in range(warmup + runs):
        if time.monotonic() > end:
            log('deadline reached after %d requests', i)
            break
        start = time.perf_counter()
        resp = session.get(base + '/nodes', params=params, timeout=120)
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status_code != 200:
            raise SystemExit('GET %s: %d %s' % (resp.url, resp.status_code,
                                                resp.text[:300]))
        listed = len(resp.json()['nodes'])
        if i >= warmup:
            samples.append(elapsed)
    return statistics.median(samples), listed, samples


def explain(conf_path, traits, limit, runs):
    """The SELECTs ``NodeList.get_all`` issues for ``traits`` and their
    plans, and the median ms of the call in-process.
    """
    from nova_mini import config
    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini import objects

    config.parse_args(['node_traits_filter', '--config-file', conf_path])
    db_api.configure(config.CONF)
    engine = db_api.get_engine()
    ctx = nm_context.get_admin_context()
    filters = {'traits': traits}
    with _sql.captured_selects(engine) as statements:
        objects.NodeList.get_all(ctx, filters=filters, limit=limit)
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        objects.NodeList.get_all(ctx, filters=filters, limit=limit)
        samples.append((time.perf_counter() - start) * 1000)
    return _sql.plans(engine, statements), statistics.median(samples)


def run_one(args, backend, size):
    state = tempfile.mkdtemp(prefix='nm-bench-traits-')
    db = Database(backend, state)
    api = None
    try:
        port = free_port()
        conf = write_conf(state, db.url, port, args.workers)
        subprocess.run([venv_script('nova-mini-manage'), '--config-file',
                        conf, 'db', 'sync'], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        import sqlalchemy as sa
        engine = sa.create_engine(db.url)
        try:
            trait_rows = seed(engine, size, args.traits_per_node,
                              random.Random(SEED))
        finally:
            engine.dispose()
        api = Api(state, conf, args.workers)
        base = api.start(port)
        load = os.getloadavg()[0]
        if load > (os.cpu_count() or 1) / 2:
            log('WARNING: load average %.1f on %d cores before measuring: '
                'figures are contended', load, os.cpu_count() or 1)
        result = {'backend': backend, 'size': size, 'loadavg': load,
                  'trait_rows': trait_rows, 'scenarios': {}}
        for name, traits in SCENARIOS.items():
            ms, listed, samples = time_requests(
                base, traits, args.runs, args.warmup, args.limit,
                args.deadline)
            log('%s %d %s: median %.1f ms (%d listed)', backend, size, name,
                ms, listed)
            result['scenarios'][name] = {'traits': traits, 'median_ms': ms,
                                         'listed': listed,
                                         'samples_ms': samples}
        if args.explain:
            for name, traits in SCENARIOS.items():
                # In a child: the object layer configures its facade once
                # per process.
                out = subprocess.run(
                    [sys.executable, os.path.abspath(__file__), '--explain-only',
                     conf, ','.join(traits), str(args.limit or 1000),
                     str(args.runs)],
                    capture_output=True, text=True, timeout=600)
                if out.returncode != 0:
                    log('EXPLAIN failed: %s', out.stderr[-2000:])
                    continue
                plans, db_ms = json.loads(out.stdout)
                result['scenarios'][name]['plans'] = plans
                result['scenarios'][name]['objects_median_ms'] = db_ms
        return result
    finally:
        if api is not None:
            api.stop()
        db.drop()
        if args.keep_state:
            log('state kept in %s', state)
        else:
            shutil.rmtree(state, ignore_errors=True)


def report(results, sizes):
    lines = []
    for backend in sorted({r['backend'] for r in results}):
        mine = {r['size']: r for r in results if r['backend'] == backend}
        for name in SCENARIOS:
            parts = []
            for size in sizes:
                if size not in mine:
                    continue
                sc = mine[size]['scenarios'][name]
                extra = ''
                if 'objects_median_ms' in sc:
                    extra = ', objects %.1f ms' % sc['objects_median_ms']
                parts.append('%dk: %.1f ms (%d listed%s, load %.1f)' % (
                    size // 1000, sc['median_ms'], sc['listed'], extra,
                    mine[size]['loadavg']))
            line = '%-10s %-7s %s' % (backend, name, '; '.join(parts))
            if len(sizes) == 2 and all(s in mine for s in sizes):
                a, b = (mine[s]['scenarios'][name]['median_ms']
                        for s in sizes)
                line += '; ratio %dk/%dk = %.2f%s' % (
                    sizes[1] // 1000, sizes[0] // 1000, b / a,
                    '' if b / a < 3 else '  (GOAL < 3 MISSED)')
            lines.append(line)
    print('\n'.join(lines))
    for r in results:
        for name, sc in r['scenarios'].items():
            for p in sc.get('plans', []):
                print('\n-- %s %d %s: %s' % (r['backend'], r['size'], name,
                                             p['sql'][:400]))
                for row in p['plan']:
                    print('   ' + row)


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--explain-only':
        conf, traits, limit, runs = sys.argv[2:6]
        plans, ms = explain(conf, traits.split(','), int(limit), int(runs))
        print(json.dumps([plans, ms]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', action='append',
                        choices=['sqlite', 'postgresql'],
                        help='repeatable; default: sqlite')
    parser.add_argument('--sizes', default='10000,100000',
                        help='node counts, comma-separated (default: '
                             '10000,100000)')
    parser.add_argument('--traits-per-node', type=int, default=10)
    parser.add_argument('--runs', type=int, default=15,
                        help='timed requests per scenario (median)')
    parser.add_argument('--warmup', type=int, default=3)
    parser.add_argument('--limit', type=int, default=None,
                        help='limit= of the request (default: none, i.e. '
                             'the API default page, max_limit=1000)')
    parser.add_argument('--workers', type=int, default=1)
    parser.add_argument('--deadline', type=float, default=300,
                        help='seconds at most per scenario')
    parser.add_argument('--no-explain', dest='explain', action='store_false')
    parser.add_argument('--keep-state', action='store_true')
    parser.add_argument('--json-out')
    args = parser.parse_args()
    backends = args.backend or ['sqlite']
    sizes = [int(s) for s in args.sizes.split(',')]
    results = []
    for backend in backends:
        for size in sizes:
            log('%s: %d nodes', backend, size)
            results.append(run_one(args, backend, size))
    report(results, sizes)
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
