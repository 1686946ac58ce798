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

"""Node lists filtered by traits over 10k and 100k nodes of 50 traits each:
the object layer's query, the object layer, and the HTTP request, side by
side for both sizes in one run, on SQLite and PostgreSQL.

For each backend (a SQLite file; a new database on 127.0.0.1:5432) the
tool:

1. makes a fresh database per size (``nova-mini-manage db sync``) and
   seeds it with bulk INSERTs (PostgreSQL: ``COPY`` for the traits): every
   node has exactly ``--traits-per-node`` (50, the most a node may have)
   traits: each of 20 standard ``HW_CPU_X86_*`` traits with probability
   0.9, the rest drawn from 160 ``CUSTOM_POOL_nnn`` (about 20 % of the
   nodes each). The draw is seeded: the 10k fleet is the first tenth of
   the 100k one, and every run has the same data;
2. starts one nova-mini-api (noauth2) per size, and one child process per
   size that calls the object layer (``objects.NodeList.get_all``, what
   ``GET /baremetal/v1/nodes`` calls) in-process;
3. times, in rounds that alternate the sizes (so that a change of the
   machine's load hits both), for each scenario of required (``traits``),
   forbidden (``not-traits``) and any-of (``traits-any``) traits with the
   API's default page (``limit`` absent, ``[api] max_limit`` = 1000):

   * ``query``: the SELECTs that call issues (captured with a SQLAlchemy
     event, so the API's own statements), run and fetched on the driver's
     connection: the database's work alone;
   * ``objects``: the ``NodeList.get_all`` call (query and objects);
   * ``http``: ``GET /baremetal/v1/nodes?...`` on a keep-alive connection,
     microversion 1.37;

4. prints the median of each at each size and the 100k/10k ratio, the
   plans of the statements (``EXPLAIN QUERY PLAN`` on SQLite, ``EXPLAIN
   (ANALYZE)`` on PostgreSQL), the tree and the load average, and exits 1
   when the ratio of ``query`` or ``objects`` of a goal scenario exceeds
   2 (the goal), on any backend.

Scenarios (shares of the nodes that match):

* ``broad`` (~31 %): two standard traits, one forbidden, any of three;
* ``selective`` (~17 %): three standard traits, two forbidden, any of two;
* ``rare`` (~0.3 %: 28 nodes at 10k, 273 at 100k): three pool traits, one
  forbidden, any of three. Fewer nodes than a page match, so the answer
  itself is ten times longer at 100k and every node is looked at: it is
  measured and its plan shown, but it has no goal.

Usage::

    .venv-tests/bin/python tools/bench/node_traits_filter.py \\
        --backend sqlite --backend postgresql --json-out /tmp/t.json
    .venv-tests/bin/python tools/bench/node_traits_filter.py \\
        --sizes 2000,20000 --runs 5        # a quick check
"""

import argparse
import datetime
import io
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
PAGE = 1000       # the API's page without limit= ([api] max_limit)
GOAL = 2.0        # the most a goal scenario's query may grow 10k -> 100k
POOL = ['CUSTOM_POOL_%03d' % i for i in range(160)]
FLEET_SHARE = 0.9
BATCH = 5000
# The API's names of the trait filters and the object layer's.
FILTERS = {'traits': 'traits', 'not-traits': 'not_traits',
           'traits-any': 'traits_any'}


def standard_traits(count=20):
    import os_traits
    names = sorted(t for t in os_traits.get_traits()
                   if t.startswith('HW_CPU_X86_'))
    return names[:count]


def scenarios():
    """{name: {API parameter: [traits]}}, and the names with a goal."""
    fleet = standard_traits()
    return {
        'broad': {'traits': fleet[:2], 'not-traits': [POOL[0]],
                  'traits-any': POOL[1:4]},
        'selective': {'traits': fleet[:3],
                      'not-traits': [POOL[0], POOL[5]],
                      'traits-any': POOL[1:3]},
        'rare': {'traits': [POOL[4], POOL[6], POOL[7]],
                 'not-traits': [POOL[0]], 'traits-any': POOL[1:4]},
    }, ('broad', 'selective')


def object_filters(params):
    return {FILTERS[name]: list(traits) for name, traits in params.items()}


def log(message, *args):
    sys.stderr.write('[bench] ' + (message % args if args else message)
                     + '\n')
    sys.stderr.flush()


def tree():
    def git(*argv):
        return subprocess.run(['git', '-C', ROOT] + list(argv),
                              capture_output=True, text=True).stdout.strip()
    head = git('rev-parse', '--short', 'HEAD') or 'unknown'
    dirty = git('status', '--porcelain', '--untracked-files=no', '--',
                'nova_mini/objects', 'nova_mini/db',
                'nova_mini/api/baremetal', 'tools/bench/node_traits_filter.py')
    return head + ('+dirty' if dirty else '')


def load_average():
    return '%.2f %.2f %.2f' % os.getloadavg()


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


def node_traits(rng, fleet, per_node):
    """The traits of one node: each of ``fleet`` with FLEET_SHARE, the
    rest of ``per_node`` from POOL.
    """
    chosen = [t for t in fleet if rng.random() < FLEET_SHARE]
    return chosen + rng.sample(POOL, per_node - len(chosen))


def seed(engine, size, per_node):
    """Bulk-insert ``size`` nodes of ``per_node`` traits each; the number
    of trait rows.
    """
    from nova_mini.db import models
    nodes = models.Node.__table__
    trait_table = models.NodeTrait.__table__
    rng = random.Random(SEED)
    fleet = standard_traits()
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    postgresql = engine.dialect.name == 'postgresql'
    total = 0
    start = time.perf_counter()
    with engine.begin() as conn:
        if postgresql:
            # Consistent by construction: no foreign key check per row.
            conn.exec_driver_sql('SET LOCAL session_replication_role = '
                                 'replica')
        else:
            conn.exec_driver_sql('PRAGMA synchronous = OFF')
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
            rows = [(i, t) for i in ids
                    for t in node_traits(rng, fleet, per_node)]
            if postgresql:
                text = ''.join('%d\t%s\t%s\n' % (i, t, now) for i, t in rows)
                cursor = conn.connection.dbapi_connection.cursor()
                cursor.copy_expert('COPY node_traits (node_id, trait, '
                                   'created_at) FROM STDIN', io.StringIO(text))
            else:
                conn.execute(trait_table.insert(), [
                    {'node_id': i, 'trait': t, 'created_at': now}
                    for i, t in rows])
            total += len(rows)
    if postgresql:
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


# ---------------------------------------------- the object layer (a child)
def serve_objects(conf_path):
    """The child: configures the object layer on ``conf_path``'s database
    and answers one JSON line per command line of stdin:

    * ``time SCENARIO``: ``{"query_ms", "objects_ms", "listed"}``;
    * ``plans SCENARIO``: the plans of the call's SELECTs.
    """
    from nova_mini import config
    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini import objects

    config.parse_args(['node_traits_filter', '--config-file', conf_path])
    db_api.configure(config.CONF)
    engine = db_api.get_engine()
    ctx = nm_context.get_admin_context()
    known = scenarios()[0]
    captured = {}
    raw = engine.raw_connection()

    def call(name):
        return objects.NodeList.get_all(
            ctx, filters=object_filters(known[name]), limit=PAGE)

    def statements(name):
        if name not in captured:
            with _sql.captured_selects(engine) as found:
                call(name)
            captured[name] = list(found)
        return captured[name]

    def query_ms(name):
        start = time.perf_counter()
        for statement, parameters in statements(name):
            cursor = raw.cursor()
            cursor.execute(statement, parameters)
            cursor.fetchall()
            cursor.close()
        elapsed = (time.perf_counter() - start) * 1000
        raw.rollback()
        return elapsed

    for line in sys.stdin:
        command, name = line.split()
        if command == 'plans':
            answer = _sql.plans(engine, statements(name), summary=True)
        else:
            ms = query_ms(name)
            start = time.perf_counter()
            listed = len(call(name))
            answer = {'query_ms': ms, 'listed': listed,
                      'objects_ms': (time.perf_counter() - start) * 1000}
        sys.stdout.write(json.dumps(answer) + '\n')
        sys.stdout.flush()
    raw.close()
    return 0


class ObjectLayer(object):
    """A child process running ``serve_objects`` on one database."""

    def __init__(self, conf):
        self.proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), '--serve-objects',
             conf], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, command, name):
        self.proc.stdin.write('%s %s\n' % (command, name))
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit('the object layer child exited (%s)'
                             % self.proc.wait())
        return json.loads(line)

    def stop(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)


# ------------------------------------------------------------ measuring
class Fleet(object):
    """One size on one backend: its database, API and object layer."""

    def __init__(self, args, backend, size):
        self.size = size
        self.state = tempfile.mkdtemp(prefix='nm-bench-traits-')
        self.db = Database(backend, self.state)
        self.api = self.objects = self.session = None
        self.keep = args.keep_state
        try:
            self._start(args, backend, size)
        except BaseException:
            self.close()
            raise

    def _start(self, args, backend, size):
        port = free_port()
        conf = write_conf(self.state, self.db.url, port, args.workers)
        subprocess.run([venv_script('nova-mini-manage'), '--config-file',
                        conf, 'db', 'sync'], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        import sqlalchemy as sa
        engine = sa.create_engine(self.db.url)
        try:
            self.trait_rows = seed(engine, size, args.traits_per_node)
        finally:
            engine.dispose()
        self.api = Api(self.state, conf, args.workers)
        self.base = self.api.start(port)
        self.objects = ObjectLayer(conf)
        import requests
        self.session = requests.Session()
        self.session.headers.update({'X-Auth-Token': 'admin:admin',
                                     'X-OpenStack-Ironic-API-Version':
                                     VERSION})

    def http_ms(self, params):
        query = {name: ','.join(traits) for name, traits in params.items()}
        start = time.perf_counter()
        resp = self.session.get(self.base + '/nodes', params=query,
                                timeout=120)
        elapsed = (time.perf_counter() - start) * 1000
        if resp.status_code != 200:
            raise SystemExit('GET %s: %d %s' % (resp.url, resp.status_code,
                                                resp.text[:300]))
        return elapsed, len(resp.json()['nodes'])

    def close(self):
        if self.objects is not None:
            self.objects.stop()
        if self.api is not None:
            self.api.stop()
        self.db.drop()
        if self.keep:
            log('state kept in %s', self.state)
        else:
            shutil.rmtree(self.state, ignore_errors=True)


def measure(args, backend, sizes):
    """Rounds alternating the sizes; per size and scenario, the samples."""
    known = scenarios()[0]
    fleets = []
    try:
        for size in sizes:
            log('%s: %d nodes', backend, size)
            fleets.append(Fleet(args, backend, size))
        result = {'backend': backend, 'loadavg_before': load_average(),
                  'sizes': {}}
        samples = {(f.size, name): {'query': [], 'objects': [], 'http': []}
                   for f in fleets for name in known}
        listed = {}
        end = time.monotonic() + args.deadline
        for round_ in range(args.warmup + args.runs):
            if time.monotonic() > end:
                log('deadline reached after %d rounds', round_)
                break
            for name, params in known.items():
                for fleet in fleets:
                    answer = fleet.objects.ask('time', name)
                    http, count = fleet.http_ms(params)
                    if count != answer['listed']:
                        raise SystemExit('%s %d %s: the API listed %d, the '
                                         'object layer %d' % (
                                             backend, fleet.size, name,
                                             count, answer['listed']))
                    listed[(fleet.size, name)] = count
                    if round_ >= args.warmup:
                        got = samples[(fleet.size, name)]
                        got['query'].append(answer['query_ms'])
                        got['objects'].append(answer['objects_ms'])
                        got['http'].append(http)
        result['loadavg_after'] = load_average()
        for fleet in fleets:
            per = result['sizes'][fleet.size] = {
                'trait_rows': fleet.trait_rows, 'scenarios': {}}
            for name, params in known.items():
                got = samples[(fleet.size, name)]
                per['scenarios'][name] = {
                    'params': params, 'listed': listed[(fleet.size, name)],
                    'median_ms': {kind: statistics.median(values)
                                  for kind, values in got.items()},
                    'samples_ms': got}
                if args.explain:
                    per['scenarios'][name]['plans'] = fleet.objects.ask(
                        'plans', name)
        return result
    finally:
        for fleet in fleets:
            fleet.close()


def report(results, sizes, goal_names):
    """Print the figures and plans; the list of goals missed."""
    missed = []
    small, large = sizes[0], sizes[-1]
    print('tree %s, sizes %s, page %d' % (tree(), sizes, PAGE))
    for r in results:
        print('\n%s (load average before %s, after %s)' % (
            r['backend'], r['loadavg_before'], r['loadavg_after']))
        print('%-10s %-8s %s' % ('scenario', 'measure', '  '.join(
            '%8dk' % (s // 1000) for s in sizes)) + '   ratio  listed')
        for name in r['sizes'][small]['scenarios']:
            for kind in ('query', 'objects', 'http'):
                ms = [r['sizes'][s]['scenarios'][name]['median_ms'][kind]
                      for s in sizes]
                ratio = ms[-1] / ms[0]
                flag = ''
                if name in goal_names and kind != 'http' and ratio > GOAL:
                    flag = '  GOAL <= %.0f MISSED' % GOAL
                    missed.append('%s %s %s %.2f' % (r['backend'], name,
                                                     kind, ratio))
                print('%-10s %-8s %s   %5.2f  %s%s' % (
                    name, kind, '  '.join('%6.1f ms' % m for m in ms),
                    ratio, '/'.join(str(r['sizes'][s]['scenarios'][name]
                                        ['listed']) for s in sizes), flag))
    for r in results:
        for size in (small, large):
            for name, sc in r['sizes'][size]['scenarios'].items():
                for p in sc.get('plans', []):
                    print('\n-- %s %d %s: %s' % (r['backend'], size, name,
                                                 p['sql'][-700:]))
                    for row in p['plan']:
                        print('   ' + row)
    return missed


def main():
    if len(sys.argv) > 2 and sys.argv[1] == '--serve-objects':
        return serve_objects(sys.argv[2])
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', action='append',
                        choices=['sqlite', 'postgresql'],
                        help='repeatable; default: sqlite and postgresql')
    parser.add_argument('--sizes', default='10000,100000',
                        help='node counts, comma-separated, smallest first '
                             '(default: 10000,100000)')
    parser.add_argument('--traits-per-node', type=int, default=50)
    parser.add_argument('--runs', type=int, default=15,
                        help='timed rounds (medians)')
    parser.add_argument('--warmup', type=int, default=2)
    parser.add_argument('--workers', type=int, default=1)
    parser.add_argument('--deadline', type=float, default=900,
                        help='seconds at most of rounds per backend')
    parser.add_argument('--no-explain', dest='explain', action='store_false')
    parser.add_argument('--keep-state', action='store_true')
    parser.add_argument('--json-out')
    args = parser.parse_args()
    backends = args.backend or ['sqlite', 'postgresql']
    sizes = [int(s) for s in args.sizes.split(',')]
    goal_names = scenarios()[1]
    log('tree %s, load average %s', tree(), load_average())
    results = []
    for backend in backends:
        results.append(measure(args, backend, sizes))
        if args.json_out:
            with open(args.json_out, 'w') as f:
                json.dump({'tree': tree(), 'results': results}, f, indent=2)
    missed = report(results, sizes, goal_names)
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump({'tree': tree(), 'sizes': sizes, 'page': PAGE,
                       'goal': GOAL, 'results': results, 'missed': missed},
                      f, indent=2)
    if missed:
        print('\nGOAL MISSED (%dk/%dk ratio > %.0f): %s' % (
            sizes[-1] // 1000, sizes[0] // 1000, GOAL, '; '.join(missed)))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
