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

"""Flavors API throughput: nova_mini's nova-mini-api beside Nova's nova-api.

Measures requests/s and p50/p99 latency of

    flavors_detail    GET  .../flavors/detail                (microversion 2.61)
    extra_specs_post  POST .../flavors/anchor-0/os-extra_specs, 10 specs (2.86)

(``extra_specs_post`` posts the same specs every time: after the first
request nova_mini finds them stored and writes nothing, while Nova
rewrites every key.  extra_specs_write.py measures writes.)

on two servers on this machine, with the same load, the same data and the
same number of worker processes (2):

* nova_mini: this tool starts nova-mini-api itself (noauth2, SQLite in a
  temporary state directory, ``[api] workers = 2``, a free port; ``db sync``
  first) and stops it at the end;
* Nova 34's nova-api: the anchor in ../shared/anchors/nova_api (gunicorn,
  2 workers, SQLite, noauth2 stand-in) on 127.0.0.1:18774; started with
  its start_nova_api.sh when it does not answer, and left running.  By
  default with its best settings (``--nova-settings best``: gthread
  workers of 8 threads, response validation off); ``--nova-settings
  default`` compares with Nova as shipped (sync workers, response
  validation ``warn``).  A running anchor with other settings (or one
  this tool did not start: it records the settings beside the anchor's
  pid file) is restarted with the ones asked for (``$NOVA_VENV`` and the
  anchor's other variables are passed through).

Both are seeded identically with the anchor's load.py (``--setup-only``:
flavors anchor-0..9, each with the same 10 extra specs).  Then every round
runs every scenario against both servers, one after the other (the order
alternates between rounds), with the same client, concurrency and duration.
The client is wrk when installed (C, 2 threads), else the anchor's load.py
spread over 2 processes.  The table gives the median over the rounds of
each figure, and nova_mini/nova ratios of the medians.  The idle latency of
a single request (new connection, nothing else running) is measured too.

Example (from the repository root)::

    .venv-tests/bin/python tools/bench/flavors_api.py             # 3 x 15 s
    .venv-tests/bin/python tools/bench/flavors_api.py --rounds 5 --duration 20

Every load run is bounded (duration + warm-up + a margin); the whole run
takes about rounds x scenarios x 2 x (duration + warm-up + 1) seconds plus
start-up.  Exit status 1 when a run failed or saw unexpected statuses.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_ANCHOR = os.path.normpath(
    os.path.join(REPO, '..', 'shared', 'anchors', 'nova_api'))

AUTH = ('X-Auth-Token', 'admin:admin')
# The anchor's knobs (start_nova_api.sh) per --nova-settings: "default" is
# how Nova ships (sync workers, response validation "warn"), "best" the
# fastest nova-api found here (threads, no response-schema checks).
NOVA_SETTINGS = {
    'default': {'NOVA_API_WORKER_CLASS': 'sync', 'NOVA_API_THREADS': '1',
                'NOVA_RESPONSE_VALIDATION': 'warn'},
    'best': {'NOVA_API_WORKER_CLASS': 'gthread', 'NOVA_API_THREADS': '8',
             'NOVA_RESPONSE_VALIDATION': 'ignore'},
}
SCENARIOS = {
    # name: (method, path below the API root, microversion, expected status)
    'flavors_detail': ('GET', '/flavors/detail', '2.61', 200),
    'extra_specs_post': ('POST', '/flavors/anchor-0/os-extra_specs', '2.86',
                         200),
    'extra_specs_bad': ('POST', '/flavors/anchor-0/os-extra_specs', '2.86',
                        400),
}
SPECS = {
    'hw:cpu_policy': 'dedicated', 'hw:mem_page_size': 'large',
    'hw:numa_nodes': '2', 'trait:HW_CPU_X86_AVX2': 'required',
    'resources:VCPU': '2', 'quota:cpu_shares': '1024',
    'hw:cpu_thread_policy': 'prefer', 'hw:watchdog_action': 'reset',
    'hw_rng:allowed': 'true', 'hw:boot_menu': 'false',
}
BODIES = {
    'flavors_detail': None,
    'extra_specs_post': {'extra_specs': SPECS},
    'extra_specs_bad': {'extra_specs': {'hw:cpu_policy': 'bogus'}},
}


def log(message, *args):
    print('[%s] %s' % (time.strftime('%H:%M:%S'), message % args),
          flush=True)


def free_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def get_status(url, timeout=5.0):
    """HTTP status of GET url with the admin token, or None."""
    parts = url.split('/', 3)
    host, port = parts[2].split(':')
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request('GET', '/' + parts[3] if len(parts) > 3 else '/',
                     headers=dict([AUTH]))
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except OSError:
        return None
    finally:
        conn.close()


def wait_up(url, seconds, proc=None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if get_status(url) == 200:
            return True
        if proc is not None and proc.poll() is not None:
            return False
        time.sleep(0.3)
    return False


def venv_script(name):
    """A console script of the Python running this tool (its venv)."""
    path = os.path.join(os.path.dirname(sys.executable), name)
    return path if os.path.exists(path) else shutil.which(name)


def _children(pid):
    kids = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as stream:
                    fields = stream.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                kids.append(int(entry))
    return kids


def cpu_seconds(master):
    """CPU seconds (user + system) of a gunicorn master and its workers."""
    if not master:
        return None
    total = 0
    for pid in [master] + _children(master):
        try:
            with open('/proc/%d/stat' % pid) as stream:
                fields = stream.read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])     # utime, stime
    return total / os.sysconf('SC_CLK_TCK')


# ------------------------------------------------------------ the servers
class NovaMini(object):
    """nova-mini-api in a temporary state directory."""

    name = 'nova_mini'

    def log_mark(self):
        return None

    def requests_since(self, mark):
        return None     # no access log; and its port is known to us only

    def master_pid(self):
        return self.proc.pid if self.proc else None

    def __init__(self, workers, threads, keep, connection=None):
        self.workers = workers
        self.threads = threads
        self.keep = keep
        self.port = free_port()
        self.state = tempfile.mkdtemp(prefix='nova-mini-bench-')
        # default: SQLite in the state directory
        self.connection = connection or 'sqlite:///%s' % os.path.join(
            self.state, 'nova_mini.sqlite')
        self.base = 'http://127.0.0.1:%d/compute/v2.1' % self.port
        self.proc = None
        self.log_path = os.path.join(self.state, 'nova-mini-api.log')

    def start(self):
        conf = os.path.join(self.state, 'nova-mini.conf')
        lines = ['[DEFAULT]', 'state_path = %s' % self.state, '',
                 '[api]', 'auth_strategy = noauth2',
                 'bind_host = 127.0.0.1', 'bind_port = %d' % self.port,
                 'workers = %d' % self.workers]
        if self.threads:
            lines.append('threads_per_worker = %d' % self.threads)
        lines += ['', '[database]', 'connection = %s' % self.connection,
                  '']
        with open(conf, 'w') as stream:
            stream.write('\n'.join(lines))
        manage, api = venv_script('nova-mini-manage'), venv_script(
            'nova-mini-api')
        if not manage or not api:
            raise SystemExit('nova-mini-manage/nova-mini-api not found next '
                             'to %s: run this tool with the venv where '
                             'nova_mini is installed' % sys.executable)
        subprocess.run([manage, '--config-file', conf, 'db', 'sync'],
                       check=True, timeout=120, stdout=subprocess.DEVNULL)
        with open(self.log_path, 'ab') as out:
            self.proc = subprocess.Popen(
                [api, '--config-file', conf], stdout=out,
                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True)
        if not wait_up(self.base + '/', 60, self.proc):
            self.stop()
            raise SystemExit('nova-mini-api did not come up; see %s'
                             % self.log_path)
        # Workers load the app lazily: make each of them answer once.
        for _ in range(4 * self.workers):
            get_status(self.base + '/')
        log('nova_mini: nova-mini-api pid %d on %s (%d workers%s), state %s',
            self.proc.pid, self.base, self.workers,
            ', %d threads each' % self.threads if self.threads else '',
            self.state)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)     # gunicorn master
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        if not self.keep:
            shutil.rmtree(self.state, ignore_errors=True)


class NovaAnchor(object):
    """Nova's nova-api, started by the anchor's scripts (left running)."""

    name = 'nova'

    def __init__(self, scripts, base, settings):
        self.scripts = scripts
        self.base = base
        self.settings = settings
        self.anchor_dir = os.environ.get('NOVA_ANCHOR_DIR', '/tmp/nova_anchor')
        # nova logs one line per request: lets a run spot other traffic.
        self.request_log = os.path.join(
            os.environ.get('NOVA_ANCHOR_DIR', '/tmp/nova_anchor'),
            'nova-api.log')

    def master_pid(self):
        try:
            with open(os.path.join(os.environ.get(
                    'NOVA_ANCHOR_DIR', '/tmp/nova_anchor'), 'pid')) as stream:
                return int(stream.read().strip())
        except (OSError, ValueError):
            return None

    def log_mark(self):
        try:
            return os.path.getsize(self.request_log)
        except OSError:
            return None

    def requests_since(self, mark):
        """Requests nova logged since ``mark`` (None if unknown)."""
        if mark is None:
            return None
        try:
            with open(self.request_log, 'rb') as stream:
                stream.seek(mark)
                return stream.read().count(b'nova.api.openstack.requestlog')
        except OSError:
            return None

    def _settings_file(self):
        return os.path.join(self.anchor_dir, 'flavors_api-settings.json')

    def running_settings(self):
        """The knobs the running anchor was started with by this tool
        (None if unknown: gunicorn rewrites its command line, so they are
        recorded beside the anchor's pid file when it starts it).
        """
        try:
            with open(self._settings_file()) as stream:
                recorded = json.load(stream)
        except (OSError, ValueError):
            return None
        if recorded.pop('pid', None) != self.master_pid():
            return None
        return recorded

    def start(self):
        wanted = NOVA_SETTINGS[self.settings]
        if get_status(self.base + '/') == 200:
            running = self.running_settings()
            if running == wanted:
                log('nova: nova-api already answers on %s with the %s '
                    'settings %s', self.base, self.settings, running)
                return
            log('nova: running with %s; restarting it with the %s settings',
                running or 'settings this tool did not record',
                self.settings)
            subprocess.run([os.path.join(self.scripts, 'stop_nova_api.sh')],
                           check=True, timeout=120)
        script = os.path.join(self.scripts, 'start_nova_api.sh')
        log('nova: starting %s with %s', script, wanted)
        subprocess.run([script], check=True, timeout=600,
                       env=dict(os.environ, **wanted))
        if not wait_up(self.base + '/', 60):
            raise SystemExit('nova-api did not come up on %s' % self.base)
        with open(self._settings_file(), 'w') as stream:
            json.dump(dict(wanted, pid=self.master_pid()), stream)

    def stop(self):
        pass


# ----------------------------------------------------------- the clients
def seed(load_py, server):
    out = subprocess.run(
        [sys.executable, load_py, '--base-url', server.base, '--scenario',
         'flavors_detail', '--setup-only'],
        check=True, timeout=120, capture_output=True, text=True).stdout
    match = re.search(r'returns (\d+) flavors', out)
    count = int(match.group(1)) if match else -1
    log('%s: seeded; /flavors/detail returns %d flavors', server.name, count)
    return count


def run_wrk(args, server, scenario, measuring):
    script = os.path.join(args.anchor_scripts, 'run_wrk.sh')
    env = dict(os.environ, SETUP='0', AUTH='%s: %s' % AUTH,
               PYTHON=sys.executable)
    if args.warmup > 0:
        subprocess.run([script, server.base, scenario,
                        str(max(1, round(args.warmup))),
                        str(args.concurrency), str(args.client_threads)],
                       env=env, capture_output=True,
                       timeout=args.warmup + 30)
    measuring()
    out = subprocess.run(
        [script, server.base, scenario, str(max(1, round(args.duration))),
         str(args.concurrency), str(args.client_threads)],
        env=env, capture_output=True, text=True,
        timeout=args.duration + 30)
    text = out.stdout + out.stderr
    match = re.search(r'wrk: requests=(\d+)\s+req/s=([\d.]+)\s+p50=([\d.]+)ms'
                      r'\s+p90=([\d.]+)ms\s+p99=([\d.]+)ms', text)
    hist = re.search(r'unexpected=(\d+); socket errors: connect (\d+) read '
                     r'(\d+) write (\d+) timeout (\d+)', text)
    if out.returncode or not match or not hist:
        return {'error': text[-2000:]}
    # wrk counts a server-closed keep-alive connection as a read error;
    # nova's sync workers close every connection, so those are not failures.
    return {'requests': int(match.group(1)), 'rps': float(match.group(2)),
            'p50_ms': float(match.group(3)), 'p99_ms': float(match.group(5)),
            'unexpected': int(hist.group(1)),
            'errors': int(hist.group(2)) + int(hist.group(5))}


def run_load_py(args, server, scenario, measuring):
    # load.py warms up itself: the server-side figures (CPU, requests
    # served) then cover the warm-up too.
    load_py = os.path.join(args.anchor_scripts, 'load.py')
    measuring()
    out = subprocess.run(
        [sys.executable, load_py, '--base-url', server.base,
         '--scenario', scenario, '--no-setup', '--json',
         '--duration', str(args.duration), '--warmup', str(args.warmup),
         '--concurrency', str(args.concurrency),
         '--procs', str(args.client_procs)],
        capture_output=True, text=True,
        timeout=args.duration + args.warmup + 60)
    lines = [line for line in out.stdout.splitlines()
             if line.startswith('{')]
    if not lines:
        return {'error': (out.stdout + out.stderr)[-2000:]}
    data = json.loads(lines[-1])
    return {'requests': data['responses'], 'rps': data['rps'],
            'p50_ms': data['p50_ms'], 'p99_ms': data['p99_ms'],
            'unexpected': data['unexpected'],
            'errors': data['transport_errors']}


def idle_latency(server, scenario, samples):
    """Median ms of one request at a time on a new connection each."""
    method, path, mv, expected = SCENARIOS[scenario]
    body = BODIES[scenario]
    data = json.dumps(body).encode() if body is not None else None
    headers = dict([AUTH], **{
        'OpenStack-API-Version': 'compute ' + mv,
        'X-OpenStack-Nova-API-Version': mv, 'Accept': 'application/json'})
    if data is not None:
        headers['Content-Type'] = 'application/json'
    host, port = server.base.split('/')[2].split(':')
    prefix = '/' + server.base.split('/', 3)[3]
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        conn.request(method, prefix + path, body=data, headers=headers)
        resp = conn.getresponse()
        resp.read()
        conn.close()
        times.append((time.perf_counter() - start) * 1000)
        if resp.status != expected:
            raise SystemExit('%s %s answered %d, expected %d'
                             % (server.name, scenario, resp.status, expected))
        time.sleep(0.05)
    return statistics.median(times)


# ------------------------------------------------------------------ main
def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float('nan')


def ratio(a, b):
    return a / b if b else float('nan')


def report(args, servers, results, idle, counts, loads):
    scenarios = args.scenarios
    print()
    # The anchor runs its own worker count (NOVA_API_WORKERS, 2).
    print('Flavors API: nova_mini (%d worker(s)) vs Nova 34 nova-api '
          '(%s workers), SQLite, %s, %d clients, %d round(s) x %g s '
          '(+%g s warm-up)'
          % (args.workers, os.environ.get('NOVA_API_WORKERS', '2'),
             args.tool_label, args.concurrency, args.rounds,
             args.duration, args.warmup))
    print('nova-api settings: %s %s' % (args.nova_settings, ' '.join(
        '%s=%s' % item for item in sorted(
            NOVA_SETTINGS[args.nova_settings].items()))))
    print('flavors returned by /flavors/detail: %s' % ', '.join(
        '%s %d' % (s.name, counts[s.name]) for s in servers))
    print('load average before/after: %s / %s' % loads)
    if float(loads[0].split()[0]) > 0.5 * (os.cpu_count() or 1):
        print('WARNING: the machine was busy before the run (load average '
              'above half the cores): figures are depressed and noisier, '
              'and a multi-threaded server competes better for the CPU '
              'than a single-threaded one.')
    foreign = sum(1 for sc in results.values() for runs in sc.values()
                  for r in runs if r.get('foreign_requests'))
    if foreign:
        print('WARNING: %d run(s) saw other traffic on nova (see the log '
              'above).' % foreign)
    print()
    head = ('%-17s %-9s %9s %9s %9s %9s %10s  %s'
            % ('scenario', 'server', 'req/s', 'p50 ms', 'p99 ms',
               'idle ms', 'CPU ms/req', 'req/s per round'))
    print(head)
    print('-' * len(head))
    summary = {}
    for scenario in scenarios:
        med = {}
        for server in servers:
            runs = results[scenario][server.name]
            med[server.name] = {
                'rps': median([r.get('rps') for r in runs]),
                'p50_ms': median([r.get('p50_ms') for r in runs]),
                'p99_ms': median([r.get('p99_ms') for r in runs]),
                'idle_ms': idle[scenario][server.name],
                'cpu_ms_per_req': median([r.get('cpu_ms_per_req')
                                          for r in runs]),
                'rounds_rps': [r.get('rps') for r in runs],
            }
            m = med[server.name]
            print('%-17s %-9s %9.1f %9.2f %9.2f %9.2f %10.2f  %s' % (
                scenario, server.name, m['rps'], m['p50_ms'], m['p99_ms'],
                m['idle_ms'], m['cpu_ms_per_req'], ' '.join(
                    '%.1f' % v if v is not None else 'ERR'
                    for v in m['rounds_rps'])))
        mini, nova = med['nova_mini'], med['nova']
        med['ratio'] = {
            'rps': ratio(mini['rps'], nova['rps']),
            'p50_ms': ratio(mini['p50_ms'], nova['p50_ms']),
            'p99_ms': ratio(mini['p99_ms'], nova['p99_ms']),
            'idle_ms': ratio(mini['idle_ms'], nova['idle_ms']),
            'cpu_ms_per_req': ratio(mini['cpu_ms_per_req'],
                                    nova['cpu_ms_per_req']),
        }
        r = med['ratio']
        print('%-17s %-9s %8.2fx %8.2fx %8.2fx %8.2fx %9.2fx  %s' % (
            scenario, 'ratio', r['rps'], r['p50_ms'], r['p99_ms'],
            r['idle_ms'], r['cpu_ms_per_req'], 'nova_mini/nova'))
        print()
        summary[scenario] = med
    print('req/s: higher is better; latencies and server CPU per request '
          '(user + system time of the gunicorn master and workers over the '
          'measured run, per request served): lower is better.')
    print('Caveat: this machine has %d CPU core(s), shared by the client '
          '(%s), the server under test and anything else running; the idle '
          'server is not stopped while the other one is measured.  Compare '
          'only figures taken in the same run (the servers alternate), and '
          'expect +-20%% between runs on a busy machine.'
          % (os.cpu_count() or 0, args.tool_label))
    return summary


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--rounds', type=int, default=3,
                    help='rounds; every round runs every scenario on both '
                         'servers (3)')
    ap.add_argument('--duration', type=float, default=15,
                    help='measured seconds per run (15)')
    ap.add_argument('--warmup', type=float, default=2,
                    help='seconds of load before each measured run (2)')
    ap.add_argument('-c', '--concurrency', type=int, default=8,
                    help='concurrent clients, one connection each (8)')
    ap.add_argument('--scenarios', default='flavors_detail,extra_specs_post',
                    help='comma-separated, of %s' % ', '.join(SCENARIOS))
    ap.add_argument('--tool', choices=('auto', 'wrk', 'load.py'),
                    default='auto',
                    help='load generator: wrk if installed, else load.py')
    ap.add_argument('--client-threads', type=int, default=2,
                    help='wrk threads (2)')
    ap.add_argument('--client-procs', type=int, default=2,
                    help='load.py processes (2)')
    ap.add_argument('--workers', type=int, default=2,
                    help='nova-mini-api worker processes (2); the Nova '
                         'anchor runs $NOVA_API_WORKERS (2) whatever this '
                         'says')
    ap.add_argument('--threads', type=int, default=None,
                    help="nova-mini-api threads per worker (default: "
                         "nova_mini's default)")
    ap.add_argument('--anchor-scripts', default=os.environ.get(
        'NOVA_ANCHOR_SCRIPTS', DEFAULT_ANCHOR),
        help='the Nova anchor scripts (%(default)s)')
    ap.add_argument('--nova-settings', choices=sorted(NOVA_SETTINGS),
                    default='best',
                    help="the Nova anchor's settings: best (gthread, 8 "
                         "threads, no response validation: the fastest "
                         "nova-api) or default (as Nova ships: sync "
                         "workers, response validation warn); a running "
                         "anchor with other settings is restarted "
                         "(%(default)s)")
    ap.add_argument('--nova-url', default='http://127.0.0.1:18774/v2.1',
                    help="Nova's API root (%(default)s)")
    ap.add_argument('--idle-samples', type=int, default=21,
                    help='single requests per scenario and server for the '
                         'idle latency (21)')
    ap.add_argument('--keep-state', action='store_true',
                    help="keep nova_mini's temporary state directory")
    ap.add_argument('--json-out', help='also write the results to this file')
    args = ap.parse_args()

    args.scenarios = [s.strip() for s in args.scenarios.split(',') if s]
    for scenario in args.scenarios:
        if scenario not in SCENARIOS:
            ap.error('unknown scenario %s' % scenario)
    for name in ('load.py', 'run_wrk.sh', 'start_nova_api.sh'):
        if not os.path.exists(os.path.join(args.anchor_scripts, name)):
            ap.error('%s not found in %s (see --anchor-scripts)'
                     % (name, args.anchor_scripts))
    if args.tool == 'auto':
        args.tool = 'wrk' if shutil.which('wrk') else 'load.py'
    if args.tool == 'wrk':
        if not shutil.which('wrk'):
            ap.error('wrk is not installed (apt-get install -y wrk)')
        args.tool_label = 'wrk -t%d' % args.client_threads
        runner = run_wrk
    else:
        args.tool_label = 'load.py --procs %d' % args.client_procs
        runner = run_load_py

    mini = NovaMini(args.workers, args.threads, args.keep_state)
    nova = NovaAnchor(args.anchor_scripts, args.nova_url.rstrip('/'),
                      args.nova_settings)
    servers = [mini, nova]
    load_before = '%.2f %.2f %.2f' % os.getloadavg()
    failed = False
    try:
        nova.start()
        mini.start()
        load_py = os.path.join(args.anchor_scripts, 'load.py')
        counts = {s.name: seed(load_py, s) for s in servers}
        if len(set(counts.values())) != 1:
            log('WARNING: the servers list different numbers of flavors: %s',
                counts)

        idle = {sc: {} for sc in args.scenarios}
        for scenario in args.scenarios:
            for server in servers:
                idle[scenario][server.name] = idle_latency(
                    server, scenario, args.idle_samples)
        log('idle single-request latency (median ms): %s', json.dumps(
            {sc: {k: round(v, 2) for k, v in d.items()}
             for sc, d in idle.items()}))

        results = {sc: {s.name: [] for s in servers} for sc in args.scenarios}
        for rnd in range(args.rounds):
            order = servers if rnd % 2 == 0 else servers[::-1]
            for scenario in args.scenarios:
                for server in order:
                    start = {}

                    def measuring(server=server, start=start):
                        start['mark'] = server.log_mark()
                        start['cpu'] = cpu_seconds(server.master_pid())

                    res = runner(args, server, scenario, measuring)
                    logged = server.requests_since(start.get('mark'))
                    cpu_end = cpu_seconds(server.master_pid())
                    results[scenario][server.name].append(res)
                    if 'error' in res:
                        failed = True
                        log('round %d %s %s: FAILED\n%s', rnd + 1, scenario,
                            server.name, res['error'])
                        continue
                    if res['unexpected'] or res['errors']:
                        failed = True
                    # requests the server handled while measured (load.py:
                    # with its warm-up), give or take the ones in flight
                    # at the edges
                    sent = res['requests'] * (
                        1 + (args.warmup / args.duration
                             if args.tool == 'load.py' else 0))
                    served = logged if logged is not None else sent
                    if None not in (start.get('cpu'), cpu_end) and served:
                        # server CPU per request: robust to other load on
                        # the machine (and to other traffic, for nova)
                        res['cpu_ms_per_req'] = round(
                            (cpu_end - start['cpu']) * 1000 / served, 3)
                    if logged is not None:
                        res['served'] = logged
                        extra = logged - sent
                        if extra > 3 * args.concurrency + 10:
                            res['foreign_requests'] = int(extra)
                            log('WARNING: %s served ~%d more requests than '
                                'the client sent: other traffic reached it '
                                'during this run', server.name, extra)
                    log('round %d %-16s %-9s req/s %8.1f  p50 %7.2f ms  '
                        'p99 %7.2f ms  server CPU %s ms/req  unexpected %d  '
                        'errors %d', rnd + 1, scenario, server.name,
                        res['rps'], res['p50_ms'], res['p99_ms'],
                        res.get('cpu_ms_per_req', '?'), res['unexpected'],
                        res['errors'])
    finally:
        mini.stop()
    loads = (load_before, '%.2f %.2f %.2f' % os.getloadavg())
    summary = report(args, servers, results, idle, counts, loads)
    if args.json_out:
        with open(args.json_out, 'w') as stream:
            json.dump({'args': {k: v for k, v in vars(args).items()},
                       'flavor_counts': counts, 'load_average': loads,
                       'runs': results, 'summary': summary,
                       'time': time.strftime('%Y-%m-%dT%H:%M:%S%z')},
                      stream, indent=2)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
