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

"""nova_mini's extra spec definitions give Nova 34's verdicts.

The corpus (data/extra_specs_nova_parity.json) was built, and Nova's verdict
on each pair recorded, by tools/extra_specs/nova_verdicts.py running against
the real Nova, so Nova is not needed here. Every pair whose key nova_mini
defines, or whose namespace Nova knows, must get the same verdict (accepted
or rejected) from the registry in strict mode, except the documented
differences of KNOWN_DIFFERENCES
(doc/source/reference/extra-spec-differences.rst).
"""

import collections
import json
import os
import unittest

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import registry

DATA = os.path.join(os.path.dirname(__file__), 'data',
                    'extra_specs_nova_parity.json')


def _negative_int(value):
    try:
        return int(value) < 0
    except ValueError:
        return False


# Where nova_mini deliberately differs from Nova: (name, why, predicate on
# (key, value, nova verdict)). Pairs an entry matches may get different
# verdicts; each entry must account for at least one real difference.
KNOWN_DIFFERENCES = [
    # Ironic capabilities Nova rejects as unknown keys of the known
    # 'capabilities' namespace although every bare metal deployment uses
    # them; nova_mini defines them (with Ironic's own values for the
    # deploy-related ones).
    ('ironic-capabilities',
     'Ironic node capabilities are defined in nova_mini, not in Nova',
     lambda key, value, nova: key in (
         'capabilities:boot_mode', 'capabilities:boot_option',
         'capabilities:secure_boot', 'capabilities:trusted_boot',
         'capabilities:disk_label', 'capabilities:cpu_arch',
         'capabilities:cpus', 'capabilities:profile')),
    # Read by Nova's libvirt driver and ComputeCapabilitiesFilter, but
    # missing from Nova's validators.
    ('maxphysaddr',
     'hw:maxphysaddr_mode/_bits are defined in nova_mini, not in Nova',
     lambda key, value, nova: key in ('hw:maxphysaddr_mode',
                                      'hw:maxphysaddr_bits')),
    # Nova's validator accepts any integer, its scheduler then drops a
    # negative amount; nova_mini rejects it up front.
    ('negative-resource-amount',
     'resources*:* amounts must be >= 0 in nova_mini',
     lambda key, value, nova: key.startswith('resources')
     and _negative_int(value)),
    # Nova does not escape the '.' of hw:numa_cpus.{num} and
    # hw:numa_mem.{num} in its name regexes, so any character matches.
    ('unescaped-dot',
     'hw:numa_cpus.{num} and hw:numa_mem.{num} are matched literally',
     lambda key, value, nova: any(
         key.startswith(name) and key[len(name):len(name) + 1] != '.'
         for name in ('hw:numa_cpus', 'hw:numa_mem'))),
]


def _load():
    with open(DATA) as f:
        document = json.load(f)
    fields = document['case_fields']
    cases = [dict(zip(fields, case)) for case in document['cases']]
    return document, cases


class NovaParityTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.document, cls.cases = _load()
        cls.registry = registry.build(include_plugins=False)

    def _ours(self, key, value):
        verdict = registry.validate(self.registry, {key: value},
                                    registry.STRICT)
        return 'accept' if verdict else 'reject'

    def _difference(self, key, value, nova):
        for name, _why, applies in KNOWN_DIFFERENCES:
            if applies(key, value, nova):
                return name
        return None

    def test_corpus_is_substantial(self):
        kinds = collections.Counter(c['kind'] for c in self.cases)
        self.assertGreater(len(self.cases), 3000)
        for kind in ('exact', 'patterned', 'typo', 'bad-parameter', 'extra'):
            self.assertGreater(kinds[kind], 0, kind)
        verdicts = collections.Counter(c['nova'] for c in self.cases)
        self.assertGreater(verdicts['accept'], 1000)
        self.assertGreater(verdicts['reject'], 1000)

    def test_same_verdicts_as_nova(self):
        mismatches = []
        used = collections.Counter()
        compared = unknown_elsewhere = 0
        for case in self.cases:
            key, value, nova = case['key'], case['value'], case['nova']
            ours = self._ours(key, value)
            if (self.registry.lookup(key) is None
                    and not case['nova_namespace_known']):
                # Unknown key outside every namespace Nova knows: Nova lets
                # it through, strict validation rejects it (the spec says
                # so); permissive validation stores it like Nova.
                unknown_elsewhere += 1
                self.assertEqual('reject', ours, key)
                self.assertFalse(registry.validate(
                    self.registry, {key: value}, registry.PERMISSIVE).errors)
                continue
            compared += 1
            difference = self._difference(key, value, nova)
            if difference is not None:
                # Verdicts may differ here (invalid values are still
                # rejected by both); count the pairs where they do.
                used[difference] += ours != nova
                continue
            if ours != nova:
                mismatches.append('%r=%r: Nova %s, nova_mini %s'
                                  % (key, value, nova, ours))
        self.assertEqual([], mismatches)
        self.assertGreater(compared, 3000)
        self.assertGreater(unknown_elsewhere, 10)
        for name, _why, _applies in KNOWN_DIFFERENCES:
            self.assertGreater(used[name], 0,
                               'difference %s is never exercised' % name)
        print('\n%d pairs compared, %d unknown outside Nova\'s namespaces, '
              'documented differences: %s' % (compared, unknown_elsewhere,
                                              dict(used)))

    def test_every_nova_validator_is_exercised(self):
        seen = collections.defaultdict(set)
        for case in self.cases:
            if case['nova_definition'] is not None:
                seen[case['nova_definition']].add(case['nova'])
        validators = self.document['nova_validators']
        for index, validator in enumerate(validators):
            self.assertIn(index, seen, validator['name'])
        # Both accepted and rejected values for every validator with a
        # value rule (free strings take anything; traits only get a few
        # values each).
        example_key = {}
        for case in self.cases:
            example_key.setdefault(case['nova_definition'], case['key'])
        for index, validator in enumerate(validators):
            value = self.registry.lookup(example_key[index]).value
            if validator['name'].startswith('trait') or (
                    value.type is str and not value.enum
                    and not value.pattern):
                self.assertIn('accept', seen[index], validator['name'])
                continue
            self.assertEqual({'accept', 'reject'}, seen[index],
                             validator['name'])

    def test_every_nova_validator_has_a_definition(self):
        validators = self.document['nova_validators']
        covered = {}
        for case in self.cases:
            index = case['nova_definition']
            if index is None or index in covered:
                continue
            if self._difference(case['key'], case['value'], case['nova']):
                continue
            spec = self.registry.lookup(case['key'])
            self.assertIsNotNone(spec, case['key'])
            covered[index] = spec
        self.assertEqual(len(validators), len(covered))
        # Nova's value types carry over.
        for index, spec in covered.items():
            self.assertEqual(validators[index]['type'],
                             spec.value.type.__name__,
                             validators[index]['name'])

    def test_deprecations_carry_over(self):
        validators = self.document['nova_validators']
        deprecated = [v['name'] for v in validators if v['deprecated']]
        self.assertEqual(['hide_hypervisor_id'], deprecated)
        for name in deprecated:
            spec = self.registry.lookup(name)
            self.assertEqual(base.DEPRECATED, spec.support.status)
            self.assertIsNotNone(spec.support.since)
            self.assertIsNotNone(self.registry.lookup(
                spec.support.replacement))
