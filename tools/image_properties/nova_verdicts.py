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

"""Build the image property parity corpus and record Nova's verdict on each
pair.

Run it with the interpreter of a virtualenv where the real Nova is
installed (it imports nothing from nova_mini)::

    /tmp/novavenv/bin/python tools/image_properties/nova_verdicts.py \\
        nova_mini/tests/unit/api/data/image_properties_nova_parity.json

Every property Nova's ``ImageMetaProps`` reads (its fields, the NUMA
families ``hw_numa_cpus.N`` and ``hw_numa_mem.N``, ``trait:NAME``, the
legacy names) gets valid and invalid values for its type, plus aliases
Nova canonicalizes, typos of the names, unknown names and random CPU sets
and version predicates. Each pair goes the way an image goes in Nova's
API: Glance's JSON decoding of ``block_device_mapping`` and ``mappings``
(``nova.image.glance``), then ``ImageMeta.from_dict``. It is stored with
``nova``: ``accept`` or ``reject``, the exception class of a rejection,
and the typed fields Nova set (sets as sorted lists), so that nova_mini's
parity test runs without Nova installed.
"""

import argparse
import copy
import datetime
import json
import platform
import random
import sys
import warnings

warnings.simplefilter('ignore')

from importlib import metadata  # noqa: E402

from nova.image import glance  # noqa: E402
from nova import objects  # noqa: E402
from nova.objects import fields as nova_fields  # noqa: E402
from oslo_versionedobjects import fields as ovo_fields  # noqa: E402

objects.register_all()
from nova.objects import image_meta  # noqa: E402

SEED = 20261129

BOOL_VALUES = ['true', 'True', 'FALSE', 'yes', 'No', 'on', 'OFF', '1', '0',
               't', 'F', 'y', 'n', ' true ', 'maybe', '', '2', 'enabled']
INT_VALUES = ['0', '1', '4', '64', '-1', 'abc', '', '1.5', ' 3 ', '+2',
              '0x10', '1_000', '1e3', '99999999999999', '٣']
FREE_VALUES = ['x', '', 'Some Text', '0', '/dev/vda', 'true']
UUID_VALUES = ['2d2b1f8e-7a2b-4f4e-9d8f-0c7e3f1f9a10',
               '2D2B1F8E7A2B4F4E9D8F0C7E3F1F9A10', 'not-a-uuid', '']
PREDICATE_VALUES = ['>=1', '>= 1.0', '==2.6.1', '>=1,<2', '<1.0.0a1',
                    '!=3', ' >=1 ', '>1 ,<= 5', '1', '', '>=', '=>1', '>=a',
                    '>=1,', '>=1 <2', '~=1', '>=1.0.0.0.0', '>=v1',
                    '>=1.0-dev', '<=1.0.post1']
PREDICATE_ALPHABET = '<>=!12., a'
MAPPING_VALUES = ['', '[]', '[{"device_name": "vda", "boot_index": 0}]',
                  '[{"a": null}]', '[{"a": {"b": 1}}]', '[1]', '{}',
                  '{"a": "b"}', 'x', 'null', '"', '"x"', '""', '[[]]',
                  '[{"a": true}]']
MASK_VALUES = ['0', '0-3', '0-3,^2', '^0-1', '0,1,2', '0-1,4-5', '1-2-3',
               '^1', '^0,2', '0,^1-3', '', '-1', '0-', ',1', '0,,1', '0-3,',
               '^', 'a', '0 - 3', '0,^', '^^1', '1^2', '0-^1', ' 1 , 2 ',
               '3-1', '1-1']
MASK_ALPHABET = '0123-,^ '
TRAIT_VALUES = ['required', 'forbidden', 'REQUIRED', 'x', '']
FUZZ = 150

# Values worth trying beyond an enumeration's own (aliases Nova folds).
ENUM_EXTRAS = {
    'hw_architecture': ['AMD64', 'amd64', 'i386', 'I486', 'i586', 'x86_32',
                        'x86_32p', 'X86_64', 'arm64', 'x64', 'armv7'],
    'img_hv_type': ['xapi', 'XAPI', 'KVM', 'Ironic', 'esxi', 'hyper-v'],
    'hw_vm_mode': ['pv', 'hv', 'baremetal', 'HVM', 'Xen', 'pvh'],
    'os_type': ['Linux', 'WINDOWS', 'freebsd'],
    'hw_scsi_model': ['lsiLogicsas', 'LSILOGICSAS', 'paraVirtual',
                      'VIRTIO-SCSI', 'lsilogicsas2'],
    'hw_vif_model': ['VirtualE1000', 'virtuale1000e', 'VirtualPCNet32',
                     'VirtualSriovEthernetCard', 'VirtualVmxnet',
                     'VirtualVmxnet3', 'VIRTIO', 'virtual'],
}


def _field_kind(field):
    kind = field._type
    if isinstance(field, ovo_fields.FlexibleBooleanField):
        return 'bool', ()
    if isinstance(kind, ovo_fields.Enum):
        return 'enum', tuple(kind._valid_values)
    if isinstance(field, ovo_fields.IntegerField):
        return 'int', ()
    if isinstance(field, ovo_fields.UUIDField):
        return 'uuid', ()
    if isinstance(field, ovo_fields.VersionPredicateField):
        return 'predicate', ()
    if isinstance(field, ovo_fields.StringField):
        return 'str', ()
    if isinstance(field, ovo_fields.ListOfDictOfNullableStringsField):
        return 'mappings', ()
    raise SystemExit('No sample values for field %r; add some' % field)


def _fuzz(rng, alphabet, count, size=10):
    return [''.join(rng.choice(alphabet) for _ in range(rng.randint(1, size)))
            for _ in range(count)]


def values_for(name, kind, enum, rng, full=True):
    if kind == 'bool':
        return BOOL_VALUES if full else ['true', 'maybe']
    if kind == 'int':
        return INT_VALUES if full else ['1', 'x']
    if kind == 'uuid':
        return UUID_VALUES
    if kind == 'predicate':
        values = list(PREDICATE_VALUES)
        if full:
            values += _fuzz(rng, PREDICATE_ALPHABET, FUZZ)
        return values
    if kind == 'mappings':
        return MAPPING_VALUES
    if kind == 'str':
        return FREE_VALUES if full else ['x']
    values = list(enum)
    values += [enum[0].upper(), enum[0].title(), enum[0] + ' ',
               ' ' + enum[0], '', 'bogus']
    values += ENUM_EXTRAS.get(name, [])
    return values if full else [enum[0], 'bogus']


def typos(name, rng, count=3):
    out = set()
    for _ in range(count * 4):
        if len(out) >= count or len(name) < 4:
            break
        i = rng.randrange(1, len(name) - 1)
        op = rng.choice(('drop', 'swap', 'double', 'replace'))
        if op == 'drop':
            typo = name[:i] + name[i + 1:]
        elif op == 'swap':
            typo = name[:i] + name[i + 1] + name[i] + name[i + 2:]
        elif op == 'double':
            typo = name[:i] + name[i] + name[i:]
        else:
            typo = name[:i] + rng.choice('aeiou_') + name[i + 1:]
        if typo != name:
            out.add(typo)
    return sorted(out)


EXTRA_PAIRS = [
    # Names Nova's object has but never reads from an image.
    ('hw_numa_cpus', '0-1'), ('hw_numa_mem', '1024'),
    ('traits_required', 'CUSTOM_X'),
    # NUMA families: gaps, leading zeros, odd separators.
    ('hw_numa_cpus.1', 'x'), ('hw_numa_cpus.1', '0-1'),
    ('hw_numa_mem.1', 'x'), ('hw_numa_mem.1', '1024'),
    ('hw_numa_cpus.00', 'x'), ('hw_numa_mem.01', 'x'),
    ('hw_numa_cpus.127', 'x'), ('hw_numa_cpus.128', 'x'),
    ('hw_numa_cpus.', 'x'), ('hw_numa_cpus.x', 'x'),
    ('hw_numa_cpus_0', 'x'), ('hw_numa_mem:0', 'x'),
    # vmware_adaptertype (legacy disk bus and SCSI model together).
    *[('vmware_adaptertype', v) for v in
      ('ide', 'IDE', 'lsiLogic', 'lsiLogicsas', 'paraVirtual', 'busLogic',
       'virtio-scsi', '', 'bogus', 'sata')],
    # Extra spec style names and other unknown ones (Nova keeps them raw).
    ('hw:cpu_policy', 'x'), ('hw_cpu_policy ', 'x'), ('HW_CPU_POLICY', 'x'),
    ('hw_foo', 'bar'), ('img_foo', 'x'), ('os_foo', 'x'), ('foo', 'x'),
    ('cpu_arch', 'x'), ('hypervisor_type ', 'x'), ('', 'x'),
    ('trait:', 'required'), ('trait', 'required'), ('traits:X', 'required'),
    ('hw_firmware', 'uefi'), ('hw_secure_boot', 'required'),
    ('os_secure_boot_', 'x'), ('hw_mem_encryption_mode', 'x'),
    ('kernel_id', 'x'), ('ramdisk_id', 'x'), ('instance_uuid', 'x'),
    ('image_type', 'snapshot'), ('hw_vif_multiqueue', 'x'),
]


def nova_verdict(key, value):
    """(verdict, exception class name, typed fields) of one property."""
    try:
        # A value Glance's layer cannot decode fails before the API's
        # 400 handling (Nova answers 500): a refusal either way.
        image = glance._convert_from_string({'properties': {key: value}})
        meta = image_meta.ImageMeta.from_dict(copy.deepcopy(image))
    except Exception as exc:
        return 'reject', type(exc).__name__, None
    props = meta.properties
    typed = {}
    for name in props.fields:
        if props.obj_attr_is_set(name):
            typed[name] = _jsonable(getattr(props, name))
    return 'accept', None, typed


def _jsonable(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, datetime.datetime):
        return value.isoformat()
    return value


def build(rng):
    pairs = []

    def add(key, value, kind):
        pairs.append((key, value, kind))

    props = image_meta.ImageMetaProps
    legacy = {v: [] for v in props._legacy_property_map.values()}
    for old, new in props._legacy_property_map.items():
        legacy[new].append(old)
    for name, field in sorted(props.fields.items()):
        if name == 'traits_required':
            continue
        if name in ('hw_numa_cpus', 'hw_numa_mem'):
            for index in ('0', '3'):
                key = '%s.%s' % (name, index)
                if name == 'hw_numa_mem':
                    values = INT_VALUES
                elif index == '0':
                    values = MASK_VALUES + _fuzz(rng, MASK_ALPHABET, FUZZ)
                else:
                    values = MASK_VALUES
                for value in values:
                    add(key, value, 'patterned')
            continue
        kind, enum = _field_kind(field)
        for value in values_for(name, kind, enum, rng):
            add(name, value, 'exact')
        for old in legacy.get(name, ()):
            if old in ('block_device_mapping', 'mappings'):
                values = MAPPING_VALUES
            else:
                values = values_for(name, kind, enum, rng)
            for value in values:
                add(old, value, 'legacy')
        for typo in typos(name, rng):
            add(typo, 'x', 'typo')
    for trait in ('CUSTOM_GPU', 'HW_CPU_X86_AVX2', 'custom_lower', 'X'):
        for value in TRAIT_VALUES:
            add('trait:' + trait, value, 'patterned')
    for key, value in EXTRA_PAIRS:
        add(key, value, 'extra')
    seen = set()
    unique = []
    for key, value, kind in pairs:
        if (key, value) not in seen:
            seen.add((key, value))
            unique.append((key, value, kind))
    return unique


CASE_FIELDS = ['key', 'value', 'kind', 'nova', 'nova_error', 'nova_fields']


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('output', help='JSON file to write')
    args = parser.parse_args()
    rng = random.Random(SEED)
    cases = []
    for key, value, kind in build(rng):
        verdict, error, typed = nova_verdict(key, value)
        cases.append([key, value, kind, verdict, error, typed])
    document = {
        'about': ('Image property (key, value) pairs with the verdict of '
                  'Nova\'s ImageMeta.from_dict() after Glance\'s decoding. '
                  'Generated by tools/image_properties/nova_verdicts.py; '
                  'do not edit.'),
        'case_fields': CASE_FIELDS,
        'generated_with': {
            'nova': metadata.version('nova'),
            'oslo.versionedobjects': metadata.version(
                'oslo.versionedobjects'),
            'oslo.utils': metadata.version('oslo.utils'),
            'python': platform.python_version(),
            'seed': SEED,
        },
        'nova_fields': sorted(image_meta.ImageMetaProps.fields),
        'nova_legacy_names': dict(sorted(
            image_meta.ImageMetaProps._legacy_property_map.items())),
        'nova_enums': {
            name: list(field._type._valid_values)
            for name, field in sorted(image_meta.ImageMetaProps.fields.items())
            if isinstance(field._type, ovo_fields.Enum)},
        'nova_object_version': image_meta.ImageMetaProps.VERSION,
    }
    assert nova_fields  # the module registers Nova's field types
    text = json.dumps(document, indent=1, sort_keys=True)
    lines = ',\n'.join(json.dumps(case, ensure_ascii=False, sort_keys=True)
                       for case in cases)
    with open(args.output, 'w') as out:
        out.write(text[:-2] + ',\n "cases": [\n' + lines + '\n]\n}\n')
    accepted = sum(c[3] == 'accept' for c in cases)
    print('%d pairs (%d accepted, %d rejected by Nova)'
          % (len(cases), accepted, len(cases) - accepted), file=sys.stderr)


if __name__ == '__main__':
    main()
