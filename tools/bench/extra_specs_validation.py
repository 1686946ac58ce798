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

"""Extra spec validations per second: nova_mini's registry against Nova's.

Both run, on this machine, over the same mixed corpus drawn from the parity
corpus (exact, patterned, typo and unknown-namespace keys, valid and invalid
values): nova_mini's ``registry.validate()`` here, one key per call, and
Nova's ``nova.api.validation.extra_specs.validators.validate()`` in a
subprocess run by the interpreter of a virtualenv where Nova is installed.
Each side does ROUNDS timed rounds over the corpus (after one untimed
warm-up round); the medians and their ratio are printed.

nova_mini is measured twice: as it runs (``lookup`` keeps a bounded cache of
recent keys, as the API process does) and with that cache bypassed, so that
every call goes through the exact-name dict and the prefix index.

Goal: nova_mini's registry, as it runs, validates at least ``--min-ratio``
(5.0, the project's goal against Nova's API) times as many pairs per
second as Nova's validators; exit status 1 when it does not. The output
ends with the tree measured and the load average before and after.

Usage::

    .venv-tests/bin/python tools/bench/extra_specs_validation.py \\
        [--nova-python /tmp/novavenv/bin/python] [--pairs 10000] \\
        [--rounds 5] [--json]
"""

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time

import _record

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(ROOT, 'nova_mini', 'tests', 'unit', 'api', 'data',
                      'extra_specs_nova_parity.json')
SEED = 86

# Run by the Nova interpreter: argv[1] is a JSON list of [key, value],
# argv[2] the number of rounds; prints the rates as JSON.
NOVA_RUNNER = r'''
import json, sys, time, warnings
warnings.simplefilter('ignore')
from nova.api.validation.extra_specs import validators
from nova import exception

with open(sys.argv[1]) as f:
    pairs = [tuple(p) for p in json.load(f)]
rounds = int(sys.argv[2])
validate = validators.validate
error = exception.ValidationError


def one_round():
    rejected = 0
    start = time.perf_counter()
    for key, value in pairs:
        try:
            validate(key, value)
        except error:
            rejected += 1
    return time.perf_counter() - start, rejected


one_round()  # warm-up
results = [one_round() for _ in range(rounds)]
print(json.dumps({'seconds': [r[0] for r in results],
                  'rejected': results[0][1]}))
'''


def load_pairs(count):
    with open(CORPUS) as f:
        document = json.load(f)
    fields = document['case_fields']
    cases = [dict(zip(fields, case)) for case in document['cases']]
    rng = random.Random(SEED)
    rng.shuffle(cases)
    # The whole corpus as many times as needed, then cut: the mix of kinds
    # stays that of the corpus.
    repeated = cases * (count // len(cases) + 1)
    return [(c['key'], c['value'], c['kind']) for c in repeated[:count]]


def bench_nova_mini(pairs, rounds, cached=True):
    from nova_mini.api.validation.extra_specs import registry

    if cached:
        reg = registry.build(include_plugins=False)
    else:
        class Uncached(registry.Registry):
            lookup = registry.Registry.find

        reg = Uncached(registry.build(include_plugins=False))
    validate = registry.validate
    strict = registry.STRICT
    pairs = [(key, value) for key, value, _kind in pairs]

    def one_round():
        rejected = 0
        start = time.perf_counter()
        for key, value in pairs:
            if not validate(reg, {key: value}, strict):
                rejected += 1
        return time.perf_counter() - start, rejected

    one_round()  # warm-up
    results = [one_round() for _ in range(rounds)]
    return [r[0] for r in results], results[0][1]


def bench_nova(pairs, rounds, python):
    with tempfile.NamedTemporaryFile('w', suffix='.json',
                                     delete=False) as f:
        json.dump([[key, value] for key, value, _kind in pairs], f)
        path = f.name
    try:
        out = subprocess.run([python, '-c', NOVA_RUNNER, path, str(rounds)],
                             check=True, capture_output=True, text=True)
    finally:
        os.unlink(path)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    return result['seconds'], result['rejected']


def main():
    parser = argparse.ArgumentParser(
        description='Extra spec validation throughput, nova_mini vs Nova.')
    parser.add_argument('--nova-python', default='/tmp/novavenv/bin/python',
                        help='interpreter of a virtualenv with Nova')
    parser.add_argument('--pairs', type=int, default=10000)
    parser.add_argument('--rounds', type=int, default=5)
    parser.add_argument('--json', action='store_true',
                        help='print the figures as JSON')
    parser.add_argument('--min-ratio', type=float, default=5.0,
                        help="goal: nova_mini's validations/s over Nova's "
                             '(5.0)')
    args = parser.parse_args()
    if not os.access(args.nova_python, os.X_OK):
        parser.error('no Nova interpreter at %s (--nova-python)'
                     % args.nova_python)
    record = _record.Run()

    sys.path.insert(0, ROOT)
    pairs = load_pairs(args.pairs)
    kinds = {}
    for _key, _value, kind in pairs:
        kinds[kind] = kinds.get(kind, 0) + 1

    results = {}
    for name, run in (
            ('nova_mini', lambda: bench_nova_mini(pairs, args.rounds)),
            ('nova_mini_uncached',
             lambda: bench_nova_mini(pairs, args.rounds, cached=False)),
            ('nova', lambda: bench_nova(pairs, args.rounds,
                                        args.nova_python))):
        seconds, rejected = run()
        results[name] = {
            'rounds_seconds': seconds,
            'median_per_second': len(pairs) / statistics.median(seconds),
            'rejected': rejected,
        }
    nova_rate = results['nova']['median_per_second']
    for name in ('nova_mini', 'nova_mini_uncached'):
        results[name]['ratio_to_nova'] = (
            results[name]['median_per_second'] / nova_rate)

    ratio = results['nova_mini']['ratio_to_nova']
    record.goal("nova_mini's validations/s >= %.1f x Nova's"
                % args.min_ratio, ratio >= args.min_ratio, '%.1f' % ratio)
    if args.json:
        print(json.dumps({'pairs': len(pairs), 'kinds': kinds,
                          'rounds': args.rounds,
                          'python': platform.python_version(),
                          'results': results, 'run': record.as_dict()},
                         indent=1))
        return 1 if record.missed else 0
    print('%d pairs (%s), %d rounds, Python %s on %s' % (
        len(pairs), ', '.join('%s %d' % kv for kv in sorted(kinds.items())),
        args.rounds, platform.python_version(), platform.machine()))
    for name, label in (('nova', "Nova 34 validators.validate"),
                        ('nova_mini', 'nova_mini registry.validate'),
                        ('nova_mini_uncached',
                         'nova_mini registry.validate, no lookup cache')):
        result = results[name]
        line = '%-45s %12.0f validations/s (median; rejected %d)' % (
            label, result['median_per_second'], result['rejected'])
        if 'ratio_to_nova' in result:
            line += '  x%.1f Nova' % result['ratio_to_nova']
        print(line)
    return record.report()


if __name__ == '__main__':
    sys.exit(main())
