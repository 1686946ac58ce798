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

"""Where a select+claim over RPC spends its time.

scheduler_select.py measures the issue's ratios with 4 requesters on a
saturated machine; this tool splits one call: on a SQLite fleet seeded
and filled as there (``--size``, ``--fill``), each requester
(``--requesters``, 1 by default; threads) calls, for each of the 20
request shapes in turn, ``ping``, ``select_destinations`` and
``claim_destinations`` (the claimed node given back, untimed), and the
scheduler it starts (with ``--executor-threads`` RPC threads) records,
per RPC method, the wall and CPU time of its handler (the part of the
round trip that is the scheduler's own work; the rest is messaging: the
client's and server's (de)serialization, RabbitMQ, oslo.messaging's
threads).

    .venv-tests/bin/python tools/bench/scheduler_rpc_probe.py
    .venv-tests/bin/python tools/bench/scheduler_rpc_probe.py --fill 0.9 \\
        --rounds 10
    .venv-tests/bin/python tools/bench/scheduler_rpc_probe.py --rounds 8 \\
        --requesters 4

RabbitMQ on 127.0.0.1:5672 (guest/guest) and rabbitmqctl, as for
scheduler_select.py.

Goal: a select+claim (``claim_destinations``) over RPC at most
``--max-claim-ping`` (3.0) times a ping, scheduler_select.py's goal at
10k nodes; exit status 1 when missed. The output ends with the tree
measured and the load average before and after.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import _record  # noqa: E402  (the tree, the load, the goals)
import node_traits_filter as ntf  # noqa: E402
import scheduler_select as bench  # noqa: E402

# Run in the scheduler process (python -c): time each RPC handler, write
# the medians to $PROBE_OUT when the service stops.
_TIMED_SCHEDULER = '''
import json, os, statistics, sys, time
from nova_mini.cmd import scheduler
from nova_mini.scheduler import manager
times = {}
def timed(name):
    handler = getattr(manager.SchedulerManager, name)
    def run(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return handler(*args, **kwargs)
        finally:
            times.setdefault(name, []).append(
                ((time.perf_counter() - wall) * 1000,
                 (time.thread_time() - cpu) * 1000))
    setattr(manager.SchedulerManager, name, run)
for name in ('ping', 'select_destinations', 'claim_destinations'):
    timed(name)
serve = scheduler._serve
def serve_and_report(*args, **kwargs):
    try:
        return serve(*args, **kwargs)
    finally:
        with open(os.environ['PROBE_OUT'], 'w') as out:
            json.dump({name: {'wall_ms': statistics.median(w for w, _ in v),
                              'cpu_ms': statistics.median(c for _, c in v),
                              'calls': len(v)}
                       for name, v in times.items()}, out)
scheduler._serve = serve_and_report
sys.argv[0] = 'nova-mini-scheduler'
sys.exit(scheduler.main())
'''


def probe(args):
    import sqlalchemy as sa

    from nova_mini import context as nm_context

    state = tempfile.mkdtemp(prefix='nm-bench-probe-')
    vhost = bench.VHost()
    proc = None
    try:
        url = 'sqlite:///%s' % os.path.join(state, 'nova_mini.sqlite')
        conf = bench.write_conf(os.path.join(state, 'nova_mini.conf'), {
            'DEFAULT': {'state_path': state, 'host': 'probe',
                        'transport_url': vhost.url, 'debug': 'false',
                        'rpc_response_timeout': 120,
                        'executor_thread_pool_size': args.executor_threads},
            'database': {'connection': url}})
        subprocess.run([ntf.venv_script('nova-mini-manage'), '--config-file',
                        conf, 'db', 'sync'], check=True, timeout=300,
                       stdout=subprocess.DEVNULL)
        engine = sa.create_engine(url, connect_args={'timeout': 60})
        bench.seed(engine, args.size, argparse.Namespace(
            maintenance=0.005), random.Random(bench.SEED))
        filled = bench.child(args, '--fill-only', conf, repr(args.fill),
                             '250', '1')
        bench.log('filled to %.2f (%d nodes deployed)', args.fill,
                  filled['deployed'])
        out = os.path.join(state, 'handlers.json')
        log = open(os.path.join(state, 'scheduler.log'), 'ab')
        proc = subprocess.Popen(
            [sys.executable, '-c', _TIMED_SCHEDULER, '--config-file', conf],
            stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=dict(os.environ, PROBE_OUT=out), start_new_session=True)
        api = bench.client(vhost.url)
        ctxt = nm_context.get_admin_context()
        sched = bench.Scheduler(state, conf)
        sched.proc = proc
        bench.wait_ready(api, ctxt, sched)
        specs = [bench.spec_of(extra, i)
                 for i, (_n, extra) in enumerate(bench.shapes(True))]
        times = {'ping': [], 'select_destinations': [],
                 'claim_destinations': []}

        def requester(index):
            # Each requester goes through the shapes in its own order.
            order = specs[index:] + specs[:index]
            for _round in range(args.rounds):
                for spec in order:
                    start = time.perf_counter()
                    api.ping(ctxt)
                    times['ping'].append(time.perf_counter() - start)
                    start = time.perf_counter()
                    api.select_destinations(ctxt, spec,
                                            [str(uuid.uuid4())])
                    times['select_destinations'].append(
                        time.perf_counter() - start)
                    instance_uuid = str(uuid.uuid4())
                    start = time.perf_counter()
                    [selection] = api.claim_destinations(ctxt, spec,
                                                         [instance_uuid])
                    times['claim_destinations'].append(
                        time.perf_counter() - start)
                    bench.release(engine, selection.node_uuid,
                                  instance_uuid)

        threads = [threading.Thread(target=requester, args=(i * 5,))
                   for i in range(args.requesters)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        sched.stop()
        proc = None
        with open(out) as f:
            handlers = json.load(f)
        engine.dispose()
        return {name: {'rpc_ms': statistics.median(v) * 1000,
                       'handler_wall_ms': handlers[name]['wall_ms'],
                       'handler_cpu_ms': handlers[name]['cpu_ms'],
                       'calls': len(v)}
                for name, v in times.items()}
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            proc.wait(60)
        vhost.delete()
        shutil.rmtree(state, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--size', type=int, default=10000)
    parser.add_argument('--fill', type=float, default=0.5)
    parser.add_argument('--rounds', type=int, default=5,
                        help='rounds of the 20 shapes (default 5)')
    parser.add_argument('--requesters', type=int, default=1,
                        help='concurrent requesting threads (default 1)')
    parser.add_argument('--executor-threads', type=int, default=64,
                        help="the scheduler's [DEFAULT] "
                             'executor_thread_pool_size (default 64, '
                             "oslo.messaging's)")
    parser.add_argument('--max-claim-ping', type=float, default=3.0,
                        help='goal: claim_destinations RPC ms over ping '
                             '(3.0)')
    args = parser.parse_args()
    args.deadline = 3600
    run = _record.Run()
    result = probe(args)
    ping = result['ping']['rpc_ms']
    print('%-20s %8s %14s %13s %14s' % (
        'call (%d requesters)' % args.requesters, 'RPC ms',
        'handler wall', 'handler CPU', 'messaging ms'))
    for name, r in result.items():
        print('%-20s %8.2f %14.2f %13.2f %14.2f' % (
            name, r['rpc_ms'], r['handler_wall_ms'], r['handler_cpu_ms'],
            r['rpc_ms'] - r['handler_wall_ms']))
    print('claim / ping = %.2f; messaging beyond a ping: select %.2f ms, '
          'claim %.2f ms' % (
              result['claim_destinations']['rpc_ms'] / ping,
              result['select_destinations']['rpc_ms']
              - result['select_destinations']['handler_wall_ms'] - ping,
              result['claim_destinations']['rpc_ms']
              - result['claim_destinations']['handler_wall_ms'] - ping))
    ratio = result['claim_destinations']['rpc_ms'] / ping
    run.goal('%d nodes, %d requester(s): claim_destinations <= %.1f x ping'
             % (args.size, args.requesters, args.max_claim_ping),
             ratio <= args.max_claim_ping, '%.2f' % ratio)
    return run.report()


if __name__ == '__main__':
    sys.exit(main())
