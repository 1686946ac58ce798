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

"""A long fuzz run of both API roots: no request earns a 5xx, logs a
traceback or holds a worker.

Sends ``--requests`` requests per backend (10,000 by default), spread
evenly over the endpoints of nova_mini/tests/fixtures/fuzz_targets.py:
half of each endpoint's requests are generated from its own JSON schema
(mostly valid documents mixed with arbitrary JSON), the other half are
shared evenly by its hostile shapes (JSON nested 30,000 deep,
NaN/Infinity and 2**70 in every numeric field, NUL bytes in strings,
paths and queries, bodies that are not UTF-8, wrong content types,
microversion headers of thousands of digits, 100 KB tokens, catastrophic
and invalid regular expressions, 600-trait filters). Prints, per
backend, the answers by status and by shape, the 5xx, the tracebacks the
service logged, and the slowest requests, each distinct finding with a
curl reproducer.

Where the requests go:

* by default, the API in this process: nova-mini-api's WSGI app with
  every middleware, noauth2, a fresh database (the functional tests'
  APIFixture) on each of ``--backends`` (sqlite, postgresql, mariadb:
  the servers of tests/fixtures/database.py), through webtest: no HTTP
  server, no RabbitMQ (server boots are cast to oslo.messaging's
  in-memory driver). The root logger's records are captured during the
  run: any with exception information, or 'Traceback' in its text, is a
  finding. A request is cut at ``--request-timeout`` seconds
  (fuzz_targets.Deadline: its statements cancelled, SIGALRM in its
  Python code), which the app answers with a 500;
* ``--url http://HOST:PORT``: a running nova-mini-api over HTTP (the
  root URL, without /compute; its logs are not seen here). noauth2 takes
  the default tokens; for a Keystone-authenticated one pass ``--token``
  (an admin token).

Generation is seeded (``--seed``): the same seed sends the same requests,
on every backend. Exit status 1 if any answer was a 5xx, any traceback
was logged, or any request took longer than ``--slow`` seconds (the
goals). The output ends with the tree measured and the load average
before and after.

    .venv-tests/bin/python tools/bench/api_fuzz.py --requests 3000 \\
        --backends sqlite,postgresql --findings /tmp/fuzz-findings.md
    .venv-tests/bin/python tools/bench/api_fuzz.py --requests 20000 \\
        --url http://127.0.0.1:8774 --json-out /tmp/fuzz.json
"""

import argparse
import collections
import json
import logging
import re
import shlex
import sys
import time
import traceback

from hypothesis import errors as hypothesis_errors
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import Phase
from hypothesis import seed as hypothesis_seed
from hypothesis import settings

import _record
from nova_mini.tests.fixtures import fuzz_targets

# How many findings and slow requests are printed in full.
SHOWN = 10
# The status recorded for a request cut at --request-timeout, and for
# one whose exception escaped the WSGI app.
TIMED_OUT = 599
ESCAPED = 598


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=10000,
                        help='requests per backend, spread over the '
                        'endpoints')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--backends', default='sqlite',
                        help='comma-separated database backends of the '
                        'in-process app: sqlite, postgresql, mariadb')
    parser.add_argument('--url', help='a running nova-mini-api (its root '
                        'URL); default: the app in this process')
    parser.add_argument('--token', help='X-Auth-Token for --url '
                        '(default: noauth2 admin)')
    parser.add_argument('--only', help='comma-separated endpoint names '
                        '(default: all): %s' % ', '.join(
                            t.name for t in fuzz_targets.TARGETS))
    parser.add_argument('--slow', type=float, default=5.0,
                        help='a request slower than this (s) is a finding')
    parser.add_argument('--request-timeout', type=float, default=30.0,
                        help='a request is cut after this (s)')
    parser.add_argument('--json-out')
    parser.add_argument('--findings', help='write the findings here '
                        '(Markdown)')
    return parser.parse_args(argv)


class LogCapture(logging.Handler):
    """Every record of the service at WARNING and above, and any with
    exception information, while a run lasts.
    """

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        if record.levelno >= logging.WARNING or record.exc_info:
            self.records.append(record)

    def take(self):
        records, self.records = self.records, []
        return records


def tracebacks_of(records):
    """The texts of the records that carry a traceback."""
    found = []
    for record in records:
        text = record.getMessage()
        if record.exc_info:
            text += '\n' + ''.join(traceback.format_exception(
                *record.exc_info))
        elif record.exc_text:
            text += '\n' + record.exc_text
        if record.exc_info or record.exc_text or 'Traceback' in text:
            found.append('%s %s: %s' % (record.levelname, record.name,
                                        text))
    return found


class InProcess(object):
    """The API app in this process, on a fresh database of ``backend``."""

    def __init__(self, backend, timeout):
        import webtest

        from nova_mini.tests.fixtures import api as api_fixture
        self.where = 'in-process app (webtest, noauth2, %s)' % backend
        self._timeout = timeout
        self._fixture = api_fixture.APIFixture(backend=backend)
        self._fixture.setUp()
        self._app = webtest.TestApp(self._fixture.app)
        self._deadline = fuzz_targets.Deadline(self._fixture.database.engine)
        self.logs = LogCapture()
        root = logging.getLogger()
        root.addHandler(self.logs)
        # Records of WARNING and above reach the handler whatever the
        # level left by earlier set-up.
        self._level = root.level
        if root.level > logging.WARNING:
            root.setLevel(logging.WARNING)

    def send(self, method, path, headers, body, content_type):
        kwargs = {}
        if body is not None:
            kwargs['body'] = body
        if content_type is not None:
            kwargs['content_type'] = content_type
        try:
            with self._deadline(self._timeout):
                response = self._app.request(path, method=method,
                                             headers=headers,
                                             expect_errors=True, **kwargs)
        except fuzz_targets.RequestCut:
            return TIMED_OUT, 'cut after %.0f s' % self._timeout
        except Exception:
            # Out of the app (or webtest's lint of its answer): a finding.
            logging.getLogger(__name__).exception(
                'escaped the app: %s %s', method, path[:200])
            return ESCAPED, traceback.format_exc()[-2000:]
        return response.status_int, response.text

    def close(self):
        root = logging.getLogger()
        root.removeHandler(self.logs)
        root.setLevel(self._level)
        self._fixture.cleanUp()


class OverHTTP(object):
    """A running nova-mini-api (its logs are not seen)."""

    def __init__(self, url, token, timeout):
        import requests
        self._url = url.rstrip('/')
        self._token = token
        self._timeout = timeout
        self._session = requests.Session()
        self.where = 'nova-mini-api at %s' % self._url
        self.logs = None

    def send(self, method, path, headers, body, content_type):
        import requests
        headers = dict(headers)
        if self._token and 'X-Auth-Token' in headers:
            headers['X-Auth-Token'] = self._token
        if content_type is not None:
            headers['Content-Type'] = content_type
        try:
            response = self._session.request(
                method, self._url + path, data=body, headers=headers,
                timeout=self._timeout)
        except requests.Timeout:
            return TIMED_OUT, 'no answer in %.0f s' % self._timeout
        except (ValueError, requests.exceptions.InvalidHeader) as error:
            # A header requests will not send (a NUL byte): not a finding.
            return 0, 'not sent: %s' % error
        except requests.ConnectionError as error:
            # The server closed the connection: what it does with a
            # header over its limits, or a worker that died.
            return ESCAPED, 'connection: %s' % error
        return response.status_code, response.text

    def close(self):
        self._session.close()


def _python_literal(data):
    """A short Python expression of ``data`` (str or bytes): runs of a
    repeated piece written as ``piece * n``.
    """
    pieces = []
    literal = data[:0]
    i = 0
    while i < len(data):
        best = (1, 1)
        for width in range(1, 9):
            unit = data[i:i + width]
            if len(unit) < width:
                break
            count = 1
            while data[i + count * width:i + (count + 1) * width] == unit:
                count += 1
            if width * count > best[0] * best[1] and width * count >= 48:
                best = (width, count)
        width, count = best
        if width * count >= 48:
            if literal:
                pieces.append(repr(literal))
                literal = data[:0]
            pieces.append('%r * %d' % (data[i:i + width], count))
            i += width * count
        else:
            literal += data[i:i + 1]
            i += 1
    if literal or not pieces:
        pieces.append(repr(literal))
    return ' + '.join(pieces)


def reproducer(request, path, url='http://127.0.0.1:8774'):
    """A shell command that sends ``request`` (at ``path``) with curl."""
    def value(text):
        # Shell text of ``text``: quoted, or printed by Python if long.
        if len(text) <= 200 and text.isprintable():
            return shlex.quote(text)
        return '"$(python3 -c %s)"' % shlex.quote(
            'import sys; sys.stdout.write(%s)' % _python_literal(text))
    # --path-as-is: curl would squash /../ and friends.
    command = ['curl', '-sS', '--path-as-is', '-X', request.method]
    headers = dict(request.headers)
    if request.content_type is not None:
        headers['Content-Type'] = request.content_type
    elif request.body is not None:
        headers['Content-Type'] = ''
    for name, text in sorted(headers.items()):
        command += ['-H', value('%s: %s' % (name, text))]
    if request.query:
        command.append('"%s?$(python3 -c %s)"' % (
            url + path.split('?')[0],
            shlex.quote('import sys; sys.stdout.write(%s)' % request.query)))
    else:
        command.append(value(url + path))
    line = ' '.join(command)
    if request.body is None:
        return line
    if len(request.body) <= 200:
        try:
            text = request.body.decode('ascii')
            if text.isprintable():
                return '%s --data-binary %s' % (line, shlex.quote(text))
        except UnicodeDecodeError:
            pass
    return 'python3 -c %s | %s --data-binary @-' % (shlex.quote(
        'import sys; sys.stdout.buffer.write(%s)'
        % _python_literal(request.body)), line)


_EXCEPTION = re.compile(r'^([A-Za-z_][\w.]*(Error|Exception|Exit|Cut|Warning'
                        r'|Interrupt|Timeout|Canceled)):')
_OWN_FRAME = re.compile(r'File "[^"]*/(nova_mini/[^"]+)", line (\d+), in (\w+)')


def _exception_line(texts):
    """The exception of the first traceback (its last ``Name: ...``
    line), or ''.
    """
    for text in texts:
        for line in reversed(text.strip().splitlines()):
            if _EXCEPTION.match(line.strip()):
                return line.strip()[:300]
    return ''


def _own_frames(texts):
    """nova_mini's frames of the first traceback, innermost last."""
    for text in texts:
        frames = ['%s:%s %s' % m.groups() for m in _OWN_FRAME.finditer(text)]
        if frames:
            return frames[-4:]
    return []


def _trimmed(text):
    """A traceback without the SQL and parameters SQLAlchemy adds."""
    text = re.sub(r'\[SQL: .*?\]\n(\[parameters: .*?\]\n)?',
                  lambda m: '[SQL: %s...]\n' % m.group(0)[6:200],
                  text, flags=re.S)
    return text[-4000:]


class Run(object):
    """The answers of one fuzz run (one backend)."""

    def __init__(self, where, slow):
        self.where = where
        self.slow = slow
        self.statuses = collections.Counter()
        self.by_target = collections.defaultdict(collections.Counter)
        self.by_shape = collections.defaultdict(collections.Counter)
        self.findings = collections.OrderedDict()
        self.slowest = []       # (seconds, target, request, path, status)
        self.requests = 0
        self.tracebacks = 0
        self.seconds = 0.0

    def record(self, target, request, path, status, text, seconds, logged):
        self.requests += 1
        self.statuses[status] += 1
        self.by_target[target.name][status] += 1
        self.by_shape[request.shape.split('=')[0]][status] += 1
        self.tracebacks += len(logged)
        self.slowest.append((seconds, target.name, request, path, status))
        self.slowest = sorted(self.slowest, key=lambda s: -s[0])[:SHOWN]
        kinds = []
        if status >= 500:
            kinds.append('5xx')
        if logged:
            kinds.append('traceback')
        if seconds > self.slow:
            kinds.append('slow')
        if not kinds:
            return
        exception = _exception_line(logged) or text.strip()[:300]
        # Distinct by endpoint, shape, status and exception type.
        kind = re.split(r'[:(]', exception, 1)[0][:80]
        key = (target.name, request.shape, status, kind, tuple(kinds))
        finding = self.findings.get(key)
        if finding is None:
            self.findings[key] = finding = {
                'endpoint': target.name, 'shape': request.shape,
                'status': status, 'kinds': kinds, 'count': 0,
                'seconds': round(seconds, 2), 'exception': exception,
                'answer': text[:300],
                'reproducer': reproducer(request, path),
                'where': _own_frames(logged),
                'traceback': _trimmed(logged[0]) if logged else ''}
        finding['count'] += 1

    @property
    def server_errors(self):
        return sum(n for status, n in self.statuses.items() if status >= 500)

    @property
    def slow_requests(self):
        return sum(1 for f in self.findings.values() if 'slow' in f['kinds']
                   for _ in range(f['count']))

    def summary(self, seed):
        return {
            'where': self.where,
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
            'by_shape': {name: {str(k): v for k, v in sorted(counts.items())}
                         for name, counts in sorted(self.by_shape.items())},
            'server_errors': self.server_errors,
            'tracebacks': self.tracebacks,
            'slow_requests': self.slow_requests,
            'slowest': [{'seconds': round(s, 2), 'endpoint': name,
                         'shape': request.shape, 'status': status,
                         'path': path[:200]}
                        for s, name, request, path, status in self.slowest],
            'findings': list(self.findings.values()),
        }


def _fuzz_part(api, run, target, strategy, count, seed, ids):
    """Send ``count`` requests of ``strategy`` (a part of ``target``);
    Hypothesis may judge a small strategy exhausted before, so it is run
    again with the next seeds until the count is reached (or a run adds
    nothing).
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
        @given(request=strategy)
        def fuzz(request):
            nonlocal sent
            if sent >= count:
                return
            path = fuzz_targets.resolve(request.path, ids)
            if api.logs is not None:
                api.logs.take()
            start = time.monotonic()
            status, text = api.send(request.method, path, request.headers,
                                    request.body, request.content_type)
            seconds = time.monotonic() - start
            logged = tracebacks_of(api.logs.take()) if api.logs else []
            run.record(target, request, path, status, text, seconds, logged)
            sent += 1

        try:
            fuzz()
        except hypothesis_errors.Unsatisfiable:
            break
        attempt += 1
        if sent == before:
            break


def _fuzz_target(api, run, target, count, seed, ids):
    """Send ``count`` requests of ``target``: half ordinary ones, the
    other half shared evenly by its hostile shapes.
    """
    ordinary, hostile = target.parts[0], target.parts[1:]
    counts = [count - count // 2]
    share, extra = divmod(count // 2, len(hostile))
    counts += [share + (1 if i < extra else 0) for i in range(len(hostile))]
    for index, (strategy, part_count) in enumerate(
            zip((ordinary,) + hostile, counts)):
        if part_count:
            _fuzz_part(api, run, target, strategy, part_count,
                       seed * 100 + index, ids)


def _table(counters, statuses):
    """A Markdown table of ``counters`` (name -> Counter of statuses)."""
    columns = [str(s) for s in statuses]
    lines = ['| | %s | all |' % ' | '.join(columns),
             '| --- |%s --- |' % (' --- |' * len(columns))]
    for name, counts in sorted(counters.items()):
        lines.append('| %s | %s | %d |' % (name, ' | '.join(
            str(counts.get(s, 0)) for s in statuses), sum(counts.values())))
    return '\n'.join(lines)


def report(run, seed):
    """The per-backend report, printed."""
    statuses = sorted(run.statuses)
    print('\n## %s: %d requests in %.1f s (%.0f/s), seed %d' % (
        run.where, run.requests, run.seconds,
        run.requests / run.seconds if run.seconds else 0, seed))
    print('\n' + _table({'all': run.statuses}, statuses))
    print('\nBy shape:\n\n' + _table(run.by_shape, statuses))
    print('\nBy endpoint:\n\n' + _table(run.by_target, statuses))
    print('\n5xx: %d, tracebacks logged: %d, slower than %.0f s: %d, '
          'distinct findings: %d' % (
              run.server_errors, run.tracebacks, run.slow,
              run.slow_requests, len(run.findings)))
    print('\nSlowest:')
    for seconds, name, request, path, status in run.slowest[:5]:
        print('  %6.2f s  %s %s %s %s' % (seconds, status, name,
                                          request.shape, path[:100]))
    for finding in list(run.findings.values())[:SHOWN]:
        print('\n* %s (%s) %s x%d [%s]: %s\n  %s' % (
            finding['endpoint'], finding['shape'], finding['status'],
            finding['count'], ','.join(finding['kinds']),
            finding['exception'], finding['reproducer'][:600]))


def findings_markdown(runs, seed, requests):
    """The findings of ``runs`` as Markdown."""
    lines = ['# api_fuzz findings', '',
             'seed %d, %d requests per backend; %s' % (
                 seed, requests, time.strftime('%Y-%m-%d %H:%M')), '']
    for run in runs:
        lines += ['## %s' % run.where, '',
                  '%d requests, %d 5xx, %d tracebacks, %d slow (> %.0f s), '
                  '%d distinct findings' % (
                      run.requests, run.server_errors, run.tracebacks,
                      run.slow_requests, run.slow, len(run.findings)), '']
        for number, f in enumerate(run.findings.values(), 1):
            lines += [
                '### %d. %s, shape %s: %s x%d [%s] (%.2f s)' % (
                    number, f['endpoint'], f['shape'], f['status'],
                    f['count'], ', '.join(f['kinds']), f['seconds']),
                '', '- exception: `%s`' % f['exception'].replace('`', "'"),
                '- where: %s' % (' > '.join(f['where']) or '-'),
                '- answer: `%s`' % f['answer'][:200].replace('`', "'"),
                '- reproducer:', '', '```sh', f['reproducer'][:8000], '```',
                '']
            if f['traceback']:
                lines += ['<details><summary>traceback</summary>', '',
                          '```', f['traceback'], '```', '',
                          '</details>', '']
    return '\n'.join(lines) + '\n'


def fuzz(api, targets, requests, seed, slow, progress=None):
    """One run of ``requests`` over ``targets`` against ``api``;
    ``progress(run)`` is called after each target.
    """
    run = Run(api.where, slow)
    per_target, extra = divmod(requests, len(targets))
    start = time.monotonic()
    ids = None
    for index, target in enumerate(targets):
        count = per_target + (1 if index < extra else 0)
        # Again: a patch may have removed or renamed what a target names.
        try:
            ids = fuzz_targets.setup(api.send, ids)
        except RuntimeError as error:
            # Fuzzed all the same: the target's answers say what is left.
            print('set-up before %s: %s' % (target.name, error))
        if api.logs is not None:
            api.logs.take()
        _fuzz_target(api, run, target, count, seed, ids)
        print('%-28s %6d requests  %s' % (
            target.name, sum(run.by_target[target.name].values()),
            dict(sorted(run.by_target[target.name].items()))), flush=True)
        run.seconds = time.monotonic() - start
        if progress is not None:
            progress(run)
    run.seconds = time.monotonic() - start
    return run


def main(argv=None):
    args = parse_args(argv)
    record = _record.Run(None if argv is None else ['api_fuzz.py'] + argv)
    targets = list(fuzz_targets.TARGETS)
    if args.only:
        names = set(args.only.split(','))
        targets = [t for t in targets if t.name in names]
        if not targets:
            raise SystemExit('no endpoint named %s' % args.only)
    if args.url:
        makers = [lambda: OverHTTP(args.url, args.token,
                                   args.request_timeout)]
    else:
        makers = [lambda backend=backend: InProcess(backend,
                                                    args.request_timeout)
                  for backend in args.backends.split(',')]
    runs = []

    def write_findings(current):
        # Written as the run goes: a long run shows its findings early.
        if args.findings:
            with open(args.findings, 'w') as f:
                f.write(findings_markdown(
                    [r for r in runs if r is not current] + [current],
                    args.seed, args.requests))

    for make in makers:
        api = make()
        try:
            run = fuzz(api, targets, args.requests, args.seed, args.slow,
                       write_findings)
        finally:
            api.close()
        runs.append(run)
        report(run, args.seed)
        write_findings(run)
    print('\n| where | requests | s | 5xx | tracebacks | slow | findings |')
    print('| --- | --- | --- | --- | --- | --- | --- |')
    for run in runs:
        print('| %s | %d | %.1f | %d | %d | %d | %d |' % (
            run.where, run.requests, run.seconds, run.server_errors,
            run.tracebacks, run.slow_requests, len(run.findings)))
    for run in runs:
        record.goal('%s: no 5xx' % run.where, not run.server_errors,
                    str(run.server_errors))
        record.goal('%s: no traceback logged' % run.where,
                    not run.tracebacks, str(run.tracebacks))
        record.goal('%s: no request slower than %g s' % (
            run.where, args.slow), not run.slow_requests,
            str(run.slow_requests))
    status = record.report()
    if args.json_out:
        with open(args.json_out, 'w') as f:
            json.dump({'runs': [run.summary(args.seed) for run in runs],
                       'run': record.as_dict()}, f, indent=2,
                      sort_keys=True, default=str)
    return status


if __name__ == '__main__':
    sys.exit(main())
