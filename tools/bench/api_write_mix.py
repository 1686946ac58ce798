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

"""Concurrent writes through nova-mini-api on SQLite, PostgreSQL, MariaDB.

For each backend asked for, the tool makes a fresh database (a SQLite
file in a temporary state directory, a new PostgreSQL or MariaDB
database), starts a nova-mini-api (``--workers`` workers, noauth2) and a
nova-mini-scheduler on a RabbitMQ virtual host of their own, and has ``--clients`` client
threads write for ``--duration`` seconds (nova_mini/tests/live/
write_mix.py): flavor creates, extra-spec writes, node trait adds and
removes racing past the 50-trait limit, server boots and deletes
(``--mix extra_specs``: extra-spec writes only, the issue's report).

It then reads every accepted write back and prints, per backend,
requests/s, p50 and p99 latency, the answers by operation and status,
and every problem found (5xx, an accepted write missing, a node over 50
traits or holding two servers). Exit status 1 if there was any (the
goal: 0 problems on every backend). The output ends with the tree
measured and the load average before and after.

    .venv-tests/bin/python tools/bench/api_write_mix.py
    .venv-tests/bin/python tools/bench/api_write_mix.py --duration 15 \\
        --backends sqlite --json-out /tmp/write_mix.json
"""

import argparse
import json
import shutil
import sys
import tempfile

import _record
from nova_mini.tests.fixtures import database as db_fixture
from nova_mini.tests.harness import postgresql
from nova_mini.tests.live import write_mix


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--backends', default='sqlite,postgresql',
                        help='comma-separated: sqlite, postgresql, '
                             'mariadb (at $NOVA_MINI_TEST_MYSQL_URL, as the '
                             'database tests)')
    parser.add_argument('--clients', type=int, default=64)
    parser.add_argument('--duration', type=float, default=60.0,
                        help='seconds of writes per backend')
    parser.add_argument('--workers', type=int, default=2,
                        help='API worker processes')
    parser.add_argument('--nodes', type=int, default=300,
                        help='nodes the boots may land on')
    parser.add_argument('--mix', choices=('all', 'extra_specs'),
                        default='all')
    parser.add_argument('--keep-state', action='store_true')
    parser.add_argument('--json-out')
    return parser.parse_args(argv)


def run_backend(backend, args):
    state_dir = tempfile.mkdtemp(prefix='nova-mini-mix-%s-' % backend)
    pg = None
    if backend == 'sqlite':
        connection = 'sqlite:///%s/nova_mini.sqlite' % state_dir
    elif backend == 'postgresql':
        pg = postgresql.TemporaryDatabase(prefix='nova_mini_mix')
        connection = pg.url
    elif backend == 'mariadb':
        pg = db_fixture.MariaDBDatabase()
        connection = pg.url
    else:
        raise SystemExit('unknown backend %r' % backend)
    try:
        with write_mix.Deployment(state_dir, connection,
                                  workers=args.workers) as deployment:
            engine = deployment.engine()
            try:
                mix = write_mix.WriteMix(
                    deployment.compute_url, deployment.baremetal_url,
                    engine, clients=args.clients, duration=args.duration,
                    boot_nodes=args.nodes)
                if args.mix == 'extra_specs':
                    mix.operations = (('extra_spec', 1),)
                mix.setup()
                result = mix.run()
                problems = mix.check()
                if problems:
                    print(write_mix.log_tails(deployment, 20))
            finally:
                engine.dispose()
        summary = dict(result.summary(), backend=backend,
                       clients=args.clients, workers=args.workers,
                       servers=dict(mix.statuses),
                       faults=dict(mix.faults),
                       problems=problems)
        return summary
    finally:
        if pg is not None:
            pg.drop()
        if not args.keep_state:
            shutil.rmtree(state_dir, ignore_errors=True)
        else:
            print('state kept in %s' % state_dir)


def main(argv=None):
    args = parse_args(argv)
    run = _record.Run(None if argv is None else ['api_write_mix.py'] + argv)
    summaries = []
    for backend in args.backends.split(','):
        print('== %s: %d clients, %d API workers, %.0f s, mix %s' % (
            backend, args.clients, args.workers, args.duration, args.mix),
            flush=True)
        summary = run_backend(backend.strip(), args)
        summaries.append(summary)
        print(json.dumps(summary, indent=2, sort_keys=True), flush=True)
    print('\n| backend | clients | workers | s | requests | req/s | p50 ms '
          '| p99 ms | 5xx | problems |')
    print('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |')
    for s in summaries:
        print('| %s | %d | %d | %.0f | %d | %.1f | %.1f | %.1f | %d | %d |'
              % (s['backend'], s['clients'], s['workers'], s['seconds'],
                 s['requests'], s['requests_per_s'], s['p50_ms'],
                 s['p99_ms'], s['server_errors'], len(s['problems'])))
    for s in summaries:
        run.goal('%s: no 5xx, every accepted write read back, no node over '
                 '50 traits or with two servers' % s['backend'],
                 not s['problems'], '%d problems, %d 5xx' % (
                     len(s['problems']), s['server_errors']))
    status = run.report()
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump({'summaries': summaries, 'run': run.as_dict()}, f,
                      indent=2, sort_keys=True)
    return status


if __name__ == '__main__':
    sys.exit(main())
