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

"""nova_mini's image property definitions give Nova 34's verdicts and
typed values.

The corpus (data/image_properties_nova_parity.json) was built, and what
Nova's ``ImageMeta.from_dict`` made of each pair recorded, by
tools/image_properties/nova_verdicts.py running against the real Nova, so
Nova is not needed here. Every pair must get the same verdict from the
registry in permissive mode (Nova's: unknown properties stay raw), and each
accepted known property the same typed value, except the documented
differences of KNOWN_DIFFERENCES
(doc/source/reference/image-property-differences.rst); at least 99.5 % of
the pairs must agree.
"""

import collections
import json
import os
import unittest

from nova_mini.api.validation.image_properties import registry

DATA = os.path.join(os.path.dirname(__file__), 'data',
                    'image_properties_nova_parity.json')

# Where nova_mini deliberately differs from Nova: (name, why, predicate on
# (key, value, nova verdict)). None today; an entry must account for at
# least one real difference.
KNOWN_DIFFERENCES = []

# Where nova_mini reads an accepted image into other fields than Nova:
# (name, why, predicate on (key, value)).
KNOWN_FIELD_DIFFERENCES = [
    ('empty-trait-name',
     "Nova makes 'trait:=required' a required trait named ''; nova_mini "
     "does not know the key 'trait:' and keeps it raw",
     lambda key, value: key == 'trait:'),
]

# Nova fields that are not image property names: the NUMA lists come from
# the numbered families, traits_required from trait:NAME=required.
NOT_PROPERTIES = {'hw_numa_cpus': 'hw_numa_cpus.{id}',
                  'hw_numa_mem': 'hw_numa_mem.{id}',
                  'traits_required': 'trait:{trait}'}


def _load():
    with open(DATA) as f:
        document = json.load(f)
    fields = document['case_fields']
    cases = [dict(zip(fields, case)) for case in document['cases']]
    return document, cases


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return value


class NovaParityTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.document, cls.cases = _load()
        cls.registry = registry.build(include_plugins=False)

    def _difference(self, key, value, nova):
        for name, _why, applies in KNOWN_DIFFERENCES:
            if applies(key, value, nova):
                return name
        return None

    def _nova_typed(self, case, prop):
        """What Nova made of an accepted known pair, in the registry's
        terms (the value of that one key).
        """
        fields = case['nova_fields']
        if prop.sequence:
            return fields[prop.field][0]
        if prop.name == 'trait:{trait}':
            return fields.get('traits_required', [])
        if prop.name == 'vmware_adaptertype':
            return fields.get('hw_scsi_model', fields.get('hw_disk_bus', ''))
        return fields.get(prop.field)

    def _ours_typed(self, case, prop, verdict):
        value = verdict.values[case['key']]
        if prop.name == 'trait:{trait}':
            return ([case['key'][len('trait:'):]]
                    if value == 'required' else [])
        return _jsonable(value)

    def test_corpus_is_substantial(self):
        kinds = collections.Counter(c['kind'] for c in self.cases)
        self.assertGreater(len(self.cases), 2000)
        for kind in ('exact', 'patterned', 'legacy', 'typo', 'extra'):
            self.assertGreater(kinds[kind], 0, kind)
        verdicts = collections.Counter(c['nova'] for c in self.cases)
        self.assertGreater(verdicts['accept'], 1000)
        self.assertGreater(verdicts['reject'], 500)

    def test_same_verdicts_and_values_as_nova(self):
        mismatches = []
        used = collections.Counter()
        values_compared = 0
        for case in self.cases:
            key, value, nova = case['key'], case['value'], case['nova']
            verdict = registry.validate(self.registry, {key: value},
                                        registry.PERMISSIVE)
            ours = 'accept' if verdict else 'reject'
            difference = self._difference(key, value, nova)
            if difference is not None:
                used[difference] += ours != nova
                continue
            if ours != nova:
                mismatches.append('%r=%r: Nova %s (%s), nova_mini %s'
                                  % (key, value, nova, case['nova_error'],
                                     ours))
                continue
            prop = self.registry.lookup(key)
            if nova == 'reject' or prop is None or key in verdict.ignored:
                continue
            values_compared += 1
            theirs = self._nova_typed(case, prop)
            mine = self._ours_typed(case, prop, verdict)
            if theirs != mine:
                mismatches.append('%r=%r: Nova reads %r, nova_mini %r'
                                  % (key, value, theirs, mine))
        agreement = 1 - len(mismatches) / len(self.cases)
        self.assertEqual([], mismatches)
        self.assertGreaterEqual(agreement, 0.995)
        self.assertGreater(values_compared, 1000)
        for name, _why, _applies in KNOWN_DIFFERENCES:
            self.assertGreater(used[name], 0,
                               'difference %s is never exercised' % name)

    def test_read_gives_nova_s_fields(self):
        mismatches = []
        used = collections.Counter()
        for case in self.cases:
            key, value = case['key'], case['value']
            verdict, fields = registry.read({key: value}, self.registry)
            if case['nova'] == 'reject':
                self.assertIsNone(fields, key)
                continue
            ours = {name: ([_jsonable(v) for v in typed]
                           if isinstance(typed, list) else _jsonable(typed))
                    for name, typed in fields.items()}
            if ours == case['nova_fields']:
                continue
            known = [name for name, _why, applies in KNOWN_FIELD_DIFFERENCES
                     if applies(key, value)]
            if known:
                used[known[0]] += 1
                continue
            mismatches.append('%r=%r: Nova %r, nova_mini %r'
                              % (key, value, case['nova_fields'], ours))
        self.assertEqual([], mismatches)
        for name, _why, _applies in KNOWN_FIELD_DIFFERENCES:
            self.assertGreater(used[name], 0, name)

    def test_read_with_nova_s_precedence(self):
        verdict, fields = registry.read({
            'architecture': 'i386', 'hw_architecture': 'AMD64',
            'vmware_adaptertype': 'lsiLogic', 'hw_disk_bus': 'virtio',
            'hw_numa_cpus.1': '2-3', 'hw_numa_cpus.0': '0,1',
            'hw_numa_mem.0': '512', 'hw_numa_mem.2': 'x',
            'trait:CUSTOM_A': 'required', 'trait:CUSTOM_B': 'forbidden',
            'my_own': 'raw'}, self.registry)
        self.assertEqual({
            'hw_architecture': 'x86_64', 'hw_disk_bus': 'virtio',
            'hw_scsi_model': 'lsilogic', 'hw_numa_cpus': [{0, 1}, {2, 3}],
            'hw_numa_mem': [512], 'traits_required': ['CUSTOM_A']}, fields)
        self.assertEqual(['hw_numa_mem.2'], verdict.ignored)
        self.assertEqual(['my_own'], verdict.unknown)
        verdict, fields = registry.read({'hw_vm_mode': 'pvh'}, self.registry)
        self.assertIsNone(fields)
        self.assertEqual(
            ["Image property 'hw_vm_mode': 'pvh' is not one of: hvm, xen, "
             "uml, exe."], verdict.errors)

    def test_every_nova_property_has_a_definition(self):
        for field in self.document['nova_fields']:
            name = NOT_PROPERTIES.get(field, field)
            prop = self.registry.lookup(name.replace('{id}', '0').replace(
                '{trait}', 'CUSTOM_X'))
            self.assertIsNotNone(prop, field)
            self.assertEqual(field, prop.field)
        for legacy, current in self.document['nova_legacy_names'].items():
            prop = self.registry.lookup(legacy)
            self.assertIsNotNone(prop, legacy)
            self.assertEqual(current, prop.field)

    def test_enumerations_are_nova_s(self):
        for field, values in self.document['nova_enums'].items():
            prop = self.registry.lookup(field)
            self.assertEqual(sorted(values), sorted(prop.value.enum), field)

    def test_every_property_gets_both_verdicts_where_it_can(self):
        seen = collections.defaultdict(set)
        for case in self.cases:
            prop = self.registry.lookup(case['key'])
            if prop is not None:
                seen[prop.name].add(case['nova'])
        for prop in self.registry:
            self.assertIn(prop.name, seen)
            # Free text, flexible booleans and UUIDs take anything; the
            # JSON legacy names and their rules are the exception.
            takes_anything = prop.name not in (
                'block_device_mapping', 'mappings') and (
                prop.value.type is bool or (
                    prop.value.type is str and not prop.value.enum and
                    prop.field not in ('img_hv_requested_version',
                                       'hw_numa_cpus')))
            if prop.name in ('img_block_device_mapping', 'img_mappings'):
                self.assertEqual({'reject'}, seen[prop.name])
            elif takes_anything:
                self.assertEqual({'accept'}, seen[prop.name], prop.name)
            else:
                self.assertEqual({'accept', 'reject'}, seen[prop.name],
                                 prop.name)
