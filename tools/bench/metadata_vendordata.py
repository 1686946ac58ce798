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

"""Dynamic vendordata: cache hits, upstream calls and cache misses.

One nova-mini-metadata with two DynamicJSON targets, each a
nova-mini-vendordata-sample that takes 300 ms per answer
(``response_delay = 0.3``) and sends ``Cache-Control: max-age=60``, plus
StaticJSON. For each cache (``--cache``: memcached shared by the
workers, the workers' in-process caches, or both one after the other) it
measures:

(d) the idle latency of a cache hit, one request at a time as a booting
    instance asks: the median of ``--serial`` requests of
    ``vendor_data2.json`` against ``meta_data.json`` of the same instance,
    alternating on one keep-alive connection (goal: a hit costs at most
    1.5 x meta_data.json);
(a) the same under load: requests/s, wrk p50 and the metadata service's
    CPU time per request (its gunicorn master and workers, from /proc) of
    ``vendor_data2.json`` served from the cache against ``meta_data.json``
    (goals: a hit's p50 and CPU per request at most 1.5 x meta_data.json's;
    the req/s ratio is printed too); median over ``--rounds`` rounds, each
    on an instance whose vendordata was fetched just before (and read by
    every worker in an unmeasured 2-second run), each file run twice for
    half of ``--duration``, in the order A B B A;
(b) how many times each target is called per instance while clients read
    ``vendor_data2.json`` of ``--instances`` instances round and round for
    ``--minute`` seconds (goal: 1 with memcached; at most one per worker
    with in-process caches), counted on the target side (the sample logs
    every POST it answers);
(c) the latency of a cache miss: ``vendor_data2.json`` of instances never
    read before, one request at a time (goal: about 300 ms, the slowest
    target, not 600: the targets are called in parallel).

Everything runs on this machine from a temporary state directory: SQLite,
instances stored through the Instance object (no API, scheduler or
RabbitMQ needed), the metadata service with ``--workers`` workers (2)
sharing a memcached the tool starts on a free port (``[cache] enabled``;
``--memcached-servers`` for a running one), or each with its in-process
cache. The targets run with ``auth_strategy = noauth`` and the metadata
service has no ``[vendordata_dynamic_auth]``: Keystone is left out, as it
would only add the token validation of the first call (auth_token caches
it) and the one token the metadata service reuses; the live tests cover
the Keystone path.

The load generator is wrk (``apt-get install wrk``) when installed, else a
threaded Python client (keep-alive connections); ``--tool`` chooses.

Example (from the repository root)::

    flock /tmp/nova_mini-bench.lock .venv-tests/bin/python \
        tools/bench/metadata_vendordata.py
    .venv-tests/bin/python tools/bench/metadata_vendordata.py \
        --cache memcached --memcached-servers 127.0.0.1:11211 \
        --rounds 5 --json-out /tmp/vendordata_bench.json

Exit status 1 when a goal is missed or a request failed. The output ends
with the tree measured and the load average before and after.
"""

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import _record
from nova_mini.cmd import manage_metadata
from nova_mini_deploy import nova
from nova_mini_deploy import util
from nova_mini_deploy import vendordata_sample

DELAY = 0.3
MAX_AGE = 60
# Goals (d) and (a): a cache hit costs at most this many meta_data.json.
HIT_COST = 1.5
CACHES = ('memcached', 'in-process')
TARGETS = ('slow1', 'slow2')
STATIC = {'cloud-name': 'bench', 'ntp-servers': ['ntp.example.org']}
PROJECT = 'bench-project'
META_DATA = '/openstack/latest/meta_data.json'
VENDOR_DATA2 = '/openstack/latest/vendor_data2.json'


def log(message, *args):
    print('[%s] %s' % (time.strftime('%H:%M:%S'), message % args),
          flush=True)


# ------------------------------------------------------------- the setup
class Memcached(object):
    """A memcached of our own on a free port."""

    def __init__(self):
        self.port = util.free_port()
        self.proc = None

    def start(self):
        binary = shutil.which('memcached')
        if not binary:
            raise SystemExit('memcached is not installed (apt-get install '
                             'memcached), or use --no-memcached')
        args = [binary, '-l', util.LOCALHOST, '-p', str(self.port),
                '-U', '0', '-m', '64']
        if os.geteuid() == 0:
            args += ['-u', 'nobody']
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                                     start_new_session=True)
        util.wait_until(lambda: util.port_open(util.LOCALHOST, self.port),
                        10, 'memcached on port %d' % self.port)
        return self

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(10)


class Bench(object):
    def __init__(self, args, cache):
        self.args = args
        self.cache = cache
        self.state = tempfile.mkdtemp(prefix='nova-mini-vendordata-bench-')
        self.secret = uuid.uuid4().hex
        self.nova = nova.NovaMini(
            self.state, 'rabbit://unused@127.0.0.1:1/', util.free_port(),
            util.free_port(), metadata_workers=args.workers)
        self.targets = [vendordata_sample.VendordataSample(
            self.nova, name='vendordata-%s' % name,
            options={'response_delay': DELAY, 'cache_max_age': MAX_AGE})
            for name in TARGETS]
        self.memcached = (Memcached() if cache == 'memcached'
                          and not args.memcached_servers else None)
        self.instances = []

    @property
    def base(self):
        return self.nova.metadata_url

    def headers(self, instance_id):
        return manage_metadata.signed_headers(self.secret, instance_id,
                                              PROJECT)

    def start(self):
        self.nova.write_config()
        self.nova.db_sync()
        self.instances = self._seed(self.args.instances + self.args.rounds
                                    + self.args.misses + 2)
        log('%d instances stored in %s', len(self.instances), self.state)
        if self.memcached:
            self.memcached.start()
            log('memcached on port %d', self.memcached.port)
        for target in self.targets:
            target.start()
            log('target %s: %s (response_delay %s s, max-age %d)',
                target.name, target.url, DELAY, MAX_AGE)
        static_path = os.path.join(self.nova.etc_dir, 'static.json')
        with open(static_path, 'w') as f:
            json.dump(STATIC, f)
        sections = {
            'metadata': {'metadata_proxy_shared_secret': self.secret},
            'api': {
                'vendordata_providers': 'StaticJSON,DynamicJSON',
                'vendordata_jsonfile_path': static_path,
                'vendordata_dynamic_targets': ','.join(
                    '%s@%s' % (name, target.url)
                    for name, target in zip(TARGETS, self.targets)),
            },
        }
        if self.cache == 'memcached':
            sections['cache'] = {
                'enabled': 'true', 'backend': 'dogpile.cache.pymemcache',
                'memcache_servers': self.memcached_servers}
        extra = self.nova.write_extra_config('vendordata', sections)
        self.metadata_pid = self.nova.start(
            nova.METADATA, config_files=[self.nova.conf_path, extra]).pid
        log('nova-mini-metadata: %s, %d worker(s), %s cache', self.base,
            self.args.workers, self.cache_label)

    @property
    def memcached_servers(self):
        if self.memcached:
            return '%s:%d' % (util.LOCALHOST, self.memcached.port)
        return self.args.memcached_servers

    @property
    def cache_label(self):
        if self.cache == 'memcached':
            return 'memcached (%s)' % self.memcached_servers
        return 'in-process'

    def _seed(self, count):
        """Store ``count`` instances (in a child process: the database of
        the state directory is configured once per process).
        """
        out = subprocess.run(
            [sys.executable, os.path.abspath(__file__), '--seed',
             self.nova.conf_path, str(count)],
            capture_output=True, text=True, timeout=600)
        if out.returncode:
            raise SystemExit('seeding failed: %s' % out.stderr[-3000:])
        return json.loads(out.stdout.strip().splitlines()[-1])

    def stop(self):
        codes = self.nova.stop_all(timeout=30)
        if self.memcached:
            self.memcached.stop()
        if not self.args.keep_state:
            shutil.rmtree(self.state, ignore_errors=True)
        return codes


def _cpu_seconds(pid):
    with open('/proc/%d/stat' % pid) as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')


def service_cpu(pid):
    """CPU seconds (user + system) of ``pid`` and its live descendants:
    the gunicorn master and its workers.
    """
    children = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as f:
                    ppid = int(f.read().rsplit(')', 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            total += _cpu_seconds(current)
        except OSError:
            continue
        todo.extend(children.get(current, ()))
    return total


# ------------------------------------------------------------ the client
def get(base, path, headers, timeout=30):
    """(status, parsed JSON or None, seconds) of one GET on a new
    connection.
    """
    host, port = base.split('//', 1)[1].rsplit(':', 1)
    start = time.perf_counter()
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request('GET', path, headers=headers)
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    seconds = time.perf_counter() - start
    try:
        data = json.loads(body)
    except ValueError:
        data = None
    return resp.status, data, seconds


def run_wrk(args, url, headers):
    argv = ['wrk', '-t%d' % args.client_threads,
            '-c%d' % args.concurrency, '-d%ds' % max(1, round(args.duration)),
            '--timeout', '30s', '--latency']
    for name, value in headers.items():
        argv += ['-H', '%s: %s' % (name, value)]
    out = subprocess.run(argv + [url], capture_output=True, text=True,
                         timeout=args.duration + 60)
    text = out.stdout + out.stderr
    rps = re.search(r'Requests/sec:\s+([\d.]+)', text)
    count = re.search(r'(\d+) requests in', text)
    p50 = re.search(r'50%\s+([\d.]+)(us|ms|s)\b', text)
    bad = re.search(r'Non-2xx or 3xx responses: (\d+)', text)
    errors = re.search(r'Socket errors: connect (\d+), read (\d+), '
                       r'write (\d+), timeout (\d+)', text)
    if out.returncode or not rps:
        return {'error': text[-2000:]}
    scale = {'us': 0.001, 'ms': 1, 's': 1000}
    return {'rps': float(rps.group(1)),
            'requests': int(count.group(1)) if count else None,
            'p50_ms': (float(p50.group(1)) * scale[p50.group(2)]
                       if p50 else None),
            'bad': int(bad.group(1)) if bad else 0,
            'errors': (int(errors.group(1)) + int(errors.group(4))
                       if errors else 0)}


def run_threads(args, url, headers):
    """Closed loop: ``concurrency`` threads, one keep-alive connection
    each, for ``duration`` seconds.
    """
    host, rest = url.split('//', 1)[1].split('/', 1)
    host, port = host.rsplit(':', 1)
    path = '/' + rest
    deadline = time.monotonic() + args.duration
    counts = {'ok': 0, 'bad': 0, 'errors': 0}
    latencies = []
    lock = threading.Lock()

    def client():
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        ok = bad = errors = 0
        mine = []
        while time.monotonic() < deadline:
            start = time.perf_counter()
            try:
                conn.request('GET', path, headers=headers)
                resp = conn.getresponse()
                resp.read()
            except (OSError, http.client.HTTPException):
                errors += 1
                conn.close()
                conn = http.client.HTTPConnection(host, int(port),
                                                  timeout=30)
                continue
            mine.append(time.perf_counter() - start)
            if resp.status == 200:
                ok += 1
            else:
                bad += 1
        conn.close()
        with lock:
            counts['ok'] += ok
            counts['bad'] += bad
            counts['errors'] += errors
            latencies.extend(mine)

    threads = [threading.Thread(target=client)
               for _ in range(args.concurrency)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - start
    return {'rps': (counts['ok'] + counts['bad']) / elapsed,
            'requests': counts['ok'] + counts['bad'],
            'p50_ms': (statistics.median(latencies) * 1000
                       if latencies else None),
            'bad': counts['bad'], 'errors': counts['errors']}


# ----------------------------------------------------------- the figures
def check_document(bench, instance_id):
    status, data, seconds = get(bench.base, VENDOR_DATA2,
                                bench.headers(instance_id))
    if status != 200:
        raise SystemExit('vendor_data2.json answered %d' % status)
    missing = [key for key in ('static',) + TARGETS if key not in data]
    if missing or data['static'] != STATIC or any(
            data[name].get('instance-id') != instance_id
            for name in TARGETS):
        raise SystemExit('vendor_data2.json is not as expected (missing '
                         '%s): %s' % (missing, json.dumps(data)[:500]))
    return seconds


def measure_misses(bench, instance_ids):
    """(c): ms of vendor_data2.json of never-read instances, and of their
    meta_data.json.
    """
    vendor, meta = [], []
    for instance_id in instance_ids:
        vendor.append(check_document(bench, instance_id) * 1000)
        status, _data, seconds = get(bench.base, META_DATA,
                                     bench.headers(instance_id))
        if status != 200:
            raise SystemExit('meta_data.json answered %d' % status)
        meta.append(seconds * 1000)
    return vendor, meta


def measure_serial(bench, instance_id, count, warm=20):
    """(d): ms of ``count`` requests of each file, one at a time on one
    keep-alive connection, alternating; after ``warm`` pairs unmeasured
    (the first fills the cache of the worker that has the connection).
    """
    host, port = bench.base.split('//', 1)[1].rsplit(':', 1)
    headers = bench.headers(instance_id)
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    times = {META_DATA: [], VENDOR_DATA2: []}
    try:
        for index in range(warm + count):
            order = (META_DATA, VENDOR_DATA2) if index % 2 else (
                VENDOR_DATA2, META_DATA)
            for path in order:
                start = time.perf_counter()
                conn.request('GET', path, headers=headers)
                resp = conn.getresponse()
                body = resp.read()
                seconds = time.perf_counter() - start
                if resp.status != 200:
                    raise SystemExit('%s answered %d' % (path, resp.status))
                if index >= warm:
                    times[path].append(seconds * 1000)
                elif path == VENDOR_DATA2 and index == warm - 1:
                    data = json.loads(body)
                    if any(name not in data for name in TARGETS):
                        raise SystemExit('vendor_data2.json misses a '
                                         'target: %s' % body[:500])
    finally:
        conn.close()
    return times


def _ms(value):
    return '-' if value is None else '%.2f' % value


def measure_throughput(bench, instance_ids, runner):
    """(a): one round per instance; the vendordata read just before, and
    by every worker in an unmeasured 2-second run. Each file runs twice
    for half of ``--duration``, in the order A B B A (A the other file
    every other round), so that neither gains from going first; a
    round's figures are the means of the two runs.
    """
    rounds = []
    warm_args = argparse.Namespace(**dict(vars(bench.args), duration=2))
    half_args = argparse.Namespace(**dict(
        vars(bench.args), duration=bench.args.duration / 2))
    for index, instance_id in enumerate(instance_ids):
        check_document(bench, instance_id)         # the miss: fills it
        headers = bench.headers(instance_id)
        warm = runner(warm_args, bench.base + VENDOR_DATA2, headers)
        if 'error' in warm:
            raise SystemExit('load run failed:\n%s' % warm['error'])
        first, second = ((META_DATA, VENDOR_DATA2) if index % 2 == 0
                         else (VENDOR_DATA2, META_DATA))
        runs = {META_DATA: [], VENDOR_DATA2: []}
        for path in (first, second, second, first):
            cpu = service_cpu(bench.metadata_pid)
            figures = runner(half_args, bench.base + path, headers)
            cpu = service_cpu(bench.metadata_pid) - cpu
            if 'error' in figures:
                raise SystemExit('load run failed:\n%s' % figures['error'])
            figures['cpu_ms'] = (cpu * 1000 / figures['requests']
                                 if figures.get('requests') else None)
            runs[path].append(figures)
        result = {}
        for path, pair in runs.items():
            result[path] = {
                'rps': statistics.mean(f['rps'] for f in pair),
                'p50_ms': (statistics.mean(f['p50_ms'] for f in pair)
                           if all(f['p50_ms'] for f in pair) else None),
                'cpu_ms': (statistics.mean(f['cpu_ms'] for f in pair)
                           if all(f['cpu_ms'] for f in pair) else None),
                'bad': sum(f['bad'] for f in pair),
                'errors': sum(f['errors'] for f in pair),
                'runs': pair}
        log('round %d: meta_data.json %.1f req/s, vendor_data2.json %.1f '
            'req/s (cache hits); server CPU ms per request %s / %s',
            index + 1, result[META_DATA]['rps'],
            result[VENDOR_DATA2]['rps'], _ms(result[META_DATA]['cpu_ms']),
            _ms(result[VENDOR_DATA2]['cpu_ms']))
        rounds.append(result)
    return rounds


def measure_upstream_calls(bench, instance_ids, seconds, concurrency):
    """(b): read vendor_data2.json of every instance round and round for
    ``seconds``; the calls each target got per instance.
    """
    before = {t.name: {i: t.calls(i) for i in instance_ids}
              for t in bench.targets}
    deadline = time.monotonic() + seconds
    served = {'ok': 0, 'bad': 0}
    lock = threading.Lock()
    host, port = bench.base.split('//', 1)[1].rsplit(':', 1)

    def client(offset):
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        ok = bad = 0
        index = offset
        while time.monotonic() < deadline:
            instance_id = instance_ids[index % len(instance_ids)]
            index += 1
            try:
                conn.request('GET', VENDOR_DATA2,
                             headers=bench.headers(instance_id))
                resp = conn.getresponse()
                body = resp.read()
            except (OSError, http.client.HTTPException):
                bad += 1
                conn.close()
                conn = http.client.HTTPConnection(host, int(port),
                                                  timeout=30)
                continue
            if resp.status == 200 and all(
                    name in json.loads(body) for name in TARGETS):
                ok += 1
            else:
                bad += 1
        conn.close()
        with lock:
            served['ok'] += ok
            served['bad'] += bad

    step = max(1, len(instance_ids) // concurrency)
    threads = [threading.Thread(target=client, args=(n * step,))
               for n in range(concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    calls = {t.name: [t.calls(i) - before[t.name][i] for i in instance_ids]
             for t in bench.targets}
    return served, calls


def seed(conf_path, count):
    """Store ``count`` instances through the Instance object; their uuids.
    """
    # Imported here: they need the config of the state directory.
    from nova_mini import conf
    from nova_mini import config
    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini import objects
    config.parse_args(['bench', '--config-file', conf_path])
    db_api.configure(conf.CONF)
    admin = nm_context.get_admin_context()
    flavor = objects.Flavor(
        admin, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
        root_gb=10, ephemeral_gb=0, swap=0, is_public=True,
        disabled=False, description=None, extra_specs={})
    uuids = []
    for index in range(count):
        instance = objects.Instance(
            admin, uuid=str(uuid.uuid4()), name='bench-%d' % index,
            project_id=PROJECT, user_id='bench', flavor=flavor,
            image_ref='bench-image', vm_state='active', node_uuid=None,
            fault=None, metadata={'index': str(index)}, user_data=None,
            launch_index=0, boot_roles=['member'])
        instance.create()
        uuids.append(instance.uuid)
    return uuids


# ------------------------------------------------------------------ main
def run_cache(args, cache, runner, label, run):
    """All the figures of one cache; notes its goals on ``run``."""
    bench = Bench(args, cache)
    load_before = _record.load()
    try:
        bench.start()
        ids = list(bench.instances)
        check_document(bench, ids.pop())          # warms the workers up
        serial_id = ids.pop()
        misses = [ids.pop() for _ in range(args.misses)]
        rounds_ids = [ids.pop() for _ in range(args.rounds)]
        minute_ids = ids

        log('(c) cache misses: %d instances, one request at a time',
            len(misses))
        miss_ms, meta_ms = measure_misses(bench, misses)
        log('(d) idle latency: %d requests of each file, one at a time on '
            'one connection', args.serial)
        serial = measure_serial(bench, serial_id, args.serial)
        log('(a) throughput: %d rounds of %g s, %s', args.rounds,
            args.duration, label)
        rounds = measure_throughput(bench, rounds_ids, runner)
        log('(b) upstream calls: %d instances for %g s', len(minute_ids),
            args.minute)
        served, calls = measure_upstream_calls(
            bench, minute_ids, args.minute, args.concurrency)
    finally:
        codes = bench.stop()
    load_after = _record.load()

    serial_meta = statistics.median(serial[META_DATA])
    serial_vendor = statistics.median(serial[VENDOR_DATA2])
    serial_ratio = serial_vendor / serial_meta
    meta_rps = statistics.median(r[META_DATA]['rps'] for r in rounds)
    vendor_rps = statistics.median(r[VENDOR_DATA2]['rps'] for r in rounds)
    cost = meta_rps / vendor_rps if vendor_rps else float('inf')
    p50s = [(r[META_DATA]['p50_ms'], r[VENDOR_DATA2]['p50_ms'])
            for r in rounds]
    p50_ratio = (statistics.median(v for _m, v in p50s)
                 / statistics.median(m for m, _v in p50s)
                 if all(m and v for m, v in p50s) else None)
    cpus = [(r[META_DATA]['cpu_ms'], r[VENDOR_DATA2]['cpu_ms'])
            for r in rounds]
    cpu_meta = cpu_vendor = cpu_ratio = None
    if all(m and v for m, v in cpus):
        cpu_meta = statistics.median(m for m, _v in cpus)
        cpu_vendor = statistics.median(v for _m, v in cpus)
        cpu_ratio = cpu_vendor / cpu_meta
    per_instance = [c for counts in calls.values() for c in counts]
    most_calls = 1 if cache == 'memcached' else args.workers
    miss_median = statistics.median(miss_ms)
    bad = sum(r[p]['bad'] + r[p]['errors'] for r in rounds for p in r)
    summary = {
        'cache': bench.cache_label, 'workers': args.workers,
        'load_before': load_before, 'load_after': load_after,
        'serial_ms': {
            'meta_data_median': round(serial_meta, 3),
            'vendor_data2_hit_median': round(serial_vendor, 3),
            'ratio': round(serial_ratio, 3),
            'requests_each': args.serial},
        'throughput': {
            'meta_data_rps': round(meta_rps, 1),
            'vendor_data2_hit_rps': round(vendor_rps, 1),
            'cost_ratio': round(cost, 3),
            'p50_ratio': p50_ratio and round(p50_ratio, 3),
            'server_cpu_ms': {'meta_data': cpu_meta,
                              'vendor_data2_hit': cpu_vendor,
                              'ratio': cpu_ratio},
            'rounds': [{p.rsplit('/', 1)[1]: r[p] for p in r}
                       for r in rounds]},
        'upstream_calls': {
            'requests': served['ok'], 'failed': served['bad'],
            'per_instance_per_target': {
                'min': min(per_instance), 'max': max(per_instance),
                'mean': round(statistics.mean(per_instance), 3)},
            'by_target': calls},
        'miss_latency_ms': {
            'median': round(miss_median, 1),
            'min': round(min(miss_ms), 1), 'max': round(max(miss_ms), 1),
            'meta_data_median': round(statistics.median(meta_ms), 2)},
        'exit_codes': codes,
    }

    print()
    print('Dynamic vendordata: 2 targets x %d ms, max-age=%d; '
          'nova-mini-metadata %d worker(s), %s cache; client %s; '
          'load average before/after: %s / %s'
          % (DELAY * 1000, MAX_AGE, args.workers, bench.cache_label, label,
             load_before, load_after))
    print('(d) idle latency, median of %d requests each, one at a time on '
          'one connection:' % args.serial)
    print('    meta_data.json             %9.2f ms' % serial_meta)
    print('    vendor_data2.json (hits)   %9.2f ms' % serial_vendor)
    print('    ratio                      %9.2f         (goal <= %.1f)'
          % (serial_ratio, HIT_COST))
    print('(a) throughput, median of %d rounds x %g s:' % (
        args.rounds, args.duration))
    print('    meta_data.json             %9.1f req/s   (%s)' % (
        meta_rps, ' '.join('%.1f' % r[META_DATA]['rps'] for r in rounds)))
    print('    vendor_data2.json (hits)   %9.1f req/s   (%s)' % (
        vendor_rps, ' '.join('%.1f' % r[VENDOR_DATA2]['rps']
                             for r in rounds)))
    print('    meta req/s / hit req/s %.2f; wrk p50 ratio %s (goal <= %.1f)'
          % (cost, _ms(p50_ratio), HIT_COST))
    print('    server CPU per request: meta_data.json %s ms, hit %s ms, '
          'ratio %s (goal <= %.1f)'
          % (_ms(cpu_meta), _ms(cpu_vendor), _ms(cpu_ratio), HIT_COST))
    print('(b) upstream calls per instance per target over %g s of %d '
          'requests on %d instances: min %d, max %d, mean %.2f (goal %s)'
          % (args.minute, served['ok'], len(minute_ids), min(per_instance),
             max(per_instance), statistics.mean(per_instance),
             1 if most_calls == 1 else '1 per worker at most'))
    print('(c) cache miss latency over %d instances: median %.0f ms '
          '(min %.0f, max %.0f; goal about %d, not %d); meta_data.json of '
          'the same instances: median %.1f ms' % (
              len(miss_ms), miss_median, min(miss_ms), max(miss_ms),
              DELAY * 1000, 2 * DELAY * 1000, statistics.median(meta_ms)))

    name = '%s, %d workers: ' % (cache, args.workers)
    run.goal(name + '(d) idle hit <= %.1f x meta_data.json' % HIT_COST,
             serial_ratio <= HIT_COST, '%.2f' % serial_ratio)
    run.goal(name + '(a) wrk: hit server CPU <= %.1f x meta_data.json'
             % HIT_COST, cpu_ratio is not None and cpu_ratio <= HIT_COST,
             _ms(cpu_ratio))
    run.goal(name + '(a) wrk: hit p50 <= %.1f x meta_data.json' % HIT_COST,
             p50_ratio is not None and p50_ratio <= HIT_COST,
             '%.2f' % p50_ratio if p50_ratio else 'no p50')
    run.goal(name + '(b) upstream calls per instance per target <= %d'
             % most_calls,
             min(per_instance) >= 1 and max(per_instance) <= most_calls,
             'min %d, max %d' % (min(per_instance), max(per_instance)))
    run.goal(name + '(c) cache miss about 300 ms (< 450 ms), not 600',
             miss_median < 1000 * DELAY * 1.5, '%.0f ms' % miss_median)
    run.goal(name + 'every answer 200 and complete', not (bad or served['bad']),
             '%d failed' % (bad + served['bad']))
    run.goal(name + 'daemons exit 0 on SIGTERM',
             all(code == 0 for code in codes.values()), str(codes))
    return summary


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--cache', choices=('both',) + CACHES, default='both',
                    help='the vendordata cache: memcached, the workers\' '
                         'in-process caches, or both, one after the other '
                         '(both)')
    ap.add_argument('--memcached-servers', metavar='HOST:PORT',
                    help='a running memcached (e.g. 127.0.0.1:11211) '
                         'instead of one of the tool\'s own')
    ap.add_argument('--serial', type=int, default=500,
                    help='requests of each file for (d) (500)')
    ap.add_argument('--rounds', type=int, default=3,
                    help='throughput rounds (3)')
    ap.add_argument('--duration', type=float, default=10,
                    help='measured seconds per throughput run (10)')
    ap.add_argument('-c', '--concurrency', type=int, default=8,
                    help='concurrent clients (8)')
    ap.add_argument('--client-threads', type=int, default=2,
                    help='wrk threads (2)')
    ap.add_argument('--tool', choices=('auto', 'wrk', 'python'),
                    default='auto', help='load generator (auto: wrk if '
                                         'installed)')
    ap.add_argument('--instances', type=int, default=20,
                    help='instances read round and round for (b) (20)')
    ap.add_argument('--minute', type=float, default=60,
                    help='seconds of (b) (60)')
    ap.add_argument('--misses', type=int, default=9,
                    help='cache misses timed for (c) (9)')
    ap.add_argument('--workers', type=int, default=2,
                    help='metadata worker processes (2)')
    ap.add_argument('--no-memcached', action='store_true',
                    help='the same as --cache in-process')
    ap.add_argument('--keep-state', action='store_true',
                    help='keep the temporary state directory (logs)')
    ap.add_argument('--json-out', help='also write the results here')
    ap.add_argument('--seed', nargs=2, metavar=('CONFIG', 'COUNT'),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.seed:
        print(json.dumps(seed(args.seed[0], int(args.seed[1]))))
        return 0
    if args.no_memcached:
        args.cache = 'in-process'
    if args.tool == 'auto':
        args.tool = 'wrk' if shutil.which('wrk') else 'python'
    if args.tool == 'wrk' and not shutil.which('wrk'):
        ap.error('wrk is not installed (apt-get install -y wrk)')
    runner = run_wrk if args.tool == 'wrk' else run_threads
    label = ('wrk -t%d -c%d' % (args.client_threads, args.concurrency)
             if args.tool == 'wrk'
             else 'python, %d threads' % args.concurrency)

    run = _record.Run()
    caches = CACHES if args.cache == 'both' else (args.cache,)
    summaries = {cache: run_cache(args, cache, runner, label, run)
                 for cache in caches}
    status = run.report()
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump({'args': vars(args), 'summaries': summaries,
                       'run': run.as_dict()}, f, indent=2)
    return status


if __name__ == '__main__':
    sys.exit(main())
