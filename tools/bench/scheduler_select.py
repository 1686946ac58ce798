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

"""select+claim over RabbitMQ on a fleet filled by earlier claims, at 10k
and 100k nodes, beside a no-op RPC round trip (``ping``) on the same
broker.

The issue's goals, each ratio from one run, at every fill level (50 %,
90 %, 99 % of the nodes deployed): at 10k nodes select+claim
(``claim_destinations``) takes at most 3x the no-op round trip; at 100k
nodes at most 2x the 10k time.

For each backend and size the tool:

1. makes a fresh database (a SQLite file in a temporary state directory,
   or with ``--backend postgresql`` a new database on 127.0.0.1:5432,
   dropped afterwards) and runs ``nova-mini-manage db sync``;
2. seeds it through the DB layer with bulk INSERTs (see ``seed``): three
   resource classes, five hardware models, two CPU architectures,
   capabilities (boot_mode, secure_boot, cpu_family), hardware traits
   and 10 traits from a pool of 140 per node; every node available and
   free, ``--maintenance`` (0.5 %) in maintenance. Seeded draw: every run
   has the same data;
3. for each ``--fill`` level, lowest first: fills the fleet to that
   level *through the claim path* (``fill``, in a child process):
   ``FilterScheduler.claim_destinations`` for ``--fill-batch`` instances
   at a time, of the request shapes in turn, each batch in one
   transaction; the claimed nodes are then moved to ``active`` as the
   deploy that follows a claim would;
4. starts one ``nova-mini-scheduler`` (debug off, the default filters
   and weigher) on a RabbitMQ virtual host made for this run (deleted at
   the end);
5. from ``--requesters`` (4) threads of this process at once, through
   ``SchedulerAPI``: ``ping`` (the no-op round trip) then
   ``claim_destinations`` for one instance, each requester going through
   the 20 request shapes (``SHAPES``) in its own order; the node claimed
   is given back (untimed) so the fill level holds. After ``--warmup``
   rounds per requester, the medians of ``--runs`` rounds;
6. unless ``--no-breakdown``, in a child process against the same
   database (scheduler idle): per shape, the scheduler's phases without
   RPC (candidate reads and filters, weighers, claims), the candidate
   rows read per selection (``counts['database']``), and the query plans
   of the candidate statements (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE);

then prints a table per backend x fill x size, the ratios and the goal
verdicts, rows read and the plans. ``--profile`` adds a cProfile of the
in-process selection.

The shapes with numbered groups (``trait1:``, ``resources1:``,
``group_policy``) are used when RequestSpec reads them
(``requested_groups``), or with ``--groups on``; otherwise the same
requirements as unnumbered ones.

Usage::

    .venv-tests/bin/python tools/bench/scheduler_select.py
    .venv-tests/bin/python tools/bench/scheduler_select.py \\
        --backend sqlite --backend postgresql --fill 0.5 0.9 0.99
    .venv-tests/bin/python tools/bench/scheduler_select.py --sizes 1000 \\
        --runs 5            # a quick check
"""

import argparse
import collections
import concurrent.futures
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
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import _sql  # noqa: E402  (the SELECTs a call issues, their plans)
import node_traits_filter as ntf  # noqa: E402  (Database, helpers, POOL)

SEED = 53
BROKER = 'rabbit://guest:guest@127.0.0.1:5672/'
log = ntf.log

# Resource classes and the share of nodes having each.
CLASSES = [('baremetal', 0.60), ('baremetal-gold', 0.25),
           ('baremetal-gpu', 0.15)]
# (cpus, memory_mb, local_gb) of the hardware models nodes are drawn from.
MODELS = [(8, 16384, 100), (16, 32768, 240), (32, 65536, 480),
          (64, 131072, 960), (4, 4096, 40)]
# Hardware traits and the share of nodes having each.
HARDWARE = [('CUSTOM_A', 0.30), ('CUSTOM_B', 0.30), ('CUSTOM_C', 0.30),
            ('CUSTOM_NVME', 0.40), ('CUSTOM_RAID', 0.20),
            ('CUSTOM_SRIOV', 0.25)]
POOL_TRAITS = 10

# The request shapes: (name, flavor extra specs, numbered groups). The
# sizes asked are those of the smallest model: the fill, ranked by memory
# (RAMWeigher), deploys the biggest nodes first.
SHAPES = [
    ('class', {'resources:CUSTOM_BAREMETAL': '1'}, False),
    ('class+trait', {'resources:CUSTOM_BAREMETAL': '1',
                     'trait:CUSTOM_A': 'required'}, False),
    ('class+3 traits', {'resources:CUSTOM_BAREMETAL': '1',
                        'trait:CUSTOM_A': 'required',
                        'trait:CUSTOM_B': 'required',
                        'trait:CUSTOM_C': 'required'}, False),
    ('gold', {'resources:CUSTOM_BAREMETAL_GOLD': '1'}, False),
    ('gold+nvme', {'resources:CUSTOM_BAREMETAL_GOLD': '1',
                   'trait:CUSTOM_NVME': 'required'}, False),
    ('gold-raid', {'resources:CUSTOM_BAREMETAL_GOLD': '1',
                   'trait:CUSTOM_RAID': 'forbidden'}, False),
    ('gpu+trait', {'resources:CUSTOM_BAREMETAL_GPU': '1',
                   'trait:CUSTOM_GPU': 'required'}, False),
    ('gpu+uefi', {'resources:CUSTOM_BAREMETAL_GPU': '1',
                  'capabilities:boot_mode': 'uefi'}, False),
    ('class+cpu_family', {'resources:CUSTOM_BAREMETAL': '1',
                          'capabilities:cpu_family': '<or> zen <or> arm'},
     False),
    ('class+uefi', {'resources:CUSTOM_BAREMETAL': '1',
                    'capabilities:boot_mode': 's== uefi'}, False),
    ('class-a+b', {'resources:CUSTOM_BAREMETAL': '1',
                   'trait:CUSTOM_A': 'forbidden',
                   'trait:CUSTOM_B': 'required'}, False),
    ('class+ram', {'resources:CUSTOM_BAREMETAL': '1',
                   'resources:MEMORY_MB': '4096'}, False),
    ('gold+vcpu+sriov', {'resources:CUSTOM_BAREMETAL_GOLD': '1',
                         'resources:VCPU': '4',
                         'trait:CUSTOM_SRIOV': 'required'}, False),
    ('class+secure+nvme', {'resources:CUSTOM_BAREMETAL': '1',
                           'capabilities:secure_boot': 'true',
                           'trait:CUSTOM_NVME': 'required'}, False),
    ('gold+family', {'resources:CUSTOM_BAREMETAL_GOLD': '1',
                     'capabilities:cpu_family': '<in> lake'}, False),
    ('class+pool trait', {'resources:CUSTOM_BAREMETAL': '1',
                          'trait:CUSTOM_POOL_007': 'required'}, False),
    ('class+avx2-sriov', {'resources:CUSTOM_BAREMETAL': '1',
                          'trait:HW_CPU_X86_AVX2': 'required',
                          'trait:CUSTOM_SRIOV': 'forbidden'}, False),
    ('class+disk', {'resources:CUSTOM_BAREMETAL': '1',
                    'resources:DISK_GB': '40',
                    'trait:CUSTOM_RAID': 'forbidden'}, False),
    ('groups: a + nvme', {'resources1:CUSTOM_BAREMETAL': '1',
                          'trait1:CUSTOM_A': 'required',
                          'trait2:CUSTOM_NVME': 'required',
                          'group_policy': 'none'}, True),
    ('groups: gold sriov / not raid', {
        'resources1:CUSTOM_BAREMETAL_GOLD': '1',
        'trait1:CUSTOM_SRIOV': 'required',
        'trait_storage:CUSTOM_RAID': 'forbidden',
        'group_policy': 'none'}, True),
]


def flat(extra_specs):
    """``extra_specs`` with numbered groups written as unnumbered ones
    (what a scheduler without groups can read).
    """
    import re
    numbered = re.compile(r'^(trait|resources)(\d+|_[A-Za-z0-9_]+):(.*)$')
    out = {}
    for key, value in extra_specs.items():
        found = numbered.match(key)
        if found:
            key = '%s:%s' % (found.group(1), found.group(3))
        elif key == 'group_policy':
            continue
        out[key] = value
    return out


def groups_supported():
    """Whether RequestSpec reads numbered groups (``requested_groups``)."""
    from nova_mini.objects import request_spec
    return 'requested_groups' in request_spec.RequestSpec.fields


def shapes(groups):
    """The request shapes as (name, extra specs) for this tree."""
    return [(name + ('' if groups or not numbered else ' (flat)'),
             extra if groups or not numbered else flat(extra))
            for name, extra, numbered in SHAPES]


def spec_of(extra_specs, index=0):
    """A RequestSpec for a flavor with ``extra_specs``."""
    from nova_mini import objects
    from nova_mini.objects import request_spec
    flavor = objects.Flavor(
        id=index + 1, flavorid='bm-bench-%d' % index,
        name='bm.bench.%d' % index, memory_mb=4096, vcpus=4, root_gb=40,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=None,
        is_public=True, disabled=False, description=None,
        extra_specs=dict(extra_specs), created_at=None, updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


# ------------------------------------------------------------- seeding
def _node(rng, i, now, args):
    """One node's row and its traits."""
    draw, resource_class = rng.random(), CLASSES[-1][0]
    for name, share in CLASSES:
        if draw < share:
            resource_class = name
            break
        draw -= share
    cpus, memory_mb, local_gb = rng.choice(MODELS)
    arm = rng.random() < 0.15
    capabilities = ['boot_mode:%s' % ('uefi' if rng.random() < 0.7
                                      else 'bios'),
                    'secure_boot:%s' % ('true' if rng.random() < 0.3
                                        else 'false'),
                    'cpu_family:%s' % ('arm' if arm else rng.choice(
                        ['zen', 'skylake', 'icelake']))]
    row = {
        'id': i,
        'uuid': str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        'name': 'sched-%06d' % i, 'driver': 'fake-hardware',
        'resource_class': resource_class,
        # The capacity columns, as Node.create fills them.
        'cpus': cpus, 'memory_mb': memory_mb, 'local_gb': local_gb,
        'properties': {'cpus': cpus, 'memory_mb': memory_mb,
                       'local_gb': local_gb,
                       'cpu_arch': 'aarch64' if arm else 'x86_64',
                       'capabilities': ','.join(capabilities)},
        'provision_state': 'available',
        'maintenance': rng.random() < args.maintenance,
        'instance_uuid': None, 'power_state': 'power off',
        'instance_info': {}, 'driver_info': {}, 'extra': {},
        'created_at': now}
    traits = rng.sample(args.pool, POOL_TRAITS)
    traits += [name for name, share in HARDWARE if rng.random() < share]
    if not arm and rng.random() < 0.8:
        traits.append('HW_CPU_X86_AVX2')
    if resource_class == 'baremetal-gpu' and rng.random() < 0.8:
        traits.append('CUSTOM_GPU')
    return row, sorted(set(traits))


def seed(engine, size, args, rng):
    """Bulk-insert ``size`` free nodes and their traits; a summary dict."""
    from nova_mini.db import models
    nodes = models.Node.__table__
    node_traits = models.NodeTrait.__table__
    args.pool = ntf.POOL + ['CUSTOM_POOL_%03d' % i for i in range(100, 120)]
    args.pool = [t for t in args.pool if t != 'HW_CPU_X86_AVX2']
    now = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    counts = {'trait_rows': 0, 'maintenance': 0}
    start = time.perf_counter()
    with engine.begin() as conn:
        for first in range(1, size + 1, ntf.BATCH):
            node_rows, trait_rows = [], []
            for i in range(first, min(first + ntf.BATCH, size + 1)):
                row, traits = _node(rng, i, now, args)
                node_rows.append(row)
                counts['maintenance'] += row['maintenance']
                trait_rows.extend({'node_id': i, 'trait': t,
                                   'created_at': now} for t in traits)
            conn.execute(nodes.insert(), node_rows)
            conn.execute(node_traits.insert(), trait_rows)
            counts['trait_rows'] += len(trait_rows)
    analyze(engine)
    log('seeded %d nodes (%d in maintenance), %d trait rows in %.1f s',
        size, counts['maintenance'], counts['trait_rows'],
        time.perf_counter() - start)
    return counts


def analyze(engine):
    """Fresh statistics, as autovacuum / ANALYZE would keep them."""
    if engine.dialect.name == 'postgresql':
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            conn.exec_driver_sql('VACUUM ANALYZE nodes')
            conn.exec_driver_sql('VACUUM ANALYZE node_traits')


# ------------------------------------------- filling (a child process)
def _configure(conf_path):
    from nova_mini import config
    from nova_mini.db import api as db_api
    from nova_mini import objects
    config.parse_args(['scheduler_select', '--config-file', conf_path])
    db_api.configure(config.CONF)
    objects.register_all()
    return config.CONF


def fill(conf_path, fraction, batch, groups):
    """Deploy nodes by claims until ``fraction`` of the nodes not in
    maintenance have an instance: ``claim_destinations`` of the shapes in
    turn, ``batch`` instances a call, each call in one transaction. A
    shape no longer served falls back to its resource class alone, then
    to the other classes, then to smaller batches. Claimed nodes are then
    set ``active`` (the deploy that follows a claim).
    """
    import sqlalchemy as sa

    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini.db import models
    from nova_mini import exception
    from nova_mini.scheduler import filter_scheduler

    conf = _configure(conf_path)
    driver = filter_scheduler.FilterScheduler(conf)
    ctxt = nm_context.get_admin_context()
    engine = db_api.get_engine()
    nodes = models.Node.__table__
    with engine.connect() as conn:
        usable = conn.execute(sa.select(sa.func.count()).where(
            nodes.c.maintenance.is_(False))).scalar()
        deployed = conn.execute(sa.select(sa.func.count()).where(
            nodes.c.instance_uuid.isnot(None))).scalar()
    target = int(round(fraction * usable))
    mix = [spec_of(extra, i) for i, (_n, extra) in enumerate(shapes(groups))]
    by_class = [spec_of({'resources:CUSTOM_%s' % name.upper().replace(
        '-', '_'): '1'}, 100 + i) for i, (name, _s) in enumerate(CLASSES)]
    stats = collections.Counter()
    start = time.perf_counter()
    turn = 0
    while deployed < target:
        wanted = min(batch, target - deployed)
        spec = mix[turn % len(mix)]
        turn += 1
        tries = [spec] + by_class
        done = False
        while not done:
            for candidate in tries:
                uuids = [str(uuid.uuid4()) for _ in range(wanted)]
                try:
                    with db_api.context_manager.writer.using(ctxt):
                        driver.claim_destinations(ctxt, candidate, uuids)
                except exception.NoValidHost:
                    stats['no_valid_host'] += 1
                    continue
                stats['calls'] += 1
                deployed += wanted
                done = True
                break
            if not done:
                if wanted == 1:
                    raise SystemExit('could not fill to %.2f: %d of %d '
                                     'nodes deployed' % (fraction, deployed,
                                                         usable))
                wanted = max(1, wanted // 2)
    with engine.begin() as conn:
        moved = conn.execute(nodes.update().where(
            nodes.c.instance_uuid.isnot(None),
            nodes.c.provision_state == 'available').values(
                provision_state='active')).rowcount
    analyze(engine)
    return {'fill': fraction, 'usable': usable, 'deployed': deployed,
            'target': target, 'moved_to_active': moved,
            'claim_calls': stats['calls'],
            'no_valid_host_calls': stats['no_valid_host'],
            'seconds': time.perf_counter() - start}


# ------------------------------------------------------------- rabbitmq
def rabbitmqctl(*args):
    from nova_mini_deploy import rabbitmq
    command = rabbitmq.sbin('rabbitmqctl')
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
    def __init__(self, state, conf, index=0):
        self.conf = conf
        self.proc = None
        self.log_path = os.path.join(state,
                                     'nova-mini-scheduler-%d.log' % index)

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
        from nova_mini import objects
        from nova_mini.scheduler import rpcapi
        path = os.path.join(tempfile.mkdtemp(prefix='nm-bench-client-'),
                            'client.conf')
        write_conf(path, {'DEFAULT': {'transport_url': vhost_url,
                                      'rpc_response_timeout': 120}})
        config.parse_args(['scheduler_select', '--config-file', path])
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
        objects.register_all()
        _CLIENT['api'] = rpcapi.SchedulerAPI(config.CONF)
    return _CLIENT['api']


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


def release(engine, node_uuid, instance_uuid):
    """Give a claimed node back (as Node.unclaim does)."""
    from nova_mini.db import models
    nodes = models.Node.__table__
    with engine.begin() as conn:
        conn.execute(nodes.update().where(
            nodes.c.uuid == node_uuid,
            nodes.c.instance_uuid == instance_uuid).values(
                instance_uuid=None, instance_info={}))


def measure(api, engine, mix, args):
    """``args.requesters`` threads at once, each: ping, then
    claim_destinations of the next shape; medians and samples.
    """
    from nova_mini import context as nm_context
    from nova_mini import exception
    ctxt = nm_context.get_admin_context()
    specs = [spec_of(extra, i) for i, (_n, extra) in enumerate(mix)]
    end = time.monotonic() + args.deadline
    lock = threading.Lock()
    ping, claim, chosen = [], [], set()
    per_shape = collections.defaultdict(list)
    failed = collections.Counter()
    barrier = threading.Barrier(args.requesters)

    def requester(k):
        barrier.wait()
        for i in range(args.warmup + args.runs):
            if time.monotonic() > end:
                log('requester %d: deadline reached after %d rounds', k, i)
                return
            index = (k * 5 + i) % len(specs)
            instance_uuid = str(uuid.uuid4())
            start = time.perf_counter()
            api.ping(ctxt)
            t_ping = (time.perf_counter() - start) * 1000
            start = time.perf_counter()
            node_uuid = None
            try:
                [selection] = api.claim_destinations(
                    ctxt, specs[index], [instance_uuid])
                node_uuid = selection.node_uuid
            except exception.NoValidHost:
                if i >= args.warmup:
                    with lock:
                        failed[mix[index][0]] += 1
            t_claim = (time.perf_counter() - start) * 1000
            if node_uuid is not None:
                release(engine, node_uuid, instance_uuid)
            if i >= args.warmup:
                with lock:
                    ping.append(t_ping)
                    claim.append(t_claim)
                    per_shape[mix[index][0]].append(t_claim)
                    if node_uuid:
                        chosen.add(node_uuid)

    with concurrent.futures.ThreadPoolExecutor(args.requesters) as pool:
        for future in [pool.submit(requester, k)
                       for k in range(args.requesters)]:
            future.result()
    return {'ping_ms': statistics.median(ping),
            'select_ms': statistics.median(claim),
            'select_p90_ms': sorted(claim)[int(0.9 * (len(claim) - 1))],
            'ping_samples_ms': ping, 'select_samples_ms': claim,
            'per_shape_ms': {name: statistics.median(v)
                             for name, v in per_shape.items()},
            'no_valid_host': dict(failed),
            'distinct_nodes_chosen': len(chosen)}


# ------------------------------------------ in-process phases (a child)
def breakdown(conf_path, runs, profile, groups):
    """Per shape, in-process without RPC: median ms of the candidate
    reads and filters, the weighers and the whole claim_destinations;
    candidate rows read per selection; the plans of the statements.
    """
    import cProfile
    import io
    import pstats

    from nova_mini import context as nm_context
    from nova_mini.db import api as db_api
    from nova_mini import exception
    from nova_mini.objects.baremetal import node as node_obj
    from nova_mini.scheduler import filter_scheduler
    from nova_mini.scheduler import weighers

    conf = _configure(conf_path)
    driver = filter_scheduler.FilterScheduler(conf)
    ctxt = nm_context.get_admin_context()
    engine = db_api.get_engine()
    options = conf.filter_scheduler
    # What claim_destinations reads for one instance: alternates too.
    needed = max(options.host_subset_size, options.max_attempts)
    result = {'shapes': {}}
    for index, (name, extra) in enumerate(shapes(groups)):
        spec = spec_of(extra, index)
        phases = {'candidates': [], 'weighers': [], 'claim': []}
        reads, passed_counts, failed = [], [], 0
        for i in range(runs + 2):
            read = {}
            t0 = time.perf_counter()
            passed = driver._passing(ctxt, spec, needed, read)
            t1 = time.perf_counter()
            weighers.weigh(driver.weighers, passed, spec, conf)
            t2 = time.perf_counter()
            instance_uuid = str(uuid.uuid4())
            try:
                [selection] = driver.claim_destinations(ctxt, spec,
                                                        [instance_uuid])
                node_obj.Node.unclaim(ctxt, selection.node_uuid,
                                      instance_uuid)
            except exception.NoValidHost:
                failed += 1
            t3 = time.perf_counter()
            if i >= 2:
                for phase, a, b in (('candidates', t0, t1),
                                    ('weighers', t1, t2),
                                    ('claim', t2, t3)):
                    phases[phase].append((b - a) * 1000)
                reads.append(read.get('database', 0))
                passed_counts.append(len(passed))
        shape = {phase: statistics.median(v) for phase, v in phases.items()}
        shape.update(rows_read=statistics.median(reads),
                     passed=statistics.median(passed_counts),
                     no_valid_host=failed)
        with _sql.captured_selects(engine) as statements:
            driver._passing(ctxt, spec, needed, {})
        shape['statements'] = len(statements)
        shape['plans'] = _sql.plans(engine, statements, summary=True)
        result['shapes'][name] = shape
    for phase in ('candidates', 'weighers', 'claim'):
        result[phase] = statistics.median(
            s[phase] for s in result['shapes'].values())
    result['rows_read'] = statistics.median(
        s['rows_read'] for s in result['shapes'].values())
    result['rows_read_max'] = max(
        s['rows_read'] for s in result['shapes'].values())
    if profile:
        specs = [spec_of(extra, i)
                 for i, (_n, extra) in enumerate(shapes(groups))]
        prof = cProfile.Profile()
        prof.enable()
        for spec in specs:
            driver._passing(ctxt, spec, needed, {})
        prof.disable()
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats('cumulative').print_stats(
            30)
        result['profile'] = out.getvalue()
    return result


def child(args, *argv, timeout=3600):
    """Run this tool in a child process (the DB layer configures its
    facade once per process); its JSON answer.
    """
    out = subprocess.run(
        [sys.executable, os.path.abspath(__file__)] + list(argv),
        capture_output=True, text=True, timeout=timeout)
    if out.returncode != 0:
        raise SystemExit('%s failed: %s' % (argv[0], out.stderr[-3000:]))
    return json.loads(out.stdout)


# ------------------------------------------------------------ one size
def run_one(args, backend, size, vhost, beside=None):
    """Seed ``size`` nodes, then per fill level: fill, measure, break
    down. A list of results, one per fill level. ``beside(engine,
    result)``, if given, runs after each fill level's measurement, the
    scheduler idle (scheduler_vs_placement.py measures Placement there);
    what it returns is added to the result.
    """
    import sqlalchemy as sa

    from nova_mini import context as nm_context

    state = tempfile.mkdtemp(prefix='nm-bench-sched-')
    db = ntf.Database(backend, state)
    scheds = []
    results = []
    mix = shapes(args.groups)
    engine = None
    try:
        conf = write_conf(os.path.join(state, 'nova_mini.conf'), {
            'DEFAULT': {'state_path': state, 'host': 'bench-sched',
                        'transport_url': vhost.url, 'debug': 'false',
                        'rpc_response_timeout': 120},
            # The fill's instances exist only as claims: the periodic
            # clean-up would free them as orphans (100 a minute, 120 s on)
            # and the fleet would drain during the measurement.
            'filter_scheduler': {'cleanup_interval': 0},
            'database': {'connection': db.url}})
        subprocess.run([ntf.venv_script('nova-mini-manage'), '--config-file',
                        conf, 'db', 'sync'], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        engine = sa.create_engine(
            db.url, **({'connect_args': {'timeout': 60}}
                       if backend == 'sqlite' else {}))
        counts = seed(engine, size, args, random.Random(SEED))
        for index in range(args.schedulers):
            sched = Scheduler(state, conf, index)
            scheds.append(sched)
            sched.start()
        api = client(vhost.url)
        for sched in scheds:
            wait_ready(api, nm_context.get_admin_context(), sched)
        for fraction in sorted(args.fill):
            filled = child(args, '--fill-only', conf, repr(fraction),
                           str(args.fill_batch), '1' if args.groups else '0')
            log('%s %d: filled to %.2f (%d of %d nodes) by %d claim calls '
                'of up to %d instances in %.1f s', backend, size, fraction,
                filled['deployed'], filled['usable'], filled['claim_calls'],
                args.fill_batch, filled['seconds'])
            load = os.getloadavg()
            result = {'backend': backend, 'size': size, 'fill': fraction,
                      'loadavg': load, 'filled': filled}
            result.update(counts)
            result.update(measure(api, engine, mix, args))
            result['loadavg_after'] = os.getloadavg()
            log('%s %d @%.2f: ping %.2f ms, select+claim %.2f ms '
                '(load %.2f, NoValidHost %s)', backend, size, fraction,
                result['ping_ms'], result['select_ms'], load[0],
                sum(result['no_valid_host'].values()))
            if args.breakdown:
                result['in_process'] = child(
                    args, '--breakdown-only', conf, str(args.breakdown_runs),
                    '1' if args.profile else '0',
                    '1' if args.groups else '0')
            if beside is not None:
                result.update(beside(engine, result))
            results.append(result)
        return results
    finally:
        for sched in scheds:
            sched.stop()
        if engine is not None:
            engine.dispose()
        db.drop()
        if args.keep_state:
            log('state kept in %s', state)
        else:
            shutil.rmtree(state, ignore_errors=True)


def verdict(ok):
    return 'met' if ok else 'MISSED'


def _plan_summary(plan):
    return ' | '.join(line.strip() for line in plan)


def report(results, args):
    lines = ['%-10s %5s %7s %8s %9s %7s %6s %9s  %s' % (
        'backend', 'fill', 'nodes', 'ping ms', 'claim ms', 'x ping',
        'NoVH', 'rows read', 'in-process: candidates / weighers / claim '
        'ms (median over shapes)')]
    for r in results:
        ip = r.get('in_process') or {}
        phases = reads = ''
        if ip:
            phases = '%.2f / %.2f / %.2f' % (ip['candidates'], ip['weighers'],
                                             ip['claim'])
            reads = '%g (max %g)' % (ip['rows_read'], ip['rows_read_max'])
        lines.append('%-10s %5.2f %7d %8.2f %9.2f %7.2f %6d %9s  %s' % (
            r['backend'], r['fill'], r['size'], r['ping_ms'], r['select_ms'],
            r['select_ms'] / r['ping_ms'], sum(r['no_valid_host'].values()),
            reads, phases))
    for backend in sorted({r['backend'] for r in results}):
        for fraction in sorted({r['fill'] for r in results}):
            mine = {r['size']: r for r in results
                    if r['backend'] == backend and r['fill'] == fraction}
            if 10000 in mine:
                r = mine[10000]
                ratio = r['select_ms'] / r['ping_ms']
                lines.append('%s @%.2f: 10k select+claim / no-op ping = %.2f '
                             '(goal <= 3: %s)' % (backend, fraction, ratio,
                                                  verdict(ratio <= 3)))
            if 10000 in mine and 100000 in mine:
                ratio = mine[100000]['select_ms'] / mine[10000]['select_ms']
                lines.append('%s @%.2f: 100k / 10k select+claim = %.2f '
                             '(goal <= 2: %s)' % (backend, fraction, ratio,
                                                  verdict(ratio <= 2)))
    loads = ', '.join('%.2f' % r['loadavg'][0] for r in results)
    lines.append('load average (1 min) before each measurement: %s; %d '
                 'cores' % (loads, os.cpu_count() or 1))
    print('\n'.join(lines))
    for r in results:
        ip = r.get('in_process') or {}
        if not ip:
            continue
        print('\n-- %s %d @%.2f: per shape (claim ms over RPC; in process: '
              'rows read, passed, candidates / claim ms; NoValidHost)'
              % (r['backend'], r['size'], r['fill']))
        for name, shape in ip['shapes'].items():
            print('  %-34s %7.2f  %6g %5g  %6.2f / %6.2f  %s' % (
                name, r['per_shape_ms'].get(name, float('nan')),
                shape['rows_read'], shape['passed'], shape['candidates'],
                shape['claim'], r['no_valid_host'].get(name, 0)))
        if args.plans:
            seen = set()
            for name, shape in ip['shapes'].items():
                for plan in shape['plans']:
                    text = _plan_summary(plan['plan'])
                    if text in seen:
                        continue
                    seen.add(text)
                    print('  plan (%s):\n    %s\n    %s' % (
                        name, plan['sql'][:600], '\n    '.join(
                            plan['plan'])))
        if ip.get('profile'):
            print('\n-- profile %s %d @%.2f\n%s' % (
                r['backend'], r['size'], r['fill'], ip['profile']))


def markdown(results):
    """The results as the Markdown tables of tools/bench/README.md."""
    lines = ['| backend | fill | nodes | ping ms | select+claim ms | x ping '
             '| NoValidHost | rows read (median / max) | in-process '
             'candidates / claim ms | load |',
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |']
    for r in results:
        ip = r.get('in_process') or {}
        lines.append('| %s | %d %% | %dk | %.2f | %.2f | %.2f | %d | %s | %s '
                     '| %.1f |' % (
                         r['backend'], round(r['fill'] * 100),
                         r['size'] // 1000, r['ping_ms'], r['select_ms'],
                         r['select_ms'] / r['ping_ms'],
                         sum(r['no_valid_host'].values()),
                         '%g / %g' % (ip['rows_read'], ip['rows_read_max'])
                         if ip else '-',
                         '%.2f / %.2f' % (ip['candidates'], ip['claim'])
                         if ip else '-', r['loadavg'][0]))
    lines += ['', '| backend | fill | 10k / ping (<= 3) | 100k / 10k (<= 2) |',
              '| --- | --- | --- | --- |']
    for backend in sorted({r['backend'] for r in results}):
        for fraction in sorted({r['fill'] for r in results}):
            mine = {r['size']: r for r in results
                    if r['backend'] == backend and r['fill'] == fraction}
            cells = []
            if 10000 in mine:
                ratio = mine[10000]['select_ms'] / mine[10000]['ping_ms']
                cells.append('%.2f %s' % (ratio, verdict(ratio <= 3)))
            else:
                cells.append('-')
            if 10000 in mine and 100000 in mine:
                ratio = mine[100000]['select_ms'] / mine[10000]['select_ms']
                cells.append('%.2f %s' % (ratio, verdict(ratio <= 2)))
            else:
                cells.append('-')
            lines.append('| %s | %d %% | %s |' % (
                backend, round(fraction * 100), ' | '.join(cells)))
    return '\n'.join(lines)


def build_parser():
    """The options (scheduler_vs_placement.py adds its own to them)."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', action='append',
                        choices=['sqlite', 'postgresql'],
                        help='repeatable; default: sqlite')
    parser.add_argument('--sizes', default='10000,100000',
                        help='node counts, comma-separated')
    parser.add_argument('--fill', type=float, nargs='+', default=[0.9],
                        help='fill levels (share of the nodes deployed by '
                             'claims), measured lowest first on one '
                             'database per size; default 0.9')
    parser.add_argument('--fill-batch', type=int, default=250,
                        help='instances per claim_destinations call while '
                             'filling')
    parser.add_argument('--maintenance', type=float, default=0.005,
                        help='share of the nodes in maintenance')
    parser.add_argument('--groups', choices=['auto', 'on', 'off'],
                        default='auto',
                        help='numbered-group shapes as such (auto: when '
                             'RequestSpec reads them) or flattened')
    parser.add_argument('--requesters', type=int, default=4,
                        help='concurrent requesting threads')
    parser.add_argument('--schedulers', type=int, default=1,
                        help='nova-mini-scheduler daemons consuming the '
                             'topic')
    parser.add_argument('--runs', type=int, default=40,
                        help='timed ping/claim rounds per requester')
    parser.add_argument('--warmup', type=int, default=5)
    parser.add_argument('--deadline', type=float, default=300,
                        help='seconds at most of measuring per point')
    parser.add_argument('--no-breakdown', dest='breakdown',
                        action='store_false',
                        help='skip the in-process timing of the phases')
    parser.add_argument('--breakdown-runs', type=int, default=5,
                        help='in-process selections per shape')
    parser.add_argument('--plans', action='store_true',
                        help='print the distinct query plans')
    parser.add_argument('--profile', action='store_true',
                        help='print a cProfile of the in-process selection')
    parser.add_argument('--keep-state', action='store_true')
    parser.add_argument('--json-out')
    return parser


def main():
    if len(sys.argv) > 1 and sys.argv[1] == '--markdown-from':
        with open(sys.argv[2]) as f:
            print(markdown(json.load(f)))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == '--breakdown-only':
        conf, runs, profile, groups = sys.argv[2:6]
        print(json.dumps(breakdown(conf, int(runs), profile == '1',
                                   groups == '1')))
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == '--fill-only':
        conf, fraction, batch, groups = sys.argv[2:6]
        print(json.dumps(fill(conf, float(fraction), int(batch),
                              groups == '1')))
        return 0
    args = build_parser().parse_args()
    if args.groups == 'auto':
        args.groups = groups_supported()
    else:
        args.groups = args.groups == 'on'
    backends = args.backend or ['sqlite']
    sizes = [int(s) for s in args.sizes.split(',')]
    log('numbered groups: %s', 'as such' if args.groups else 'flattened')
    vhost = VHost()
    results = []
    try:
        for backend in backends:
            for size in sizes:
                log('%s: %d nodes', backend, size)
                results.extend(run_one(args, backend, size, vhost))
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
