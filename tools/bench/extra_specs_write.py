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

"""Extra-spec writes: nova_mini's nova-mini-api beside Nova 34's nova-api.

The anchor's ``extra_specs_write`` scenario (../shared/anchors/nova_api,
``run_wrk.sh BASE extra_specs_write``): ``POST .../flavors/anchor-0/
os-extra_specs`` with the ten specs of ``extra_specs_post``, microversion
2.86, but ``quota:cpu_shares`` changes on every request, so that every
request writes.  (``extra_specs_post`` repeats one body: after the first
request nova_mini writes nothing, while Nova rewrites every key.)

For each backend asked for (``--backends sqlite,postgresql``), both servers
get a fresh database of that kind:

* nova_mini: nova-mini-api with ``[api] workers = 2`` (flavors_api.py's
  ``NovaMini``), SQLite in its state directory or a new PostgreSQL database
  on the local server (``nova_mini.tests.harness.postgresql``, dropped at
  the end);
* Nova: the anchor's start_nova_api.sh in a new state directory on a free
  port, its API database (where flavors and their specs live) on SQLite or
  on a new PostgreSQL database (oslo.config reads
  ``OS_API_DATABASE__CONNECTION`` from the environment: nova-manage and
  the gunicorn workers both take it), response validation off.  It is
  stopped at the end and its directory and database removed.

Nova is first tried with each of ``--nova-configs`` (worker class, workers,
threads) for one run; the one with the most successful writes/s is then
measured against nova_mini for ``--rounds`` rounds, alternating which
server goes first.  Client: wrk (``-t2``, ``--concurrency`` connections)
through the anchor's run_wrk.sh, a warm-up run before each measured one.

Per run: answered requests/s (any HTTP status), successful writes/s (200),
p50/p99, statuses, and server CPU per successful write: user + system time
of the server's processes (``/proc/PID/stat`` of the gunicorn master and
its children) over the measured run, divided by its 200s.  Afterwards the
flavor's specs are read back from each server: the changing value must be
one the run wrote, the nine others as seeded.

Goal (exit 1 when missed on any backend): nova_mini's median successful
writes/s >= 5x Nova's, at <= 1.5 ms server CPU per write, with no
non-200 answer and no socket error on nova_mini.

Example (from the repository root; wrk and a Nova 34 venv needed, see the
anchor's README; ``$NOVA_VENV`` says where)::

    flock /tmp/nova_mini-bench.lock .venv-tests/bin/python \\
        tools/bench/extra_specs_write.py --backends sqlite,postgresql
"""

import argparse
import http.client
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import flavors_api  # noqa: E402

REPO = flavors_api.REPO
SCENARIO = 'extra_specs_write'
FLAVOR = 'anchor-0'
CHANGING_KEY = 'quota:cpu_shares'
GOAL_RATIO = 5.0
GOAL_CPU_MS = 1.5
log = flavors_api.log


def tree():
    def git(*argv):
        return subprocess.run(['git', '-C', REPO] + list(argv),
                              capture_output=True, text=True).stdout.strip()
    head = git('rev-parse', '--short', 'HEAD') or 'unknown'
    dirty = git('status', '--porcelain', '--untracked-files=no')
    return head + ('+dirty' if dirty else '')


def load_average():
    return '%.2f %.2f %.2f' % os.getloadavg()


class NovaServer(object):
    """Nova's nova-api from the anchor's scripts, in a state directory and
    on a port of its own, its API database on ``api_connection`` (None:
    SQLite in the directory).
    """

    name = 'nova'

    def __init__(self, scripts, api_connection=None):
        self.scripts = scripts
        self.api_connection = api_connection
        self.dir = tempfile.mkdtemp(prefix='nova-anchor-bench-')
        self.port = flavors_api.free_port()
        self.base = 'http://127.0.0.1:%d/v2.1' % self.port
        self.config = None

    def _env(self, config=None):
        env = dict(os.environ, NOVA_ANCHOR_DIR=self.dir,
                   NOVA_API_PORT=str(self.port),
                   NOVA_RESPONSE_VALIDATION='ignore')
        if config:
            env.update(NOVA_API_WORKER_CLASS=config[0],
                       NOVA_API_WORKERS=str(config[1]),
                       NOVA_API_THREADS=str(config[2]))
        if self.api_connection:
            env['OS_API_DATABASE__CONNECTION'] = self.api_connection
        return env

    def start(self, config):
        if self.config == config:
            return
        self.stop()
        log('nova: start_nova_api.sh with %s', config_label(config))
        subprocess.run([os.path.join(self.scripts, 'start_nova_api.sh')],
                       check=True, timeout=900, env=self._env(config),
                       stdout=subprocess.DEVNULL)
        if not flavors_api.wait_up(self.base + '/', 60):
            raise SystemExit('nova-api did not come up on %s' % self.base)
        self.config = config

    def stop(self):
        if self.master_pid():
            subprocess.run([os.path.join(self.scripts, 'stop_nova_api.sh')],
                           check=True, timeout=120, env=self._env(),
                           stdout=subprocess.DEVNULL)
        self.config = None

    def remove(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def master_pid(self):
        try:
            with open(os.path.join(self.dir, 'pid')) as stream:
                return int(stream.read().strip())
        except (OSError, ValueError):
            return None


def parse_configs(text):
    configs = []
    for item in text.split(','):
        klass, workers, threads = item.strip().split(':')
        if klass not in ('sync', 'gthread'):
            raise argparse.ArgumentTypeError('worker class %r' % klass)
        configs.append((klass, int(workers), int(threads)))
    return configs


def config_label(config):
    return '%s %d workers x %d threads' % config


# ----------------------------------------------------------- the client
def seed(args, server):
    out = subprocess.run(
        [sys.executable, os.path.join(args.anchor_scripts, 'load.py'),
         '--base-url', server.base, '--scenario', SCENARIO,
         '--setup-only'],
        check=True, timeout=300, capture_output=True, text=True).stdout
    match = re.search(r'returns (\d+) flavors', out)
    log('%s: seeded; /flavors/detail returns %s flavors', server.name,
        match.group(1) if match else '?')


def wrk(args, server, seconds, env):
    return subprocess.run(
        [os.path.join(args.anchor_scripts, 'run_wrk.sh'), server.base,
         SCENARIO, str(seconds), str(args.concurrency),
         str(args.client_threads)],
        env=env, capture_output=True, text=True, timeout=seconds + 60)


def measure(args, server):
    """One warm-up and one measured wrk run of the scenario."""
    env = dict(os.environ, SETUP='0', AUTH='%s: %s' % flavors_api.AUTH,
               PYTHON=sys.executable)
    if args.warmup > 0:
        wrk(args, server, max(1, round(args.warmup)), env)
    pids_cpu = flavors_api.cpu_seconds(server.master_pid())
    out = wrk(args, server, max(1, round(args.duration)), env)
    cpu = flavors_api.cpu_seconds(server.master_pid()) - pids_cpu
    text = out.stdout + out.stderr
    summary = re.search(r'wrk: requests=(\d+)\s+req/s=([\d.]+)\s+'
                        r'p50=([\d.]+)ms\s+p90=([\d.]+)ms\s+p99=([\d.]+)ms',
                        text)
    hist = re.search(r'status histogram: \{([^}]*)\}.*socket errors: '
                     r'connect (\d+) read (\d+) write (\d+) timeout (\d+)',
                     text)
    if out.returncode or not summary or not hist:
        return {'error': text[-2000:]}
    statuses = {int(k): int(v) for k, v in
                re.findall(r'"(\d+)": (\d+)', hist.group(1))}
    answered = sum(statuses.values())
    ok = statuses.get(200, 0)
    seconds = answered / float(summary.group(2)) if answered else 0
    connect, read, write, timeout = (int(hist.group(i)) for i in (2, 3, 4,
                                                                  5))
    return {
        'statuses': statuses, 'answered': answered, 'ok': ok,
        'answered_rps': float(summary.group(2)),
        'ok_rps': ok / seconds if seconds else 0.0,
        'p50_ms': float(summary.group(3)), 'p99_ms': float(summary.group(5)),
        'cpu_s': round(cpu, 3),
        'cpu_ms_per_write': cpu * 1000 / ok if ok else float('inf'),
        # wrk counts a server-closed keep-alive connection as a read error:
        # Nova's sync workers close every connection.
        'socket_errors': {'connect': connect, 'read': read, 'write': write,
                          'timeout': timeout},
    }


def show(label, res):
    if 'error' in res:
        log('%s: FAILED\n%s', label, res['error'])
        return
    log('%s: answered %7.1f/s  successful %7.1f/s  p50 %6.2f ms  p99 %7.2f '
        'ms  CPU %.3f ms/write  statuses %s  socket errors %s', label,
        res['answered_rps'], res['ok_rps'], res['p50_ms'], res['p99_ms'],
        res['cpu_ms_per_write'], res['statuses'], res['socket_errors'])


def read_back(server):
    """The flavor's specs as the server answers GET now."""
    url = server.base + '/flavors/%s/os-extra_specs' % FLAVOR
    parts = url.split('/', 3)
    host, port = parts[2].split(':')
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        conn.request('GET', '/' + parts[3], headers=dict(
            [flavors_api.AUTH], **{'OpenStack-API-Version': 'compute 2.86',
                                   'X-OpenStack-Nova-API-Version': '2.86'}))
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    if resp.status != 200:
        return None
    return json.loads(body)['extra_specs']


def check_stored(server):
    """Problems with what the server stored (empty list: none)."""
    specs = read_back(server)
    if specs is None:
        return ['%s: GET of the specs failed' % server.name]
    expected = dict(flavors_api.SPECS)
    value = specs.get(CHANGING_KEY)
    problems = []
    # wrk/extra_specs_write.lua writes 1024 + (tid * 1000003 + n) % 100000
    # with n > 0: 1024 (the seeded value) only after 100000 writes.
    if value is None or not value.isdigit() or int(value) == 1024:
        problems.append('%s: %s is %r, not a value the run wrote'
                        % (server.name, CHANGING_KEY, value))
    expected[CHANGING_KEY] = value
    if specs != expected:
        problems.append('%s: stored specs differ: %s' % (server.name, specs))
    return problems


def check_in_database(url):
    """Problems, should Nova's API database at ``url`` not hold the
    flavor's specs (that is, Nova did not use it).
    """
    import sqlalchemy as sa
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            count = conn.execute(sa.text(
                'SELECT count(*) FROM flavor_extra_specs s JOIN flavors f '
                'ON f.id = s.flavor_id WHERE f.flavorid = :f'),
                {'f': FLAVOR}).scalar()
    finally:
        engine.dispose()
    return [] if count == len(flavors_api.SPECS) else [
        "nova: its PostgreSQL API database has %d specs of %s, not %d"
        % (count, FLAVOR, len(flavors_api.SPECS))]


# ------------------------------------------------------------ a backend
def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float('nan')


def run_backend(args, backend):
    databases = []
    mini_connection = nova_connection = None
    if backend == 'postgresql':
        from nova_mini.tests.harness import postgresql
        for prefix in ('nova_mini_esw', 'nova_anchor_api_esw'):
            databases.append(postgresql.TemporaryDatabase(prefix=prefix))
        mini_connection, nova_connection = (d.url for d in databases)
    mini = flavors_api.NovaMini(args.workers, args.threads, False,
                                connection=mini_connection)
    nova = NovaServer(args.anchor_scripts, nova_connection)
    out = {'backend': backend, 'picks': [], 'rounds': {'nova_mini': [],
                                                       'nova': []}}
    try:
        nova.start(args.nova_configs[0])
        mini.start()
        for server in (mini, nova):
            seed(args, server)
        if len(args.nova_configs) > 1:
            for config in args.nova_configs:
                nova.start(config)
                res = measure(args, nova)
                show('%s pick nova %s' % (backend, config_label(config)), res)
                out['picks'].append({'config': config, 'result': res})
            scored = [p for p in out['picks'] if 'error' not in p['result']]
            if not scored:
                raise SystemExit('nova failed with every configuration')
            best = max(scored, key=lambda p: p['result']['ok_rps'])['config']
        else:
            best = args.nova_configs[0]
        out['nova_config'] = best
        log('%s: nova measured with %s', backend, config_label(best))
        nova.start(best)
        servers = [mini, nova]
        for rnd in range(args.rounds):
            for server in servers if rnd % 2 == 0 else servers[::-1]:
                res = measure(args, server)
                show('%s round %d %s' % (backend, rnd + 1, server.name), res)
                out['rounds'][server.name].append(res)
        out['stored_problems'] = check_stored(mini) + check_stored(nova)
        if nova_connection:
            out['stored_problems'] += check_in_database(nova_connection)
        for problem in out['stored_problems']:
            log('WARNING: %s', problem)
    finally:
        mini.stop()
        nova.remove()
        for database in databases:
            database.drop()
    return out


def summarise(out):
    med = {}
    for name, runs in out['rounds'].items():
        good = [r for r in runs if 'error' not in r]
        med[name] = {
            'answered_rps': median([r['answered_rps'] for r in good]),
            'ok_rps': median([r['ok_rps'] for r in good]),
            'p50_ms': median([r['p50_ms'] for r in good]),
            'p99_ms': median([r['p99_ms'] for r in good]),
            'cpu_ms_per_write': median([r['cpu_ms_per_write'] for r in good]),
            'failed_runs': len(runs) - len(good),
            'non_200': sum(a for r in good for s, a in r['statuses'].items()
                           if s != 200),
            'socket_errors': sum(sum(r['socket_errors'].values())
                                 for r in good),
            'rounds_ok_rps': [round(r['ok_rps'], 1) for r in good],
        }
    mini, nova = med['nova_mini'], med['nova']
    ratio = mini['ok_rps'] / nova['ok_rps'] if nova['ok_rps'] else float(
        'inf')
    missed = []
    if not ratio >= GOAL_RATIO:
        missed.append('successful writes/s %.2fx Nova (goal >= %gx)'
                      % (ratio, GOAL_RATIO))
    if not mini['cpu_ms_per_write'] <= GOAL_CPU_MS:
        missed.append('%.3f ms server CPU per write (goal <= %g)'
                      % (mini['cpu_ms_per_write'], GOAL_CPU_MS))
    if mini['failed_runs'] or mini['non_200'] or mini['socket_errors']:
        missed.append('nova_mini: %d failed runs, %d non-200 answers, %d '
                      'socket errors (goal: none)' % (
                          mini['failed_runs'], mini['non_200'],
                          mini['socket_errors']))
    if nova['failed_runs']:
        missed.append('nova: %d failed runs' % nova['failed_runs'])
    if out.get('stored_problems'):
        missed.extend(out['stored_problems'])
    out.update(median=med, ratio=ratio, missed=missed)
    return out


def report(args, results, meta):
    print()
    print('extra_specs_write: POST /flavors/%s/os-extra_specs (2.86), 10 '
          'specs, %s changing on every request; wrk -t%d -c%d, %d round(s) '
          'x %g s (+%g s warm-up)' % (
              FLAVOR, CHANGING_KEY, args.client_threads, args.concurrency,
              args.rounds, args.duration, args.warmup))
    print('tree %s, %s, load average before %s / after %s'
          % (meta['tree'], meta['start'], meta['load_before'],
             meta['load_after']))
    print('nova_mini: %d workers%s; Nova 34 nova-api: response validation '
          'off, the best of: %s' % (
              args.workers, ', %d threads' % args.threads if args.threads
              else '', '; '.join(config_label(c) for c in args.nova_configs)))
    head = ('%-10s %-9s %10s %10s %8s %8s %9s  %s' % (
        'backend', 'server', 'answered/s', 'success/s', 'p50 ms', 'p99 ms',
        'CPU ms/w', 'success/s per round; statuses'))
    for out in results:
        print()
        for pick in out['picks']:
            res = pick['result']
            print('%s: nova %s: %s' % (
                out['backend'], config_label(pick['config']),
                'FAILED' if 'error' in res else
                '%.1f successful/s of %.1f answered/s, %.3f ms CPU/write, %s'
                % (res['ok_rps'], res['answered_rps'],
                   res['cpu_ms_per_write'], res['statuses'])))
        print('nova measured with: %s' % config_label(out['nova_config']))
        print(head)
        print('-' * len(head))
        for name in ('nova_mini', 'nova'):
            m = out['median'][name]
            statuses = {}
            for r in out['rounds'][name]:
                for code, n in r.get('statuses', {}).items():
                    statuses[code] = statuses.get(code, 0) + n
            print('%-10s %-9s %10.1f %10.1f %8.2f %8.2f %9.3f  %s; %s' % (
                out['backend'], name, m['answered_rps'], m['ok_rps'],
                m['p50_ms'], m['p99_ms'], m['cpu_ms_per_write'],
                ' '.join('%.1f' % v for v in m['rounds_ok_rps']),
                json.dumps(statuses, sort_keys=True)))
        mini, nova = out['median']['nova_mini'], out['median']['nova']
        print('%-10s %-9s %9.2fx %9.2fx %7.2fx %7.2fx %8.2fx  nova_mini/nova'
              % (out['backend'], 'ratio',
                 mini['answered_rps'] / nova['answered_rps'],
                 out['ratio'], mini['p50_ms'] / nova['p50_ms'],
                 mini['p99_ms'] / nova['p99_ms'],
                 mini['cpu_ms_per_write'] / nova['cpu_ms_per_write']))
        print('goal (>= %gx successful writes/s, <= %g ms CPU/write, no '
              'error on nova_mini): %s' % (
                  GOAL_RATIO, GOAL_CPU_MS, 'MISSED: ' + '; '.join(
                      out['missed']) if out['missed'] else 'met'))
    print()
    print('median over the rounds; CPU ms/w: user + system CPU of the '
          "server's processes over the measured run per successful write.")


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--backends', default='sqlite,postgresql',
                    help='comma-separated: sqlite, postgresql (%(default)s)')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--duration', type=float, default=10,
                    help='measured seconds per run (10)')
    ap.add_argument('--warmup', type=float, default=2,
                    help='seconds of load before each measured run (2)')
    ap.add_argument('-c', '--concurrency', type=int, default=8,
                    help='wrk connections (8)')
    ap.add_argument('--client-threads', type=int, default=2,
                    help='wrk threads (2)')
    ap.add_argument('--workers', type=int, default=2,
                    help='nova-mini-api worker processes (2)')
    ap.add_argument('--threads', type=int, default=None,
                    help="nova-mini-api threads per worker (default: "
                         "nova_mini's)")
    ap.add_argument('--nova-configs', type=parse_configs,
                    default=parse_configs(
                        'gthread:2:8,sync:2:1,gthread:4:4'),
                    help='Nova configurations to pick the best from, '
                         'CLASS:WORKERS:THREADS, comma-separated '
                         '(gthread:2:8,sync:2:1,gthread:4:4)')
    ap.add_argument('--anchor-scripts', default=os.environ.get(
        'NOVA_ANCHOR_SCRIPTS', flavors_api.DEFAULT_ANCHOR),
        help='the Nova anchor scripts (%(default)s)')
    ap.add_argument('--json-out', help='also write the results here')
    args = ap.parse_args()
    backends = [b.strip() for b in args.backends.split(',') if b.strip()]
    for backend in backends:
        if backend not in ('sqlite', 'postgresql'):
            ap.error('unknown backend %s' % backend)
    if not shutil.which('wrk'):
        ap.error('wrk is not installed (apt-get install -y wrk)')
    for name in ('load.py', 'run_wrk.sh', 'start_nova_api.sh',
                 'wrk/%s.lua' % SCENARIO):
        if not os.path.exists(os.path.join(args.anchor_scripts, name)):
            ap.error('%s not found in %s (see --anchor-scripts)'
                     % (name, args.anchor_scripts))
    meta = {'tree': tree(), 'load_before': load_average(),
            'start': time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}
    results = [summarise(run_backend(args, backend)) for backend in backends]
    meta['load_after'] = load_average()
    report(args, results, meta)
    if args.json_out:
        with open(args.json_out, 'w') as stream:
            json.dump({'meta': meta, 'args': {
                k: v for k, v in vars(args).items()}, 'results': results},
                stream, indent=2, default=str)
    return 1 if any(out['missed'] for out in results) else 0


if __name__ == '__main__':
    sys.exit(main())
