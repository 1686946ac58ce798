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

"""The request path of flavors_api.py's scenarios, in process.

The WSGI application of nova-mini-api (``build_app()``: every middleware,
noauth2, SQLite in a temporary directory, the same 10 flavors x 10 extra
specs as flavors_api.py seeds) called as gunicorn calls it (a fresh
environ per request, the body iterated), without HTTP or threads:

    flavors_detail    GET  /compute/v2.1/flavors/detail (2.61)
    extra_specs_post  POST /compute/v2.1/flavors/anchor-0/os-extra_specs,
                      the 10 specs it has already (2.86)
    extra_specs_change the same POST with one value changed each time

``time`` prints the CPU time per request (median of batches); ``calls``
the Python function calls per request (cProfile; the same on a busy
machine); ``profile`` a cProfile of 1000 requests, by cumulative time
(``--dump`` keeps it for pstats).

    .venv-tests/bin/python tools/bench/flavors_request_path.py time
    .venv-tests/bin/python tools/bench/flavors_request_path.py calls
    .venv-tests/bin/python tools/bench/flavors_request_path.py profile \\
        --scenarios flavors_detail --dump /tmp/detail.prof

Goal (``time``): every scenario at most ``--max-cpu-ms`` (1.5) ms of CPU
per request, flavors_api.py's server-CPU goal: in process a request costs
about 0.5 ms less than under gunicorn, so a scenario over it here misses
that goal there too; exit status 1 then. ``calls`` and ``profile`` have
no goal. The output ends with the tree measured (``PYTHONPATH`` when set)
and the load average before and after.

It imports the nova_mini its Python finds (the venv's, or ``PYTHONPATH``:
an older tree to compare with). Run it under ``flock
/tmp/nova_mini-bench.lock`` where others benchmark too.
"""

import argparse
import cProfile
import io
import itertools
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time

import _record

# The extra specs of the Nova anchor's load.py (flavors_api.py seeds them).
EXTRA_SPECS = {
    'hw:cpu_policy': 'dedicated', 'hw:mem_page_size': 'large',
    'hw:numa_nodes': '2', 'trait:HW_CPU_X86_AVX2': 'required',
    'resources:VCPU': '2', 'quota:cpu_shares': '1024',
    'hw:cpu_thread_policy': 'prefer', 'hw:watchdog_action': 'reset',
    'hw_rng:allowed': 'true', 'hw:boot_menu': 'false',
}
SCENARIOS = ('flavors_detail', 'extra_specs_post', 'extra_specs_change')


class RequestPath(object):
    """nova-mini-api's application on a fresh SQLite database, seeded."""

    def __init__(self, connection=None):
        self.state = tempfile.mkdtemp(prefix='nm-request-path-')
        connection = connection or 'sqlite:///%s/nova_mini.sqlite' % (
            self.state)
        conf = os.path.join(self.state, 'nova-mini.conf')
        with open(conf, 'w') as stream:
            stream.write('[DEFAULT]\nstate_path = %s\n[api]\n'
                         'auth_strategy = noauth2\n[database]\n'
                         'connection = %s\n' % (self.state, connection))
        manage = os.path.join(os.path.dirname(sys.executable),
                              'nova-mini-manage')
        subprocess.run([manage, '--config-file', conf, 'db', 'sync'],
                       check=True, stdout=subprocess.DEVNULL, timeout=300)
        from nova_mini.api import app
        from nova_mini import config
        from nova_mini.db import api as db_api
        config.parse_args(['flavors_request_path', '--config-file', conf])
        db_api.configure(config.CONF)
        self.app = app.build_app()
        self._environs = {}
        for i in range(10):
            self.call('POST', '/flavors', {'flavor': {
                'name': 'anchor-flavor-%d' % i, 'id': 'anchor-%d' % i,
                'ram': 1024 * (i + 1), 'vcpus': 2, 'disk': 10}}, '2.61')
            self.call('POST', '/flavors/anchor-%d/os-extra_specs' % i,
                      {'extra_specs': EXTRA_SPECS}, '2.86')
        self._numa = itertools.cycle(['1', '2'])

    def close(self):
        shutil.rmtree(self.state, ignore_errors=True)

    def call(self, method, path, body, version):
        """One request, as gunicorn makes it; raises unless 200."""
        import webob
        key = (method, path, json.dumps(body, sort_keys=True), version)
        if key not in self._environs:
            req = webob.Request.blank('/compute/v2.1' + path, method=method)
            req.headers['X-Auth-Token'] = 'admin:admin'
            req.headers['Accept'] = 'application/json'
            req.headers['OpenStack-API-Version'] = 'compute ' + version
            data = b''
            if body is not None:
                data = req.body = json.dumps(body).encode()
                req.content_type = 'application/json'
            self._environs[key] = (dict(req.environ), data)
        environ, data = self._environs[key]
        environ = dict(environ, **{'wsgi.input': io.BytesIO(data)})
        status = []
        result = self.app(environ,
                          lambda s, headers, exc_info=None: status.append(s))
        try:
            answer = b''.join(result)
        finally:
            getattr(result, 'close', lambda: None)()
        if not status[0].startswith('200'):
            raise RuntimeError('%s %s: %s %s' % (method, path, status[0],
                                                 answer[:300]))

    def scenario(self, name):
        """The function making one request of scenario ``name``."""
        if name == 'flavors_detail':
            return lambda: self.call('GET', '/flavors/detail', None, '2.61')
        if name == 'extra_specs_post':
            return lambda: self.call(
                'POST', '/flavors/anchor-0/os-extra_specs',
                {'extra_specs': EXTRA_SPECS}, '2.86')

        def change():
            specs = dict(EXTRA_SPECS, **{'hw:numa_nodes': next(self._numa)})
            self.call('POST', '/flavors/anchor-0/os-extra_specs',
                      {'extra_specs': specs}, '2.86')
        return change


def cpu_ms(request, batch, batches):
    """Median CPU ms per request over ``batches`` batches."""
    samples = []
    for _ in range(batches):
        start = time.process_time()
        for _ in range(batch):
            request()
        samples.append((time.process_time() - start) * 1000 / batch)
    return sorted(samples)[len(samples) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('mode', choices=('time', 'calls', 'profile'))
    ap.add_argument('--scenarios', default=','.join(SCENARIOS))
    ap.add_argument('--batch', type=int, default=200)
    ap.add_argument('--batches', type=int, default=10)
    ap.add_argument('--requests', type=int, default=1000,
                    help='requests profiled (profile, calls)')
    ap.add_argument('--top', type=int, default=40)
    ap.add_argument('--dump', help='profile: write the stats here')
    ap.add_argument('--max-cpu-ms', type=float, default=1.5,
                    help='time: goal, CPU ms per request (1.5)')
    ap.add_argument('--backend', choices=('sqlite', 'postgresql'),
                    default='sqlite',
                    help='the database (postgresql: a temporary database '
                         'on the local server; %(default)s)')
    args = ap.parse_args()
    run = _record.Run()
    if os.environ.get('PYTHONPATH'):
        run.tree = '%s (PYTHONPATH=%s: %s)' % (
            run.tree, os.environ['PYTHONPATH'],
            _record.tree(os.environ['PYTHONPATH'].split(os.pathsep)[0]))
    database = None
    if args.backend == 'postgresql':
        from nova_mini.tests.harness import postgresql
        database = postgresql.TemporaryDatabase(prefix='nova_mini_path')
    path = RequestPath(database.url if database else None)
    try:
        for name in args.scenarios.split(','):
            request = path.scenario(name)
            for _ in range(50):         # warm: caches, pooled connections
                request()
            if args.mode == 'time':
                ms = cpu_ms(request, args.batch, args.batches)
                print('%-18s %.3f ms CPU/request' % (name, ms))
                run.goal('%s <= %.2f ms CPU/request' % (
                    name, args.max_cpu_ms), ms <= args.max_cpu_ms,
                    '%.3f ms' % ms)
                continue
            profile = cProfile.Profile(time.process_time)
            profile.enable()
            for _ in range(args.requests):
                request()
            profile.disable()
            stats = pstats.Stats(profile)
            if args.mode == 'calls':
                print('%-18s %d function calls/request' % (
                    name, stats.total_calls / args.requests))
                continue
            if args.dump:
                stats.dump_stats(args.dump)
            print('== %s' % name)
            stats.sort_stats('cumulative').print_stats(args.top)
    finally:
        path.close()
        if database:
            database.drop()
    return run.report()


if __name__ == '__main__':
    sys.exit(main())
