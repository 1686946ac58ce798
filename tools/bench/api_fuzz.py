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

"""A long fuzz run of both API roots: no generated request earns a 5xx.

Sends ``--requests`` requests (10,000 by default), spread evenly over the
endpoints of the seeded fuzz test (nova_mini/tests/fixtures/
fuzz_targets.py: each endpoint's requests are generated from its own JSON
schema by tests/fixtures/schema_strategies.py, mostly valid documents
mixed with arbitrary JSON), and prints the number of requests, the
answers by status (overall and by endpoint), the 5xx (goal: none, with
the first few requests that earned one) and the time taken.

Where the requests go:

* by default, the API in this process: nova-mini-api's WSGI app with
  every middleware, noauth2, a fresh SQLite database (the functional
  tests' APIFixture), through webtest: no HTTP server, no RabbitMQ
  (server boots are cast to oslo.messaging's in-memory driver);
* ``--url http://HOST:PORT``: a running nova-mini-api over HTTP (the
  root URL, without /compute). noauth2 takes the default tokens; for a
  Keystone-authenticated one pass ``--token`` (an admin token). The run
  makes a flavor ``fuzz`` and a node ``fuzz-node`` first, or reuses them.

Generation is seeded (``--seed``): the same seed sends the same requests.
Exit status 1 if any answer was a 5xx.

    .venv-tests/bin/python tools/bench/api_fuzz.py
    .venv-tests/bin/python tools/bench/api_fuzz.py --requests 20000 \\
        --url http://127.0.0.1:8774 --json-out /tmp/fuzz.json
"""

import argparse
import collections
import json
import sys
import time

from hypothesis import errors as hypothesis_errors
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import seed as hypothesis_seed
from hypothesis import settings

from nova_mini.tests.fixtures import fuzz_targets

# How many 5xx answers are printed in full.
SHOWN_ERRORS = 10


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=10000,
                        help='requests in all, spread over the endpoints')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--url', help='a running nova-mini-api (its root '
                        'URL); default: the app in this process')
    parser.add_argument('--token', help='X-Auth-Token for --url '
                        '(default: noauth2 admin)')
    parser.add_argument('--only', help='comma-separated endpoint names '
                        '(default: all): %s' % ', '.join(
                            t.name for t in fuzz_targets.TARGETS))
    parser.add_argument('--json-out')
    return parser.parse_args(argv)


class InProcess(object):
    """The API app in this process, on a fresh SQLite database."""

    where = 'in-process app (webtest, noauth2, SQLite)'

    def __init__(self):
        import webtest

        from nova_mini.tests.fixtures import api as api_fixture
        self._fixture = api_fixture.APIFixture()
        self._fixture.setUp()
        self._app = webtest.TestApp(self._fixture.app)

    def send(self, method, path, headers, body, has_body):
        kwargs = {}
        if has_body:
            kwargs = {'body': json.dumps(body).encode(),
                      'content_type': 'application/json'}
        response = self._app.request(path, method=method, headers=headers,
                                     expect_errors=True, **kwargs)
        return response.status_int, response.text

    def close(self):
        self._fixture.cleanUp()


class OverHTTP(object):
    """A running nova-mini-api."""

    def __init__(self, url, token=None):
        import requests
        self._url = url.rstrip('/')
        self._token = token
        self._session = requests.Session()
        self.where = 'nova-mini-api at %s' % self._url

    def send(self, method, path, headers, body, has_body):
        headers = dict(headers)
        if self._token:
            headers['X-Auth-Token'] = self._token
        kwargs = {}
        if has_body:
            kwargs = {'data': json.dumps(body).encode(),
                      'headers': dict(headers,
                                      **{'Content-Type': 'application/json'})}
        else:
            kwargs = {'headers': headers}
        response = self._session.request(method, self._url + path,
                                         timeout=60, **kwargs)
        return response.status_code, response.text

    def close(self):
        self._session.close()


class Run(object):
    """The answers of one fuzz run."""

    def __init__(self):
        self.statuses = collections.Counter()
        self.by_target = collections.defaultdict(collections.Counter)
        self.errors = []        # (target, method, path, body, status, text)
        self.requests = 0
        self.seconds = 0.0

    def record(self, target, method, path, body, status, text):
        self.requests += 1
        self.statuses[status] += 1
        self.by_target[target.name][status] += 1
        if status >= 500:
            self.errors.append((target.name, method, path, body, status,
                                text[:500]))

    @property
    def server_errors(self):
        return sum(n for status, n in self.statuses.items() if status >= 500)

    def summary(self, where, seed):
        return {
            'where': where,
            'seed': seed,
            'requests': self.requests,
            'seconds': round(self.seconds, 1),
            'requests_per_s': round(self.requests / self.seconds, 1)
            if self.seconds else 0.0,
            'statuses': {str(k): v for k, v in sorted(self.statuses.items())},
            'by_endpoint': {name: {str(k): v for k, v in
                                   sorted(counts.items())}
                            for name, counts in sorted(
                                self.by_target.items())},
            'server_errors': self.server_errors,
            'first_server_errors': [
                {'endpoint': e[0], 'method': e[1], 'path': e[2],
                 'body': e[3], 'status': e[4], 'answer': e[5]}
                for e in self.errors[:SHOWN_ERRORS]],
        }


def _fuzz_target(api, run, target, count, seed):
    """Send ``count`` requests of ``target``; Hypothesis may judge a small
    strategy exhausted before, so it is run again with the next seeds
    until the count is reached (or a run adds nothing).
    """
    sent = 0
    attempt = 0
    while sent < count:
        before = sent
        remaining = count - sent

        @hypothesis_seed(seed * 1000 + attempt)
        @settings(max_examples=remaining, database=None, deadline=None,
                  phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(drawn=target.strategy)
        def fuzz(drawn):
            nonlocal sent
            if sent >= count:
                return
            method, path, body = fuzz_targets.request_of(target, drawn)
            status, text = api.send(method, path, target.headers, body,
                                    target.body)
            run.record(target, method, path, body, status, text)
            sent += 1

        try:
            fuzz()
        except hypothesis_errors.Unsatisfiable:
            break
        attempt += 1
        if sent == before:
            break


def setup(api):
    """Make the flavor and the node the endpoints name (or keep theirs)."""
    for method, path, headers, body in fuzz_targets.SETUP:
        status, text = api.send(method, path, headers, body, True)
        if status >= 400 and status != 409:
            raise SystemExit('set-up %s %s: %d %s' % (method, path, status,
                                                      text[:300]))


def main(argv=None):
    args = parse_args(argv)
    targets = list(fuzz_targets.TARGETS)
    if args.only:
        names = set(args.only.split(','))
        targets = [t for t in targets if t.name in names]
        if not targets:
            raise SystemExit('no endpoint named %s' % args.only)
    api = OverHTTP(args.url, args.token) if args.url else InProcess()
    run = Run()
    try:
        per_target, extra = divmod(args.requests, len(targets))
        start = time.monotonic()
        for index, target in enumerate(targets):
            count = per_target + (1 if index < extra else 0)
            # Again: a node patch may have renamed fuzz-node.
            setup(api)
            _fuzz_target(api, run, target, count, args.seed)
            print('%-24s %6d requests  %s' % (
                target.name, sum(run.by_target[target.name].values()),
                dict(sorted(run.by_target[target.name].items()))),
                flush=True)
        run.seconds = time.monotonic() - start
    finally:
        api.close()
    summary = run.summary(api.where, args.seed)
    print(json.dumps({k: v for k, v in summary.items()
                      if k != 'by_endpoint'}, indent=2, default=str))
    print('\n%d requests in %.1f s (%.0f/s) against the %s: %d 5xx'
          % (run.requests, run.seconds, summary['requests_per_s'],
             api.where, run.server_errors))
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump(summary, f, indent=2, sort_keys=True, default=str)
    return 1 if run.server_errors else 0


if __name__ == '__main__':
    sys.exit(main())
