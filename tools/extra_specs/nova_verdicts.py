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

"""Build the extra spec parity corpus and record Nova's verdict on each pair.

Run it ONCE, with the interpreter of a virtualenv where the real Nova is
installed (it imports nothing from nova_mini)::

    /tmp/novavenv/bin/python tools/extra_specs/nova_verdicts.py \\
        nova_mini/tests/unit/api/data/extra_specs_nova_parity.json

The corpus instantiates every validator Nova knows (patterned names with
sample parameters) with valid and invalid values, and adds typos, unknown
namespaces, odd keys, keys Nova gets wrong and short random values for the
regex-checked specs. Each pair is stored with ``nova``: ``accept`` or
``reject`` as given by ``nova.api.validation.extra_specs.validators
.validate`` (what the API applies at microversion 2.86), so that
nova_mini's parity test runs without Nova installed.

Random values are kept short: several of Nova's value patterns backtrack
exponentially on long invalid values.
"""

import argparse
import json
import platform
import random
import re
import sys
import warnings

warnings.simplefilter('ignore')

from importlib import metadata  # noqa: E402

from nova.api.validation.extra_specs import validators  # noqa: E402
from nova import exception  # noqa: E402

SEED = 20240501

# Sample parameters per (parameter name, pattern): valid ones, then invalid.
PARAMETER_SAMPLES = {
    'group': (['', '1', '2', '_gpu', 'a-b_9', 'x' * 64],
              ['x' * 65, '!', ' 1']),
    'num': (['0', '1', '12'], ['', 'x', '-1', '0.5']),
    'resource': (['FOO', 'A1_B', 'X'], ['', 'foo', 'Foo-1']),
    'trait': (['FOO', 'A1_B', 'X'], ['', 'foo', 'Foo-1']),
    'filter': (['', ':arch', ':topology:cores', ':a1_b'],
               [':', '::x', ':a-b', 'x', ':a:']),
    'key': (['ssd', 'a:b', 'x y', 'K1'], ['']),
}

BOOL_VALUES = ['true', 'True', 'FALSE', 'yes', 'No', 'on', 'OFF', '1', '0',
               't', 'F', 'y', 'n', ' true ', 'maybe', '', '2', 'enabled',
               'tru', '10']
FREE_VALUES = ['x', '', '>= 5', 's== 2.1.0', '<in> gcc', '<or> a <or> b',
               'true']
INT_VALUES = ['0', '1', '4', '15', '16', '1024', '-1', '-1024', 'abc', '',
              '1.5', ' 3 ', '+2', '0x10', '1_000', '1e3', '99999999999999']

# Hand-picked values per Nova value pattern (valid and invalid), completed
# with random ones from FUZZ_ALPHABETS.
PATTERN_VALUES = {
    'mask': ['0', '0-3', '0-3,^2', '^0-1', '0,1,2', '0-1,4-5', '1-2-3',
             '^1', '^0,2', '0,^1-3', '', '-1', '0-', ',1', '0,,1', '0-3,',
             '^', 'a', '0 - 3', '0,^', '^^1', '1^2', '0-^1'],
    'pmem': ['SMALL', 'SMALL,LARGE', 'a_b,c', 'x,', 'a,a,a', '', ',', ',a',
             'a,,b', 'a-b', 'a b', 'SMALL,,'],
    'alias': ['a:1', 'a1:2,gpu:1', 'a:1 , b:2', 'x y:3', 'a:1,b:2,c:3', '',
              'a', 'a:', ':1', 'a:b', 'a:1,', 'a:1,b', 'a:1:2', 'a:1;b:2',
              ',a:1', 'a:1, ,b:2'],
    'page': ['large', 'small', 'any', '4', '2048', '2MB', '1GiB', '2Mb',
             '1Gbit', '4kB', '4KiB', '2M', '', 'LARGE', 'huge', '2 MB',
             '1.5G', '2MiBB', 'Ki', '0'],
}
FUZZ_ALPHABETS = {
    'mask': '0123-,^ ',
    'pmem': 'ab_1,!-',
    'alias': 'ab1:, ',
    'page': 'ktKMGiBb12 ',
}
FUZZ_PER_PATTERN = 150


def _pattern_kind(pattern):
    if 'large|small' in pattern:
        return 'page'
    if '[a-zA-Z0-9_]+(,)?' in pattern:
        return 'pmem'
    if '[^:]+' in pattern:
        return 'alias'
    if r'\d+((-\d+)?' in pattern:
        return 'mask'
    raise SystemExit('No sample values for Nova pattern %r; add some'
                     % pattern)


def nova_lookup(name):
    """The Nova validator that validate() would use for ``name``."""
    if name in validators.VALIDATORS:
        return validators.VALIDATORS[name]
    for validator in validators.VALIDATORS.values():
        if re.fullmatch(validator.name_regex, name):
            return validator
    return None


def nova_namespace_known(name):
    if ':' not in name:
        return False
    head = name.split(':', 1)[0]
    return any(re.fullmatch(ns, head) for ns in validators.NAMESPACES)


def nova_verdict(name, value):
    try:
        validators.validate(name, value)
    except exception.ValidationError:
        return 'reject'
    return 'accept'


# What each case (a JSON array) holds. 'nova_definition' is an index into
# 'nova_validators' (the validator Nova matched the key with) or null.
CASE_FIELDS = ['key', 'value', 'kind', 'nova', 'nova_definition',
               'nova_namespace_known']


def instantiate(validator, rng, trait_sample):
    """(key, parameters valid?) pairs for a (possibly patterned) name."""
    if not validator.parameters:
        return [(validator.name, True)]
    choices = []
    for param in validator.parameters:
        valid, invalid = PARAMETER_SAMPLES[param['name']]
        choices.append((param['name'], valid, invalid))
    keys = []
    # One key per valid sample of each parameter, the others at their
    # first sample; then one key per invalid sample.
    for index, (pname, valid, invalid) in enumerate(choices):
        samples = valid if trait_sample else valid[:1]
        for sample in samples:
            values = {n: v[0] for n, v, _ in choices}
            values[pname] = sample
            keys.append((_fill(validator.name, values), True))
        for sample in (invalid if trait_sample else []):
            values = {n: v[0] for n, v, _ in choices}
            values[pname] = sample
            keys.append((_fill(validator.name, values), False))
    seen = set()
    return [k for k in keys if not (k[0] in seen or seen.add(k[0]))]


def _fill(name, values):
    for pname, sample in values.items():
        name = name.replace('{%s}' % pname, sample)
    return name


def values_for(validator, rng, full):
    rule = validator.value
    kind = rule['type']
    if kind is bool:
        return BOOL_VALUES if full else ['true', 'maybe']
    if kind is int:
        values = list(INT_VALUES) if full else ['1', '-1', 'x']
        for bound in ('min', 'max'):
            if bound in rule:
                values += [str(rule[bound] - 1), str(rule[bound]),
                           str(rule[bound] + 1)]
        return values
    if 'pattern' in rule:
        kind = _pattern_kind(rule['pattern'])
        values = list(PATTERN_VALUES[kind])
        if full:
            alphabet = FUZZ_ALPHABETS[kind]
            for _ in range(FUZZ_PER_PATTERN):
                size = rng.randint(1, 10)
                values.append(''.join(rng.choice(alphabet)
                                      for _ in range(size)))
        return values
    if 'enum' in rule:
        values = [str(v) for v in rule['enum']]
        if full:
            values += [values[0].upper(), values[0] + ' ', ' ' + values[0],
                       '', 'bogus']
        else:
            values += ['bogus']
        return values
    return FREE_VALUES if full else ['x', '']


def typos(name, rng, count=3):
    out = set()
    prefix, _, rest = name.partition(':')
    for _ in range(count * 4):
        if len(out) >= count or len(rest) < 3:
            break
        i = rng.randrange(1, len(rest) - 1)
        op = rng.choice(('drop', 'swap', 'double', 'replace'))
        if op == 'drop':
            typo = rest[:i] + rest[i + 1:]
        elif op == 'swap':
            typo = rest[:i] + rest[i + 1] + rest[i] + rest[i + 2:]
        elif op == 'double':
            typo = rest[:i] + rest[i] + rest[i:]
        else:
            typo = rest[:i] + rng.choice('aeiou_') + rest[i + 1:]
        if typo != rest:
            out.add(prefix + ':' + typo)
    return sorted(out)


# Keys and values beyond Nova's own validators: things Nova gets wrong
# (nova_mini documents the difference), unknown namespaces, odd keys.
EXTRA_PAIRS = [
    # Ironic node capabilities Nova rejects as unknown.
    *[('capabilities:boot_mode', v) for v in
      ('bios', 'uefi', 'UEFI', 'legacy', '', 's== uefi')],
    *[('capabilities:boot_option', v) for v in
      ('local', 'netboot', 'ramdisk', 'kickstart', 'Local', 'network', '')],
    *[('capabilities:secure_boot', v) for v in
      ('true', 'false', 'True', 'yes', '')],
    *[('capabilities:trusted_boot', v) for v in ('true', 'false', 'on')],
    *[('capabilities:disk_label', v) for v in ('msdos', 'gpt', 'mbr', '')],
    *[('capabilities:cpu_arch', v) for v in
      ('x86_64', 'aarch64', 's== x86_64', '<or> x86_64 <or> aarch64', '')],
    *[('capabilities:profile', v) for v in ('compute', 'control', '')],
    ('capabilities:stats:boot_mode', 'uefi'),
    ('capabilities:node_type', 'gpu'),
    ('capabilities:bootmode', 'uefi'),
    # Read by Nova's libvirt driver and scheduler, rejected by its
    # validator.
    *[('hw:maxphysaddr_mode', v) for v in
      ('emulate', 'passthrough', 'host', '')],
    *[('hw:maxphysaddr_bits', v) for v in ('42', '1', '0', '-1', 'x')],
    # Negative resource amounts: accepted by Nova's validator, dropped by
    # its scheduler.
    *[(k, v) for k in ('resources:VCPU', 'resources1:CUSTOM_FOO',
                       'resources:DISK_GB', 'resources_gpu:VGPU')
      for v in ('-1', '-100')],
    # Unescaped '.' in Nova's name regexes.
    ('hw:numa_cpusX0', '0-1'), ('hw:numa_mem_1', '1024'),
    ('hw:numa_cpus:0', '0'), ('hw:numa_mem.', '1024'),
    ('hw:numa_cpus.', '0'), ('hw:numa_cpus.x', '0'),
    # Unknown keys in known namespaces.
    ('hw:cpu_polcy', 'dedicated'), ('hw:foo', 'bar'), ('hw:', 'x'),
    ('hw:cpu_policy ', 'dedicated'), ('hw:CPU_POLICY', 'dedicated'),
    ('quota:cpu_limits', '1'), ('os:secure_boots', 'required'),
    ('trait:HW_CPU_X86_FOO', 'required'), ('trait:hw_cpu_x86_avx', 'required'),
    ('trait:', 'required'), ('trait:CUSTOM_', 'required'),
    ('trait1:CUSTOM_foo', 'required'), ('traits:HW_CPU_X86_AVX', 'required'),
    ('resources:FOO', '1'), ('resources:CUSTOM_foo', '1'),
    ('resources:', '1'), ('resources:vcpu', '1'), ('resources:VCPUS', '1'),
    ('capabilities:', 'x'), ('capabilities:cpu_info:', 'x'),
    ('capabilities:vcpus:x', '1'), ('aggregate_instance_extra_specs:', 'x'),
    ('accel:bitstream_id', 'x'), ('accel:', 'x'),
    ('pci_passthrough:aliases', 'a:1'), ('vmware:hw_versions', 'vmx-13'),
    ('hw_rng:rate', '1'), ('hw_video:ram_max', '1'),
    ('hw:hide_hypervisor', 'true'),
    # Unknown namespaces and un-namespaced keys (Nova lets them all pass).
    ('foo:bar', '1'), ('custom:thing', 'x'), ('cpu_arch', 'x86_64'),
    ('hw.cpu_policy', 'dedicated'), ('HW:cpu_policy', 'dedicated'),
    ('hw_rgn:allowed', 'true'), ('powervm:proc_units', '0.5'),
    ('hyperv:whatever', 'x'), ('my_filter:key', 'v'), ('vcpus', '>= 4'),
    ('ssd', 'true'), ('group_policies', 'none'), ('', 'x'), (':', 'x'),
    (':cpu_policy', 'dedicated'), ('hide_hypervisor', 'true'),
    ('trait', 'required'), ('resources', '1'), ('a:b:c', 'd'),
    ('vmware', 'x'), ('capabilities', 'x'),
]


def build(rng):
    pairs = []

    def add(key, value, kind):
        pairs.append((key, value, kind))

    for index, validator in enumerate(validators.VALIDATORS.values()):
        is_trait = validator.name.startswith('trait{group}:') and (
            'CUSTOM_' not in validator.name)
        # Every trait gets one key; one in ten gets the full treatment.
        full = not is_trait or index % 10 == 0
        keys = instantiate(validator, rng, full)
        for key, key_valid in keys:
            kind = 'patterned' if validator.parameters else 'exact'
            if not key_valid:
                add(key, values_for(validator, rng, False)[0],
                    'bad-parameter')
                continue
            if not full:
                for value in ('required', 'forbidden', 'REQUIRED'):
                    add(key, value, kind)
                continue
            # All values with the first key, a few with the other ones.
            for value in values_for(validator, rng, key == keys[0][0]):
                add(key, value, kind)
        if ':' in validator.name and not validator.parameters:
            for typo in typos(validator.name, rng):
                add(typo, 'x', 'typo')
    for key, value in EXTRA_PAIRS:
        add(key, value, 'extra')
    seen = set()
    unique = []
    for key, value, kind in pairs:
        if (key, value) not in seen:
            seen.add((key, value))
            unique.append((key, value, kind))
    return unique


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('output', help='JSON file to write')
    args = parser.parse_args()
    rng = random.Random(SEED)
    names = list(validators.VALIDATORS)
    cases = []
    for key, value, kind in build(rng):
        validator = nova_lookup(key)
        cases.append([key, value, kind, nova_verdict(key, value),
                      names.index(validator.name) if validator else None,
                      nova_namespace_known(key)])
    document = {
        'about': ('Extra spec (key, value) pairs with the verdict of Nova\'s '
                  'validators.validate(). Generated by '
                  'tools/extra_specs/nova_verdicts.py; do not edit.'),
        'case_fields': CASE_FIELDS,
        'generated_with': {
            'nova': metadata.version('nova'),
            'os-traits': metadata.version('os-traits'),
            'os-resource-classes': metadata.version('os-resource-classes'),
            'python': platform.python_version(),
            'seed': SEED,
        },
        'nova_validators': [
            {'name': v.name, 'deprecated': bool(v.deprecated),
             'type': v.value['type'].__name__}
            for v in validators.VALIDATORS.values()],
    }
    # One case per line keeps the file small and its diffs readable.
    text = json.dumps(document, indent=1, sort_keys=True)
    lines = ',\n'.join(json.dumps(case) for case in cases)
    with open(args.output, 'w') as out:
        out.write(text[:-2] + ',\n "cases": [\n' + lines + '\n]\n}\n')
    cases = [dict(zip(CASE_FIELDS, case)) for case in cases]
    accepted = sum(c['nova'] == 'accept' for c in cases)
    print('%d pairs (%d accepted, %d rejected by Nova), %d Nova validators'
          % (len(cases), accepted, len(cases) - accepted,
             len(document['nova_validators'])), file=sys.stderr)


if __name__ == '__main__':
    main()
