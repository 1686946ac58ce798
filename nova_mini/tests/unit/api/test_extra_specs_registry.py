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

"""The extra spec registry: lookup, index, messages and value rules, with the
in-tree definitions."""

import copy
import re
import time
import unittest

import os_traits
from oslo_utils import strutils

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import registry
from nova_mini.api.validation.extra_specs import resources
from nova_mini.api.validation.extra_specs import traits


class _CountingRegex(object):
    """Stands in for a compiled name regex and counts ``fullmatch`` calls."""

    def __init__(self, regex, counter):
        self._regex = regex
        self._counter = counter
        self.pattern = regex.pattern

    def fullmatch(self, key):
        self._counter.append(self._regex.pattern)
        return self._regex.fullmatch(key)


class SpyRegistry(registry.Registry):
    """A registry of copies of the definitions whose name regexes count how
    often lookup tries them.
    """

    def __init__(self, definitions):
        self.tried = []
        spies = []
        for spec in definitions:
            spy = copy.copy(spec)
            if spy.patterned:
                spy.regex = _CountingRegex(spec.regex, self.tried)
            spies.append(spy)
        super(SpyRegistry, self).__init__(spies)

    def tries(self, key):
        del self.tried[:]
        spec = self.find(key)
        return spec, list(self.tried)


def _validate(reg, specs, mode=registry.STRICT):
    return registry.validate(reg, specs, mode)


class RegistryTestCase(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.registry = registry.build(include_plugins=False)

    def assertAccepted(self, key, value):
        verdict = _validate(self.registry, {key: value})
        self.assertEqual([], verdict.errors, '%s=%r' % (key, value))

    def assertRejected(self, key, value, *fragments):
        verdict = _validate(self.registry, {key: value})
        self.assertEqual(1, len(verdict.errors), '%s=%r' % (key, value))
        for fragment in fragments:
            self.assertIn(fragment, verdict.errors[0])
        return verdict.errors[0]


class LookupTest(RegistryTestCase):

    def test_exact(self):
        spec = self.registry.lookup('hw:cpu_policy')
        self.assertEqual('hw:cpu_policy', spec.name)
        self.assertFalse(spec.patterned)

    def test_patterned(self):
        for key, name in (
                ('hw:numa_cpus.0', 'hw:numa_cpus.{num}'),
                ('hw:numa_mem.12', 'hw:numa_mem.{num}'),
                ('resources:VCPU', 'resources{group}:{resource_class}'),
                ('resources_gpu:CUSTOM_GPU', 'resources{group}:'
                                             '{resource_class}'),
                ('trait1:HW_CPU_X86_AVX2', 'trait{group}:{trait}'),
                ('capabilities:cpu_info:arch', 'capabilities:cpu_info{path}'),
                ('capabilities:stats', 'capabilities:stats{path}'),
                ('aggregate_instance_extra_specs:ssd',
                 'aggregate_instance_extra_specs:{key}')):
            self.assertEqual(name, self.registry.lookup(key).name, key)
            self.assertTrue(self.registry.lookup(key).matches(key))

    def test_unknown(self):
        for key in ('hw:cpu_polcy', 'foo:bar', 'hw:numa_cpus.', 'hw:numa_'
                    'cpusX0', 'trait:HW_CPU_X86_NOPE', 'resources:VCPUS',
                    'resources:CUSTOM_lower', 'trait' + 'x' * 65 + ':CUSTOM_A',
                    'capabilities:stats:a-b', 'nothing', ''):
            self.assertIsNone(self.registry.lookup(key), key)

    def test_lookup_cache_gives_the_same_answers(self):
        for key in ('hw:cpu_policy', 'hw:numa_cpus.3', 'hw:nope'):
            first = self.registry.lookup(key)
            self.assertIs(first, self.registry.lookup(key))
            self.assertIs(first, self.registry.find(key))

    def test_lookup_cache_is_bounded(self):
        reg = registry.Registry(self.registry)
        for i in range(registry.CACHE_SIZE + 10):
            reg.lookup('hw:numa_cpus.%d' % i)
        self.assertLessEqual(len(reg._cache), registry.CACHE_SIZE)
        self.assertEqual('hw:numa_cpus.{num}',
                         reg.lookup('hw:numa_cpus.1').name)

    def test_add_keeps_the_first_definition(self):
        reg = registry.Registry(self.registry)
        clash = base.ExtraSpec('hw:cpu_policy', 'Someone else\'s.',
                               base.Value(str), source='plugin')
        self.assertIsNone(reg.lookup('hw:foo'))
        self.assertFalse(reg.add(clash))
        self.assertEqual('nova_mini', reg.lookup('hw:cpu_policy').source)
        self.assertTrue(reg.add(base.ExtraSpec('hw:foo', 'Foo.',
                                               base.Value(str))))
        self.assertEqual('hw:foo', reg.lookup('hw:foo').name)


class IndexTest(RegistryTestCase):
    """Patterned names are found through the prefix index: a key is only
    tried against the patterns under a literal prefix of it.
    """

    def test_in_tree_keys_try_at_most_one_pattern(self):
        spy = SpyRegistry(self.registry)
        patterns = sum(1 for spec in self.registry if spec.patterned)
        self.assertGreater(patterns, 10)
        for key in ('hw:numa_cpus.0', 'trait:STORAGE_DISK_SSD',
                    'resources2:VGPU', 'capabilities:cpu_info:features',
                    'aggregate_instance_extra_specs:ssd'):
            spec, tried = spy.tries(key)
            self.assertIsNotNone(spec, key)
            self.assertEqual([spec.regex.pattern], tried, key)
        for key in ('hw:cpu_polcy', 'foo:bar', 'hw:cpu_policy', 'zzz',
                    'quota:cpu_limit', 'os:secure_boot'):
            self.assertEqual([], spy.tries(key)[1], key)
        # Wrong parameters fail on the one pattern of their prefix.
        for key in ('hw:numa_cpus.x', 'trait:NOT_A_TRAIT'):
            spec, tried = spy.tries(key)
            self.assertIsNone(spec)
            self.assertEqual(1, len(tried), key)

    def test_many_patterns_are_not_scanned(self):
        definitions = [
            base.ExtraSpec('ns%d:item%d.{n}' % (i % 50, i), 'Generated.',
                           base.Value(int),
                           parameters=[base.Parameter('n', r'\d+', 'N.')])
            for i in range(1000)]
        spy = SpyRegistry(definitions)
        spec, tried = spy.tries('ns7:item507.3')
        self.assertEqual('ns7:item507.{n}', spec.name)
        self.assertEqual(1, len(tried))
        self.assertEqual([], spy.tries('ns7:item5070')[1])
        self.assertLessEqual(len(spy.tries('ns7:item50.x')[1]), 1)

    def test_longest_prefix_first(self):
        definitions = [
            base.ExtraSpec('x:{rest}', 'Anything.', base.Value(str),
                           parameters=[base.Parameter('rest', '.+', 'R.')]),
            base.ExtraSpec('x:count.{n}', 'A count.', base.Value(int),
                           parameters=[base.Parameter('n', r'\d+', 'N.')]),
        ]
        reg = registry.Registry(definitions)
        self.assertEqual('x:count.{n}', reg.lookup('x:count.1').name)
        self.assertEqual('x:{rest}', reg.lookup('x:count.y').name)

    def test_names_are_literal(self):
        # Nova does not escape '.', so its hw:numa_cpus.{num} takes
        # hw:numa_cpusX0; here the dot is a dot.
        self.assertIsNone(self.registry.lookup('hw:numa_cpusX0'))
        self.assertIsNone(self.registry.lookup('hw:numa_mem_1'))


class MessageTest(RegistryTestCase):

    def test_typo_suggestions(self):
        for typo, expected in (
                ('hw:cpu_polcy', 'hw:cpu_policy'),
                ('hw:cpu_pollicy', 'hw:cpu_policy'),
                ('hw:cpu_plicy', 'hw:cpu_policy'),
                ('hw:cpu_ploicy', 'hw:cpu_policy'),
                ('hw:numa_node', 'hw:numa_nodes'),
                ('quota:cpu_limits', 'quota:cpu_limit'),
                ('hw_rng:rate_byte', 'hw_rng:rate_bytes'),
                ('hw:mem_pagesize', 'hw:mem_page_size'),
                ('hw:numa_cpus.x', 'hw:numa_cpus.{num}'),
                ('capabilities:boot_mod', 'capabilities:boot_mode')):
            message = self.assertRejected(typo, 'x', typo, 'did you mean')
            self.assertIn("'%s'" % expected, message, typo)
            self.assertEqual(expected, self.registry.suggest(typo)[0], typo)

    def test_suggestions_stay_in_the_namespace(self):
        for name in self.registry.suggest('hw:cpu_polcy'):
            self.assertTrue(name.startswith('hw:'), name)
        self.assertLessEqual(len(self.registry.suggest('hw:cpu_polcy')), 3)

    def test_unknown_key_in_known_namespace_without_suggestion(self):
        message = self.assertRejected('hw:zzzzzzzzzzzzzzzzzz', '1')
        self.assertIn("'hw:zzzzzzzzzzzzzzzzzz' is not a known extra spec",
                      message)
        self.assertNotIn('did you mean', message)

    def test_unknown_namespace(self):
        message = self.assertRejected('foo:bar', '1', "'foo:bar'")
        self.assertIn("no extra spec uses the namespace 'foo'", message)
        self.assertNotIn('did you mean', message)
        self.assertFalse(self.registry.namespace_known('foo:bar'))
        self.assertTrue(self.registry.namespace_known('trait12:X'))
        self.assertTrue(self.registry.namespace_known('hw:x'))

    def test_unknown_key_without_namespace(self):
        message = self.assertRejected('cpu_arch', 'x86_64', "'cpu_arch'")
        self.assertNotIn('namespace', message)

    def test_all_errors_reported_together(self):
        verdict = _validate(self.registry, {
            'hw:cpu_policy': 'dedicatd',
            'hw:numa_nodes': '0',
            'hw:cpu_polcy': 'dedicated',
            'foo:bar': 'x',
            'hw:mem_page_size': 'large',
        })
        self.assertFalse(verdict)
        self.assertEqual(4, len(verdict.errors))
        joined = '\n'.join(verdict.errors)
        for key in ('hw:cpu_policy', 'hw:numa_nodes', 'hw:cpu_polcy',
                    'foo:bar'):
            self.assertIn("'%s'" % key, joined)
        self.assertNotIn('hw:mem_page_size', joined)
        self.assertEqual(['hw:cpu_polcy', 'foo:bar'], verdict.unknown)

    def test_value_errors_name_the_rule(self):
        self.assertRejected('hw:numa_nodes', '0', "'hw:numa_nodes'",
                            'an integer of at least 1',
                            'less than the minimum')
        self.assertRejected('hw:cpu_policy', 'x',
                            '(one of: dedicated, shared, mixed)')
        # A pattern is put in words, with an example.
        self.assertRejected(
            'hw:numa_cpus.0', '0--1',
            "Extra spec 'hw:numa_cpus.0': '0--1' is not valid; expected a "
            'set of guest CPU numbers, e.g. 0-2,5 (for example '
            'hw:numa_cpus.0=0-3).')
        self.assertRejected('hw:boot_menu', 'maybe', 'a boolean')


class ModesTest(RegistryTestCase):

    def test_permissive_notes_unknown_keys_but_rejects_bad_values(self):
        verdict = _validate(self.registry, {'foo:bar': 'x',
                                            'hw:cpu_polcy': 'y'},
                            registry.PERMISSIVE)
        self.assertTrue(verdict)
        self.assertEqual(['foo:bar', 'hw:cpu_polcy'], verdict.unknown)
        verdict = _validate(self.registry, {'hw:numa_nodes': '0'},
                            registry.PERMISSIVE)
        self.assertFalse(verdict)

    def test_disabled_checks_nothing(self):
        verdict = _validate(self.registry, {'foo:bar': 'x',
                                            'hw:numa_nodes': '0'},
                            registry.DISABLED)
        self.assertTrue(verdict)
        self.assertEqual([], verdict.unknown)

    def test_deprecated_keys_are_accepted_and_reported(self):
        verdict = _validate(self.registry, {'hide_hypervisor_id': 'true',
                                            'hw:hide_hypervisor_id': 'true'})
        self.assertTrue(verdict)
        self.assertEqual(['hide_hypervisor_id'],
                         [key for key, _spec in verdict.deprecated])
        spec = verdict.deprecated[0][1]
        self.assertEqual(base.DEPRECATED, spec.support.status)
        self.assertEqual('hw:hide_hypervisor_id', spec.support.replacement)
        self.assertIn('21.0.0', spec.support.since)
        # An invalid value of a deprecated key is still an error.
        self.assertRejected('hide_hypervisor_id', 'maybe', 'a boolean')


class ValueRulesTest(RegistryTestCase):

    def test_bool_accepts_every_strict_oslo_form(self):
        forms = set(strutils.TRUE_STRINGS + strutils.FALSE_STRINGS)
        self.assertGreaterEqual(len(forms), 12)
        for form in forms:
            for variant in (form, form.upper(), form.title(),
                            ' %s ' % form):
                self.assertAccepted('hw:boot_menu', variant)
                self.assertAccepted('hw_rng:allowed', variant)
        for bad in ('', 'maybe', '2', 'tru', 'enabled', 'nein', '1.0'):
            self.assertRejected('hw:boot_menu', bad, 'a boolean')

    def test_int_bounds(self):
        for value in ('0', '7', '15', '+3', ' 4 '):
            self.assertAccepted('hw:redirected_usb_ports', value)
        self.assertRejected('hw:redirected_usb_ports', '16',
                            'more than the maximum of 15',
                            'an integer from 0 to 15')
        self.assertRejected('hw:redirected_usb_ports', '-1',
                            'less than the minimum of 0')
        for value in ('1', '64'):
            self.assertAccepted('hw:numa_nodes', value)
        for value in ('0', '-3', 'x', '', '1.5', '0x2'):
            self.assertRejected('hw:numa_nodes', value)
        # No bounds: any integer.
        for value in ('-1', '0', '123456789'):
            self.assertAccepted('quota:cpu_quota', value)

    def test_enum(self):
        for value in ('dedicated', 'shared', 'mixed'):
            self.assertAccepted('hw:cpu_policy', value)
        for value in ('DEDICATED', ' shared', 'isolate', ''):
            self.assertRejected('hw:cpu_policy', value)

    def test_cpu_mask_pattern(self):
        for value in ('0', '0-3', '0-3,^2', '^0-1', '0,1,5-7', '1-2-3'):
            self.assertAccepted('hw:cpu_realtime_mask', value)
            self.assertAccepted('hw:numa_cpus.1', value)
            self.assertAccepted('hw:cpu_dedicated_mask', value)
        for value in ('', '-1', '0-', ',1', '0,,1', 'a', '0 - 3', '^'):
            self.assertRejected('hw:cpu_realtime_mask', value,
                                'is not valid; expected a set of guest CPU '
                                'numbers (for example '
                                'hw:cpu_realtime_mask=^0-1)')

    def test_other_patterns(self):
        for value in ('large', 'small', 'any', '2048', '2MB', '1GiB'):
            self.assertAccepted('hw:mem_page_size', value)
        for value in ('huge', '2 MB', '', 'LARGE'):
            self.assertRejected('hw:mem_page_size', value)
        for value in ('a:1', 'a1:2,gpu:1', 'a:1 , b:2'):
            self.assertAccepted('pci_passthrough:alias', value)
        for value in ('a', 'a:', 'a:1,', ':1', 'a:b'):
            self.assertRejected('pci_passthrough:alias', value)
        for value in ('SMALL', 'SMALL,LARGE', 'a,'):
            self.assertAccepted('hw:pmem', value)
        for value in ('', ',a', 'a,,b', 'a-b'):
            self.assertRejected('hw:pmem', value)

    def test_patterns_reject_long_invalid_values_quickly(self):
        # Nova's own patterns for these backtrack exponentially: values of
        # this length take it seconds to minutes.
        for key, value in (
                ('hw:cpu_realtime_mask', '0' + ',1-2' * 60 + 'x'),
                ('hw:numa_cpus.0', '0' + ',1-2' * 60 + 'x'),
                ('hw:cpu_dedicated_mask', '^0' + ',^1-2' * 50 + ','),
                ('hw:pmem', 'a' * 250 + '!'),
                ('pci_passthrough:alias', 'a:1' + ', b:2' * 60 + 'x')):
            start = time.monotonic()
            self.assertRejected(key, value)
            self.assertLess(time.monotonic() - start, 0.5, key)

    def test_free_strings(self):
        for value in ('', 'x', '>= 4', '<in> avx2'):
            self.assertAccepted('capabilities:vcpus', value)
            self.assertAccepted('aggregate_instance_extra_specs:ssd', value)


class NamespaceDefinitionsTest(RegistryTestCase):

    def test_traits_are_names_not_shapes(self):
        for trait in os_traits.get_traits():
            self.assertAccepted('trait:' + trait, 'required')
        for key in ('trait1:STORAGE_DISK_SSD', 'trait_gpu:COMPUTE_TRUSTED_'
                    'CERTS', 'trait:CUSTOM_MY_TRAIT_1'):
            self.assertAccepted(key, 'required')
            self.assertAccepted(key, 'forbidden')
            self.assertRejected(key, 'REQUIRED', 'required, forbidden')
            self.assertRejected(key, '', 'required, forbidden')
        for key in ('trait:HW_CPU_X86_NOPE', 'trait:CUSTOM_', 'trait:custom_x',
                    'trait:HW_CPU_X86_AVX2X', 'trait:' + 'STORAGE_DISK',
                    'trait:'):
            # The form is right, the name is not: say what a trait is.
            self.assertRejected(key, 'required', "'%s' is not a trait; a "
                                'trait is a standard trait of os-traits'
                                % key.split(':', 1)[1])
        self.assertRejected('trait!:HW_CPU_X86_AVX2', 'required',
                            'not a known extra spec')

    def test_misnamed_trait_names_both_problems(self):
        verdict = registry.validate(self.registry, {'trait:FOO': 'maybe'})
        self.assertEqual(
            ["Extra spec 'trait:FOO': 'FOO' is not a trait; a trait is a "
             'standard trait of os-traits, such as HW_CPU_X86_AVX2, or '
             'CUSTOM_ followed by capital letters A-Z, digits 0-9 and '
             'underscores, at most 255 characters in all; and its value '
             "'maybe' is not one of: required, forbidden."], verdict.errors)
        self.assertEqual(['trait:FOO'], verdict.unknown)
        # Permissive mode lets unknown names be, not invalid values.
        verdict = registry.validate(self.registry, {'trait:FOO': 'maybe'},
                                    registry.PERMISSIVE)
        self.assertEqual(["Extra spec 'trait:FOO': its value 'maybe' is not "
                          'one of: required, forbidden.'], verdict.errors)
        verdict = registry.validate(self.registry, {'trait:FOO': 'required'},
                                    registry.PERMISSIVE)
        self.assertEqual([], verdict.errors)
        # As in Placement's syntax (and Nova), 'traits' is group 's'.
        self.assertAccepted('traits:HW_CPU_X86_AVX2', 'required')

    def test_trait_definition_documents_a_readable_pattern(self):
        spec = self.registry.lookup('trait:CUSTOM_A')
        self.assertIsInstance(spec, traits.ClosedNameSpec)
        param = {p.name: p for p in spec.parameters}['trait']
        self.assertLess(len(param.pattern), 60)
        self.assertTrue(re.fullmatch(param.pattern, 'HW_CPU_X86_NOPE'))
        self.assertFalse(spec.matches('trait:HW_CPU_X86_NOPE'))

    def test_name_alternation(self):
        names = ['AB', 'ABC', 'ABD', 'B', 'X_Y']
        regex = re.compile(traits.name_alternation(names))
        for text in names:
            self.assertTrue(regex.fullmatch(text), text)
        for text in ('A', 'ABCD', 'AC', '', 'X', 'X_', 'BB'):
            self.assertFalse(regex.fullmatch(text), text)

    def test_resources(self):
        for cls in resources.STANDARD_CLASSES:
            self.assertAccepted('resources:' + cls, '1')
        for key in ('resources1:VGPU', 'resources_gpu:CUSTOM_GPU_A100',
                    'resources' + 'a' * 64 + ':VCPU'):
            self.assertAccepted(key, '0')
            self.assertAccepted(key, '8')
            # Nova accepts negative amounts and then ignores them.
            self.assertRejected(key, '-1', 'less than the minimum of 0')
        for key in ('resources:VCPUS', 'resources:CUSTOM_lower',
                    'resources:'):
            self.assertRejected(key, '1', "'%s' is not a resource class; "
                                % key.split(':', 1)[1])
        self.assertRejected('resources' + 'a' * 65 + ':VCPU', '1',
                            'not a known extra spec')

    def test_ironic_capabilities(self):
        # Nova 34 rejects all of these keys.
        for key, good, bad in (
                ('capabilities:boot_mode', ('bios', 'uefi'),
                 ('UEFI', 'legacy', '', 's== uefi')),
                ('capabilities:boot_option',
                 ('local', 'netboot', 'ramdisk', 'kickstart'),
                 ('Local', 'network', '')),
                ('capabilities:secure_boot', ('true', 'false'),
                 ('True', 'yes', '')),
                ('capabilities:trusted_boot', ('true', 'false'), ('on',)),
                ('capabilities:disk_label', ('msdos', 'gpt'), ('mbr', ''))):
            spec = self.registry.lookup(key)
            self.assertEqual(('ironic',), spec.drivers)
            for value in good:
                self.assertAccepted(key, value)
            for value in bad:
                self.assertRejected(key, value, '(one of: ')
        for key in ('capabilities:cpu_arch', 'capabilities:profile'):
            self.assertAccepted(key, 'x86_64')
            self.assertAccepted(key, '<or> a <or> b')

    def test_maxphysaddr(self):
        # Read by Nova's libvirt driver, rejected by Nova's validator.
        self.assertAccepted('hw:maxphysaddr_mode', 'emulate')
        self.assertAccepted('hw:maxphysaddr_mode', 'passthrough')
        self.assertRejected('hw:maxphysaddr_mode', 'host')
        self.assertAccepted('hw:maxphysaddr_bits', '42')
        self.assertRejected('hw:maxphysaddr_bits', '0')


class DefinitionsTest(RegistryTestCase):
    """Sanity of every in-tree definition."""

    def test_counts(self):
        by_namespace = {}
        for spec in self.registry:
            by_namespace[spec.namespace] = by_namespace.get(
                spec.namespace, 0) + 1
        self.assertEqual(
            {None: 2, 'accel': 1, 'aggregate_instance_extra_specs': 1,
             'capabilities': 53, 'hw': 39, 'hw_rng': 3, 'hw_video': 1,
             'os': 1, 'pci_passthrough': 1, 'quota': 31, 'resources': 1,
             'trait': 1, 'vmware': 2}, by_namespace)

    def test_every_module_contributes(self):
        sources = set()
        for name in registry.IN_TREE_MODULES:
            module = __import__(
                'nova_mini.api.validation.extra_specs.' + name,
                fromlist=['DEFINITIONS'])
            self.assertTrue(module.DEFINITIONS, name)
            for spec in module.DEFINITIONS:
                self.assertIs(spec, self.registry.lookup(spec.name) or next(
                    s for s in self.registry if s.name == spec.name))
                sources.add(spec.name)
        self.assertEqual(len(self.registry), len(sources))

    def test_documentation_fields(self):
        for spec in self.registry:
            self.assertIsInstance(spec, base.ExtraSpec)
            self.assertTrue(spec.description.strip(), spec.name)
            self.assertTrue(spec.description.rstrip().endswith('.'),
                            spec.name)
            self.assertIsInstance(spec.drivers, tuple)
            self.assertIsInstance(spec.requires, tuple)
            self.assertIsNotNone(spec.example, spec.name)
            for parameter in spec.parameters:
                self.assertTrue(parameter.description, spec.name)
            for required in spec.requires:
                key = required.split('=', 1)[0]
                self.assertTrue(
                    self.registry.lookup(key) or any(
                        s.name == key for s in self.registry), required)

    def test_examples_are_valid(self):
        for spec in self.registry:
            example = str(spec.example)
            if spec.patterned:
                key, _sep, value = example.partition('=')
            else:
                key, value = spec.name, example
            self.assertIs(spec, self.registry.lookup(key), example)
            self.assertAccepted(key, value)
