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

"""select_destinations end to end over RabbitMQ, over 1k, 10k and 100k
nodes, beside a no-op RPC round trip (``ping``) on the same broker.

The issue's goals: at 10k nodes select_destinations takes at most 3x the
no-op round trip; at 100k nodes at most 2x the 10k time.

For each size the tool:

1. makes a fresh database (a SQLite file in a temporary state directory,
   or with ``--backend postgresql`` a new database on 127.0.0.1:5432,
   dropped afterwards) and runs ``nova-mini-manage db sync``;
2. seeds it through the DB layer with bulk INSERTs (see ``seed``): every
   node has resource class ``baremetal``, ``properties`` cpus / memory_mb /
   local_gb / cpu_arch (sizes drawn from a few models) and 10 traits drawn
   from a pool of 120; ``--match-fraction`` (1 %) of the nodes also have
   all of CUSTOM_A, CUSTOM_B and CUSTOM_C, ``--partial-fraction`` (10 %)
   one or two of them; 5 % are deployed (active, with an instance) and 2 %
   in maintenance.  The draw is seeded: every run has the same data;
3. starts one ``nova-mini-scheduler`` (debug off) on a RabbitMQ virtual
   host made for this run (deleted at the end);
4. from this process, through ``SchedulerAPI``, alternates ``ping`` (the
   no-op round trip) and ``select_destinations`` for one instance of a
   flavor with ``resources:CUSTOM_BAREMETAL=1`` and
   ``trait:CUSTOM_A/B/C=required``; after ``--warmup`` pairs, the medians of
   ``--runs`` pairs;
5. unless ``--no-breakdown``: in a child process against the same
   database, the median of the scheduler's own phases (candidate query,
   filters, weighers, the whole ``FilterScheduler.select_destinations``)
   without RPC;

then prints ms per size, the ratios 10k/no-op and 100k/10k and the goal
verdicts.  ``--profile`` adds a cProfile of the in-process call.

Usage::

    .venv-tests/bin/python tools/bench/scheduler_select.py
    .venv-tests/bin/python tools/bench/scheduler_select.py --runs 51 \\
        --json-out /tmp/sched.json
    .venv-tests/bin/python tools/bench/scheduler_select.py --sizes 1000 \\
        --runs 5            # a quick check
    .venv-tests/bin/python tools/bench/scheduler_select.py --backend postgresql
"""

import argparse
import datetime
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import node_traits_filter as ntf  # noqa: E402  (Database, helpers, POOL)

SEED = 53
WANTED = ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_C']
RESOURCE_CLASS = 'baremetal'
# (cpus, memory_mb, local_gb) of the hardware models nodes are drawn from.
MODELS = [(8, 16384, 100), (16, 32768, 240), (32, 65536, 480),
          (64, 131072, 960), (4, 4096, 40)]
BROKER = 'rabbit://guest:guest@127.0.0.1:5672/'
log = ntf.log


# ------------------------------------------------------------- seeding
def seed(engine, size, args, rng):
    """Bulk-insert ``size`` nodes and their traits; a summary dict."""
    from nova_mini.db import models
    nodes = models.Node.__table__
    node_traits = models.NodeTrait.__table__
    pool = ntf.POOL + ntf.standard_traits()
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    counts = {'trait_rows': 0, 'all_three': 0, 'eligible': 0}
    start = time.perf_counter()
    with engine.begin() as conn:
        for first in range(1, size + 1, ntf.BATCH):
            ids = range(first, min(first + ntf.BATCH, size + 1))
            node_rows, trait_rows = [], []
            for i in ids:
                cpus, memory_mb, local_gb = rng.choice(MODELS)
                draw = rng.random()
                state, instance, maintenance = 'available', None, False
                if draw < 0.05:
                    state = 'active'
                    instance = str(uuid.UUID(int=rng.getrandbits(128),
                                             version=4))
                elif draw < 0.07:
                    maintenance = True
                node_rows.append({
                    'id': i,
                    'uuid': str(uuid.UUID(int=rng.getrandbits(128),
                                          version=4)),
                    'name': 'sched-%06d' % i, 'driver': 'fake-hardware',
                    'resource_class': RESOURCE_CLASS,
                    # The capacity columns, as Node.create fills them.
                    'cpus': cpus, 'memory_mb': memory_mb,
                    'local_gb': local_gb,
                    'properties': {'cpus': cpus, 'memory_mb': memory_mb,
                                   'local_gb': local_gb,
                                   'cpu_arch': 'x86_64',
                                   'capabilities': 'boot_mode:uefi'},
                    'provision_state': state, 'maintenance': maintenance,
                    'instance_uuid': instance, 'power_state': 'power off',
                    'instance_info': {}, 'driver_info': {}, 'extra': {},
                    'created_at': now})
                chosen = rng.sample(pool, args.traits_per_node)
                draw = rng.random()
                if draw < args.match_fraction:
                    chosen += WANTED
                    counts['all_three'] += 1
                    if state == 'available' and not maintenance:
                        counts['eligible'] += 1
                elif draw < args.match_fraction + args.partial_fraction:
                    chosen += rng.sample(WANTED, rng.randint(1, 2))
                trait_rows.extend({'node_id': i, 'trait': t,
                                   'created_at': now} for t in chosen)
            conn.execute(nodes.insert(), node_rows)
            conn.execute(node_traits.insert(), trait_rows)
            counts['trait_rows'] += len(trait_rows)
    if engine.dialect.name == 'postgresql':
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            conn.exec_driver_sql('VACUUM ANALYZE nodes')
            conn.exec_driver_sql('VACUUM ANALYZE node_traits')
    log('seeded %d nodes (%d with all three traits, %d of them '
        'schedulable), %d trait rows in %.1f s', size, counts['all_three'],
        counts['eligible'], counts['trait_rows'],
        time.perf_counter() - start)
    return counts


# ------------------------------------------------------------- rabbitmq
def rabbitmqctl(*args):
    from nova_mini.tests.harness import rabbitmq
    command = rabbitmq._sbin('rabbitmqctl')
    if not command:
        raise SystemExit('rabbitmqctl is not installed')
    subprocess.run([command] + list(args), check=True, capture_output=True,
                   timeout=120)


class VHost(object):
    def __init__(self):
        self.name = 'nova_mini_bench_sched_%s' % uuid.uuid4().hex[:8]
        rabbitmqctl('add_vhost', self.name)
        try:
            rabbitmqctl('set_permissions', '-p', self.name, 'guest',
                        '.*', '.*', '.*')
        except Exception:
            self.delete()
            raise
        self.url = BROKER + self.name

    def delete(self):
        try:
            rabbitmqctl('delete_vhost', self.name)
        except Exception as exc:
            log('WARNING: could not delete vhost %s: %s', self.name, exc)


# ------------------------------------------------------------ the daemon
def write_conf(path, sections):
    with open(path, 'w') as f:
        for name, values in sections.items():
            f.write('[%s]\n' % name)
            for key, value in values.items():
                f.write('%s = %s\n' % (key, value))
            f.write('\n')
    return path


class Scheduler(object):
    def __init__(self, state, conf):
        self.conf = conf
        self.proc = None
        self.log_path = os.path.join(state, 'nova-mini-scheduler.log')

    def start(self):
        with open(self.log_path, 'ab') as out:
            self.proc = subprocess.Popen(
                [ntf.venv_script('nova-mini-scheduler'), '--config-file',
                 self.conf], stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True)

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


# ------------------------------------------------------------- the client
_CLIENT = {}


def client(vhost_url):
    """A SchedulerAPI on ``vhost_url`` (one per process)."""
    if 'api' not in _CLIENT:
        from nova_mini import config
        from nova_mini.scheduler import rpcapi
        path = os.path.join(tempfile.mkdtemp(prefix='nm-bench-client-'),
                            'client.conf')
        write_conf(path, {'DEFAULT': {'transport_url': vhost_url,
                                      'rpc_response_timeout': 120}})
        config.parse_args(['scheduler_select', '--config-file', path])
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
        _CLIENT['api'] = rpcapi.SchedulerAPI(config.CONF)
    return _CLIENT['api']


def flavor_spec():
    from nova_mini import objects
    from nova_mini.objects import request_spec
    extra = {'resources:CUSTOM_BAREMETAL': '1'}
    extra.update(('trait:%s' % t, 'required') for t in WANTED)
    flavor = objects.Flavor(
        id=1, flavorid='bm-bench', name='bm.bench', memory_mb=8192,
        vcpus=8, root_gb=80, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=None, is_public=True, disabled=False, description=None,
        extra_specs=extra, created_at=None, updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


def wait_ready(api, ctxt, sched, deadline=90):
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if sched.proc.poll() is not None:
            raise SystemExit('nova-mini-scheduler exited; see %s'
                             % sched.log_path)
        try:
            return api.ping(ctxt, timeout=3)
        except Exception:
            time.sleep(0.5)
    raise SystemExit('nova-mini-scheduler did not answer ping; see %s'
                     % sched.log_path)


def measure(api, runs, warmup, deadline):
    """Alternating ping / select_destinations; medians and samples."""
    from nova_mini import context as nm_context
    ctxt = nm_context.get_admin_context()
    ping, select, chosen = [], [], set()
    end = time.monotonic() + deadline
    for i in range(warmup + runs):
        if time.monotonic() > end:
            log('deadline reached after %d pairs', i)
            break
        spec = flavor_spec()
        start = time.perf_counter()
        api.ping(ctxt)
        t_ping = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        [selections] = api.select_destinations(
            ctxt, spec, [str(uuid.uuid4())], return_alternates=False)
        t_select = (time.perf_counter() - start) * 1000
        chosen.add(selections[0].node_uuid)
        if i >= warmup:
            ping.append(t_ping)
            select.append(t_select)
    return {'ping_ms': statistics.median(ping),
            'select_ms': statistics.median(select),
            'ping_samples_ms': ping, 'select_samples_ms': select,
            'distinct_nodes_chosen': len(chosen)}


# ------------------------------------------ in-process phases (a child)
def candidates_count(ctxt, spec):
    """How many nodes the database finds for ``spec`` in all."""
    from nova_mini.objects import node_candidates
    return len(node_candidates.get_candidates(ctxt, spec))


def breakdown(conf_path, runs, profile):
    """Median ms of the scheduler's phases, in-process, without RPC."""
    import cProfile
    import io
    import pstats

    from nova_mini import config
    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini.scheduler import filter_scheduler
    from nova_mini.scheduler import weighers

    config.parse_args(['scheduler_select', '--config-file', conf_path])
    db_api.configure(config.CONF)
    driver = filter_scheduler.FilterScheduler(config.CONF)
    ctxt = nm_context.get_admin_context()
    spec = flavor_spec()
    phases = {'candidates': [], 'weighers': [], 'total': []}
    counts = {}
    # What the driver reads for one instance without alternates.
    needed = config.CONF.filter_scheduler.host_subset_size
    for i in range(runs + 2):
        read = {}
        t0 = time.perf_counter()
        passed = driver._passing(ctxt, spec, needed, read)
        t1 = time.perf_counter()
        weighers.weigh(driver.weighers, passed, spec, config.CONF)
        t2 = time.perf_counter()
        driver.select_destinations(ctxt, spec, [str(uuid.uuid4())])
        t3 = time.perf_counter()
        counts = {'n_read': read['database'], 'n_passed': len(passed)}
        if i >= 2:
            for name, a, b in (('candidates', t0, t1), ('weighers', t1, t2),
                               ('total', t2, t3)):
                phases[name].append((b - a) * 1000)
    result = {name: statistics.median(v) for name, v in phases.items()}
    result.update(counts, n_candidates=candidates_count(ctxt, spec))
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(10):
            driver.select_destinations(ctxt, spec, [str(uuid.uuid4())])
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats('cumulative').print_stats(
            30)
        result['profile'] = out.getvalue()
    return result


# ------------------------------------------------------------ one size
def run_one(args, backend, size, vhost):
    state = tempfile.mkdtemp(prefix='nm-bench-sched-')
    db = ntf.Database(backend, state)
    sched = None
    try:
        conf = write_conf(os.path.join(state, 'nova_mini.conf'), {
            'DEFAULT': {'state_path': state, 'host': 'bench-sched',
                        'transport_url': vhost.url, 'debug': 'false',
                        'rpc_response_timeout': 120},
            'database': {'connection': db.url}})
        subprocess.run([ntf.venv_script('nova-mini-manage'), '--config-file',
                        conf, 'db', 'sync'], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        import sqlalchemy as sa
        engine = sa.create_engine(db.url)
        try:
            counts = seed(engine, size, args, random.Random(SEED))
        finally:
            engine.dispose()
        sched = Scheduler(state, conf)
        sched.start()
        from nova_mini import context as nm_context
        api = client(vhost.url)
        wait_ready(api, nm_context.get_admin_context(), sched)
        load = os.getloadavg()
        if load[0] > (os.cpu_count() or 1) / 2:
            log('WARNING: load average %.1f on %d cores before measuring: '
                'figures are contended', load[0], os.cpu_count() or 1)
        result = {'backend': backend, 'size': size, 'loadavg': load}
        result.update(counts)
        result.update(measure(api, args.runs, args.warmup, args.deadline))
        result['loadavg_after'] = os.getloadavg()
        log('%s %d: ping %.2f ms, select_destinations %.2f ms (load %.2f)',
            backend, size, result['ping_ms'], result['select_ms'], load[0])
        sched.stop()
        sched = None
        if args.breakdown:
            # In a child: the DB layer configures its facade once per
            # process.
            out = subprocess.run(
                [sys.executable, os.path.abspath(__file__),
                 '--breakdown-only', conf, str(args.runs),
                 '1' if args.profile else '0'],
                capture_output=True, text=True, timeout=900)
            if out.returncode != 0:
                log('breakdown failed: %s', out.stderr[-2000:])
            else:
                result['in_process'] = json.loads(out.stdout)
        return result
    finally:
        if sched is not None:
            sched.stop()
        db.drop()
        if args.keep_state:
            log('state kept in %s', state)
        else:
            shutil.rmtree(state, ignore_errors=True)


def verdict(ok):
    return 'met' if ok else 'MISSED'


def report(results, args):
    lines = ['%-10s %7s %9s %11s %8s %12s  %s' % (
        'backend', 'nodes', 'ping ms', 'select ms', 'x ping', 'cands/read',
        'in-process: candidates and filters / weighers / total ms')]
    for r in results:
        ip = r.get('in_process') or {}
        phases = ''
        if ip:
            phases = '%.2f / %.2f / %.2f' % (
                ip['candidates'], ip['weighers'], ip['total'])
        lines.append('%-10s %7d %9.2f %11.2f %8.2f %12s  %s' % (
            r['backend'], r['size'], r['ping_ms'], r['select_ms'],
            r['select_ms'] / r['ping_ms'], '%s/%s' % (
                ip.get('n_candidates', '-'), ip.get('n_read', '-')),
            phases))
    for backend in sorted({r['backend'] for r in results}):
        mine = {r['size']: r for r in results if r['backend'] == backend}
        if 10000 in mine:
            r = mine[10000]
            ratio = r['select_ms'] / r['ping_ms']
            lines.append('%s: 10k select / no-op ping = %.2f (goal <= 3: %s)'
                         % (backend, ratio, verdict(ratio <= 3)))
        if 10000 in mine and 100000 in mine:
            ratio = mine[100000]['select_ms'] / mine[10000]['select_ms']
            lines.append('%s: 100k / 10k select = %.2f (goal <= 2: %s)'
                         % (backend, ratio, verdict(ratio <= 2)))
    loads = ', '.join('%.2f' % r['loadavg'][0] for r in results)
    lines.append('load average (1 min) before each size: %s; %d cores'
                 % (loads, os.cpu_count() or 1))
    print('\n'.join(lines))
    for r in results:
        prof = (r.get('in_process') or {}).get('profile')
        if prof:
            print('\n-- profile %s %d\n%s' % (r['backend'], r['size'], prof))


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--breakdown-only':
        conf, runs, profile = sys.argv[2:5]
        print(json.dumps(breakdown(conf, int(runs), profile == '1')))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', action='append',
                        choices=['sqlite', 'postgresql'],
                        help='repeatable; default: sqlite')
    parser.add_argument('--sizes', default='1000,10000,100000',
                        help='node counts, comma-separated')
    parser.add_argument('--traits-per-node', type=int, default=10)
    parser.add_argument('--match-fraction', type=float, default=0.01,
                        help='nodes having all three required traits')
    parser.add_argument('--partial-fraction', type=float, default=0.10,
                        help='nodes having one or two of them')
    parser.add_argument('--runs', type=int, default=31,
                        help='timed ping/select pairs per size (median)')
    parser.add_argument('--warmup', type=int, default=5)
    parser.add_argument('--deadline', type=float, default=300,
                        help='seconds at most of measuring per size')
    parser.add_argument('--no-breakdown', dest='breakdown',
                        action='store_false',
                        help='skip the in-process timing of the phases')
    parser.add_argument('--profile', action='store_true',
                        help='print a cProfile of the in-process call')
    parser.add_argument('--keep-state', action='store_true')
    parser.add_argument('--json-out')
    args = parser.parse_args()
    backends = args.backend or ['sqlite']
    sizes = [int(s) for s in args.sizes.split(',')]
    vhost = VHost()
    results = []
    try:
        for backend in backends:
            for size in sizes:
                log('%s: %d nodes', backend, size)
                results.append(run_one(args, backend, size, vhost))
    finally:
        from nova_mini import rpc
        rpc.cleanup()
        vhost.delete()
    report(results, args)
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump(results, f, indent=2)
    return 0


if __name__ == '__main__':
    sys.exit(main())
