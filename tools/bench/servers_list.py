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

"""Server lists over 10k and 100k servers, through a running nova-mini-api.

Scenarios (project ``demo``, every server of it listed by ``demo``):

    detail_2.47   GET /compute/v2.1/servers/detail?limit=1000   (2.47)
    detail_2.1    GET /compute/v2.1/servers/detail?limit=1000   (2.1)
    name_prefix   GET .../servers/detail?limit=10&name=^srv-00012[0-9]
                  (10 servers match at every size; 2.47)
    name_search   GET .../servers/detail?limit=10&name=4321$
                  (an unanchored pattern: 1 server matches at 10k, 10 at
                  100k, found only by reading every name; on SQLite a
                  LIKE '%4321%' before REGEXP, on PostgreSQL its ``~``)

For each backend (SQLite file, PostgreSQL if asked) and size the tool:

1. makes a fresh database (as node_traits_filter.py: a SQLite file in a
   temporary state directory, or a new PostgreSQL database, dropped
   afterwards) and runs ``nova-mini-manage db sync``;
2. inserts N servers of project ``demo`` in bulk through the DB layer
   (names ``srv-000000``..., ACTIVE on a node, two metadata items and two
   tags each);
3. starts nova-mini-api (noauth2, ``--workers`` workers) and runs wrk
   (``--threads`` threads, ``--connections`` connections, ``--duration``
   seconds after a 2-second warm-up) per scenario: requests/s and p50;
4. counts the SQL statements per request in a child process: the same
   API application in-process (webtest), a SQLAlchemy
   ``before_cursor_execute`` listener on its engine (transaction control
   statements left out; so is the check of a regular expression that
   PostgreSQL and MariaDB compile on the DB-API cursor before the list,
   which on PostgreSQL also sets the budget: one more round trip, see
   tests/functional/db/test_regex_budget_postgresql.py), and times
   those requests (``alone ms``, the
   median of ``--count-runs``). A scenario whose request alone takes
   more than ``--skip-wrk-ms`` gets no wrk run (its requests would only
   queue up behind each other).

Run it with the tree to measure on the path (``PYTHONPATH=<tree>`` for
another tree: the API it starts inherits it)::

    .venv-tests/bin/python tools/bench/servers_list.py
    .venv-tests/bin/python tools/bench/servers_list.py --backend sqlite \\
        --backend postgresql --json-out /tmp/servers.json
    .venv-tests/bin/python tools/bench/servers_list.py --sizes 2000 \\
        --duration 3        # a quick check

Goals, exit status 1 when one is missed: a page costs a fixed number of
SQL statements (each scenario the same at every size of a backend, at
most ``MAX_QUERIES``: 4 per page of up to 500 servers, 6 for 1000), and
the filtered page (``name_prefix``) at 100k servers takes less than 2x
its time at 10k (wrk p50; the in-process time without wrk figures),
checked when both sizes ran; every request answered 2xx, in process and
under wrk, with no socket error (the API's last log lines are printed
when one was not).
``name_search`` (an unanchored pattern) is linear on purpose and has no
time goal; it must be answered (2xx) within ``[api]
regex_filter_timeout``, as every request. A wrk run in which no request
completed has no p50 (``-``). The output ends with the tree measured and
the load average before and after.
"""

import argparse
import datetime
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import _record  # noqa: E402  (the tree, the load, the goals)
import node_traits_filter as ntf  # noqa: E402  (Database, Api, helpers)

SEED = 71
# Goal: SQL statements per request, the same at every size.
MAX_QUERIES = {'detail_2.47': 6, 'detail_2.1': 6, 'name_prefix': 4,
               'name_search': 4}
# Goal: name_prefix's time at 100k over its time at 10k.
MAX_GROWTH = 2.0
BATCH = 5000
TOKEN = 'demo:demo'
SCENARIOS = [
    # name, path below /compute/v2.1, microversion
    ('detail_2.47', '/servers/detail?limit=1000', '2.47'),
    ('detail_2.1', '/servers/detail?limit=1000', '2.1'),
    ('name_prefix', '/servers/detail?limit=10&name=%5Esrv-00012%5B0-9%5D',
     '2.47'),
    ('name_search', '/servers/detail?limit=10&name=4321%24', '2.47'),
]
log = ntf.log


def _flavor_text():
    from oslo_serialization import jsonutils

    from nova_mini import objects
    objects.register_all()
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=16384, vcpus=8,
        root_gb=100, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=None, is_public=True, disabled=False, description=None,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1'},
        created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    return jsonutils.dumps(flavor.obj_to_primitive())


def seed(engine, size, rng):
    """Bulk-insert ``size`` servers of project demo with their metadata
    and tags (only the columns the schema of this tree has).
    """
    import sqlalchemy as sa

    from nova_mini.db import models
    instances = models.Instance.__table__
    columns = {column['name']
               for column in sa.inspect(engine).get_columns('instances')}
    metadata = models.InstanceMetadata.__table__
    tags = models.InstanceTag.__table__
    flavor = _flavor_text()
    start_at = datetime.datetime(2026, 1, 1)
    started = time.perf_counter()
    with engine.begin() as conn:
        for first in range(0, size, BATCH):
            rows, items, labels = [], [], []
            for i in range(first, min(first + BATCH, size)):
                at = start_at + datetime.timedelta(seconds=i)
                server = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                row = {
                    'id': i + 1, 'uuid': server, 'name': 'srv-%06d' % i,
                    'project_id': 'demo', 'user_id': 'demo',
                    'flavor': flavor, 'image_ref': 'img-%d' % (i % 7),
                    'vm_state': 'active',
                    'node_uuid': str(uuid.UUID(int=rng.getrandbits(128),
                                               version=4)),
                    'fault': None, 'created_at': at, 'updated_at': at,
                    'launched_at': at, 'config_drive': False,
                    'launch_index': 0, 'boot_roles': ['member'],
                    'hostname': 'srv-%06d' % i, 'flavorid': 'bm'}
                rows.append({k: v for k, v in row.items() if k in columns})
                items += [{'instance_uuid': server, 'key': k, 'value': v,
                           'created_at': at}
                          for k, v in (('role', 'web'), ('rack', str(i % 40)))]
                labels += [{'instance_uuid': server, 'tag': t,
                            'created_at': at}
                           for t in ('bench', 'zone-%d' % (i % 3))]
            conn.execute(instances.insert(), rows)
            conn.execute(metadata.insert(), items)
            conn.execute(tags.insert(), labels)
    if engine.dialect.name == 'postgresql':
        with engine.connect().execution_options(
                isolation_level='AUTOCOMMIT') as conn:
            for table in ('instances', 'instance_metadata', 'instance_tags'):
                conn.exec_driver_sql('VACUUM ANALYZE %s' % table)
    log('seeded %d servers in %.1f s', size, time.perf_counter() - started)


def run_wrk(args, url, version):
    command = ['wrk', '-t%d' % args.threads, '-c%d' % args.connections,
               '--latency', '--timeout', '60s',
               '-H', 'X-Auth-Token: %s' % TOKEN,
               '-H', 'OpenStack-API-Version: compute %s' % version]
    subprocess.run(command + ['-d2s', url], capture_output=True,
                   timeout=60)
    out = subprocess.run(command + ['-d%ds' % args.duration, url],
                         capture_output=True, text=True,
                         timeout=args.duration + 60).stdout
    return wrk_figures(url, out)


def wrk_figures(url, out):
    """``(req/s, p50 ms, failures)`` from wrk's ``--latency`` output.

    p50 is None when no request completed in the run (wrk then prints a
    p50 of 0); ``failures`` are wrk's lines about non-2xx answers and
    socket errors (empty when there were none), which fail the run's goal
    of answering every request. An output without req/s stops the run.
    """
    rps = re.search(r'Requests/sec:\s+([\d.]+)', out)
    p50 = re.search(r'50%\s+([\d.]+)(us|ms|s)\b', out)
    done = re.search(r'(\d+) requests in ', out)
    if not rps or not done or not p50:
        raise SystemExit('wrk %s: %s' % (url, out[-1500:]))
    failures = [line.strip() for line in out.splitlines()
                if line.strip().startswith(('Non-2xx or 3xx responses:',
                                            'Socket errors:'))]
    if not int(done.group(1)):
        return float(rps.group(1)), None, failures
    scale = {'us': 0.001, 'ms': 1.0, 's': 1000.0}[p50.group(2)]
    return float(rps.group(1)), float(p50.group(1)) * scale, failures


def _log_tail(path, lines=40):
    try:
        with open(path, errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError as exc:
        return str(exc)


def count_queries(conf, runs):
    """{scenario: (statements per request, servers listed, median ms,
    answers other than 200)}, in-process.
    """
    import sqlalchemy as sa
    import webtest

    os.environ['NOVA_MINI_CONFIG_FILE'] = conf
    from nova_mini.db import api as db_api
    from nova_mini.wsgi import api as wsgi_api
    app = webtest.TestApp(wsgi_api.init_application())
    engine = db_api.get_engine()
    seen = []

    def count(conn, cursor, statement, *args):
        if not statement.lstrip().upper().startswith(
                ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE')):
            seen.append(statement)
    sa.event.listen(engine, 'before_cursor_execute', count)
    result = {}
    for name, path, version in SCENARIOS:
        counts, times, refused = [], [], []
        for _ in range(runs):
            del seen[:]
            start = time.perf_counter()
            resp = app.get('/compute/v2.1' + path, headers={
                'X-Auth-Token': TOKEN,
                'OpenStack-API-Version': 'compute %s' % version},
                expect_errors=True)
            times.append((time.perf_counter() - start) * 1000)
            counts.append(len(seen))
            if resp.status_int != 200:
                # e.g. 400 when [api] regex_filter_timeout ran out
                refused.append('in process: %s %s' % (
                    resp.status, resp.text[:200]))
        listed = len(resp.json['servers']) if resp.status_int == 200 else 0
        result[name] = (statistics.median(counts), listed,
                        statistics.median(times), refused)
    return result


def run_one(args, backend, size):
    import sqlalchemy as sa
    state = tempfile.mkdtemp(prefix='nm-bench-servers-')
    db = ntf.Database(backend, state)
    api = None
    try:
        port = ntf.free_port()
        conf = ntf.write_conf(state, db.url, port, args.workers)
        subprocess.run([ntf.venv_script('nova-mini-manage'), '--config-file',
                        conf, 'db', 'sync'], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        engine = sa.create_engine(db.url)
        try:
            seed(engine, size, random.Random(SEED))
        finally:
            engine.dispose()
        out = subprocess.run(
            [sys.executable, os.path.abspath(__file__), '--count-only', conf,
             '--count-runs', str(args.count_runs)] + [
                '--scenario=%s' % name for name, _p, _v in SCENARIOS],
            capture_output=True, text=True, timeout=900)
        if out.returncode:
            # A negative status is the signal that ended it (-9: killed).
            raise SystemExit('query count failed (exit status %d): %s%s'
                             % (out.returncode, out.stderr[-3000:],
                                out.stdout[-3000:]))
        counts = json.loads(out.stdout.strip().splitlines()[-1])
        api = ntf.Api(state, conf, args.workers)
        api.start(port)
        base = 'http://127.0.0.1:%d/compute/v2.1' % port
        result = {'backend': backend, 'size': size,
                  'loadavg': os.getloadavg()[0], 'scenarios': {}}
        for name, path, version in SCENARIOS:
            queries, listed, alone_ms, failures = counts[name]
            rps = p50 = None
            if alone_ms < args.skip_wrk_ms:
                rps, p50, wrk_failures = run_wrk(args, base + path, version)
                failures = failures + wrk_failures
            if failures:
                log('%s %d %s: %s; nova-mini-api log, last lines:\n%s',
                    backend, size, name, '; '.join(failures),
                    _log_tail(api.log_path))
            log('%s %d %s: %s req/s, p50 %s ms, in-process %.1f ms, %s '
                'queries, %d listed', backend, size, name, rps, p50,
                alone_ms, queries, listed)
            result['scenarios'][name] = {'rps': rps, 'p50_ms': p50,
                                         'failures': failures,
                                         'in_process_ms': alone_ms,
                                         'queries': queries,
                                         'listed': listed}
        return result
    finally:
        if api is not None:
            api.stop()
        db.drop()
        shutil.rmtree(state, ignore_errors=True)


def _figure(value):
    return '-' if value is None else '%.1f' % value


def check_goals(results, run):
    """Note the goals on ``run`` (a ``_record.Run``)."""
    for backend in sorted({r['backend'] for r in results}):
        sizes = {r['size']: r for r in results if r['backend'] == backend}
        for name in sizes[min(sizes)]['scenarios']:
            counts = sorted({r['scenarios'][name]['queries']
                             for r in sizes.values()})
            run.goal('%s %s: SQL statements per request <= %d, the same '
                     'at every size' % (backend, name, MAX_QUERIES[name]),
                     len(counts) == 1 and counts[0] <= MAX_QUERIES[name],
                     'by size: %s' % ', '.join(
                         '%d: %s' % (size, r['scenarios'][name]['queries'])
                         for size, r in sorted(sizes.items())))
        failures = ['%d %s: %s' % (size, name, '; '.join(s['failures']))
                    for size, r in sorted(sizes.items())
                    for name, s in r['scenarios'].items()
                    if s['failures']]
        run.goal('%s: every request answered 2xx, no socket error'
                 % backend, not failures, ' | '.join(failures))
        if 10000 in sizes and 100000 in sizes and (
                'name_prefix' in sizes[10000]['scenarios']):
            small = sizes[10000]['scenarios']['name_prefix']
            big = sizes[100000]['scenarios']['name_prefix']
            key = 'p50_ms' if small['p50_ms'] and big['p50_ms'] else (
                'in_process_ms')
            growth = big[key] / small[key]
            run.goal('%s name_prefix: 100k / 10k %s < %.1f' % (
                backend, key, MAX_GROWTH), growth < MAX_GROWTH,
                '%.2f' % growth)


def report(results):
    print('%-10s %7s %-12s %9s %8s %9s %8s %7s' % (
        'backend', 'servers', 'scenario', 'req/s', 'p50 ms', 'alone ms',
        'queries', 'listed'))
    for result in results:
        for name, figures in result['scenarios'].items():
            print('%-10s %7d %-12s %9s %8s %9.1f %8s %7d' % (
                result['backend'], result['size'], name,
                _figure(figures['rps']), _figure(figures['p50_ms']),
                figures['in_process_ms'], figures['queries'],
                figures['listed']))
    for backend in sorted({r['backend'] for r in results}):
        sizes = {r['size']: r for r in results if r['backend'] == backend}
        if 10000 in sizes and 100000 in sizes:
            for name in sizes[10000]['scenarios']:
                small = sizes[10000]['scenarios'][name]
                big = sizes[100000]['scenarios'][name]
                key = 'p50_ms' if small['p50_ms'] and big['p50_ms'] else (
                    'in_process_ms')
                print('%s %s: 100k/10k %s = %.2f' % (
                    backend, name, key, big[key] / small[key]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backend', action='append',
                        choices=['sqlite', 'postgresql'])
    parser.add_argument('--sizes', type=int, nargs='+',
                        default=[10000, 100000])
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--threads', type=int, default=2)
    parser.add_argument('--connections', type=int, default=4)
    parser.add_argument('--duration', type=int, default=10)
    parser.add_argument('--scenario', action='append',
                        choices=[name for name, _p, _v in SCENARIOS],
                        help='run only these (repeatable; default: all)')
    parser.add_argument('--count-runs', type=int, default=3,
                        help='in-process requests per scenario')
    parser.add_argument('--skip-wrk-ms', type=float, default=5000,
                        help='no wrk run for a scenario whose in-process '
                        'request took longer (it would only queue)')
    parser.add_argument('--json-out')
    parser.add_argument('--count-only', help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.scenario:
        SCENARIOS[:] = [s for s in SCENARIOS if s[0] in args.scenario]
    if args.count_only:
        print(json.dumps(count_queries(args.count_only, args.count_runs)))
        return
    run = _record.Run()
    results = [run_one(args, backend, size)
               for backend in args.backend or ['sqlite']
               for size in args.sizes]
    report(results)
    check_goals(results, run)
    status = run.report()
    if args.json_out:
        with open(args.json_out, 'w') as out:
            json.dump({'results': results, 'run': run.as_dict()}, out,
                      indent=1)
    return status


if __name__ == '__main__':
    sys.exit(main())
