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

"""Glance metadef generation, checked against the schema Glance itself
validates metadef namespaces with (data/glance_metadef_namespace_schema.json,
dumped from Glance by data/dump_glance_schema.py).
"""

import json
import os
import re

import jsonschema
import pytest

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import registry
from nova_mini.cmd import manage_metadefs as metadefs
from nova_mini.tests.unit.extra_specs_tools import sample_definitions

SCHEMA_PATH = os.path.join(os.path.dirname(__file__), 'data',
                           'glance_metadef_namespace_schema.json')


@pytest.fixture(scope='module')
def glance_schema():
    with open(SCHEMA_PATH) as schema_file:
        schema = json.load(schema_file)
    jsonschema.validators.validator_for(schema).check_schema(schema)
    return schema


def assert_glance_accepts(document, schema):
    # What Glance's API does (jsonschema.validate), plus the regex format
    # check it leaves out, plus the property name length its database has.
    jsonschema.validate(document, schema,
                        format_checker=jsonschema.FormatChecker())
    for name in document['properties']:
        assert 0 < len(name) <= 80, name


@pytest.fixture
def sample():
    built = metadefs.build_namespaces(
        registry.Registry(sample_definitions.DEFINITIONS))
    return {m.extra_spec_namespace: m for m in built}


def test_schema_is_glances():
    with open(SCHEMA_PATH) as schema_file:
        schema = json.load(schema_file)
    assert re.match(r'Extracted from glance \d+\.\d+\.\d+', schema['$comment'])
    assert schema['required'] == ['namespace']
    assert schema['additionalProperties'] is False


def test_one_document_per_namespace(sample, glance_schema):
    assert sorted(sample, key=str) == sorted(
        [None, 'hw', 'quota', 'rack', 'resources'], key=str)
    for metadef in sample.values():
        assert_glance_accepts(metadef.document, glance_schema)
    assert sample['hw'].filename == 'nova-mini-hw.json'
    assert sample[None].filename == 'nova-mini.json'


def test_namespace_fields(sample):
    hw = sample['hw'].document
    assert hw['namespace'] == 'OS::Compute::NovaMini::hw'
    assert hw['visibility'] == 'public'
    assert hw['protected'] is True
    assert hw['resource_type_associations'] == [
        {'name': 'OS::Nova::Flavor', 'prefix': 'hw:'}]
    assert sample['quota'].document['resource_type_associations'] == [
        {'name': 'OS::Nova::Flavor', 'prefix': 'quota:'}]
    # Extra specs without a namespace: no prefix at all.
    unnamespaced = sample[None].document
    assert unnamespaced['namespace'] == 'OS::Compute::NovaMini'
    assert unnamespaced['resource_type_associations'] == [
        {'name': 'OS::Nova::Flavor'}]
    assert list(unnamespaced['properties']) == ['group_policy']


def test_properties(sample):
    props = sample['hw'].properties
    assert sorted(props) == ['awkward', 'cpu_policy', 'numa_nodes',
                             'old_policy']
    assert props['cpu_policy']['type'] == 'string'
    assert props['cpu_policy']['enum'] == ['shared', 'dedicated', 'mixed']
    assert props['cpu_policy']['title'] == 'hw:cpu_policy'
    # Markup gone, value description and drivers kept.
    assert props['cpu_policy']['description'] == (
        'How guest CPUs map to host CPUs, see hw:numa_cpus.{id}. The '
        'policy, shared by default. Virt drivers: libvirt, ironic.')
    assert props['numa_nodes'] == {
        'title': 'hw:numa_nodes', 'type': 'integer', 'minimum': 1,
        'maximum': 8, 'description': 'Number of guest NUMA nodes. '
                                     'Requires: hw:cpu_policy=dedicated.'}
    assert sample['quota'].properties['disk_read_bytes_sec'] == {
        'title': 'quota:disk_read_bytes_sec', 'type': 'integer',
        'minimum': 0, 'description': 'Read bandwidth limit.'}
    old = props['old_policy']
    assert old['type'] == 'boolean'
    assert old['title'] == 'hw:old_policy (deprecated)'
    assert old['description'].startswith(
        'Deprecated since 2.0; use hw:cpu_policy instead.')
    assert 'experimental' in props['awkward']['description'].lower()
    rack = sample['rack'].properties['affinity']
    assert 'Defined by the sample_scheduler plugin.' in rack['description']


def test_patterns_are_anchored_and_portable(sample):
    pattern = sample['rack'].properties['affinity']['pattern']
    # Python's named group syntax is not ECMA 262's: plain groups instead.
    assert pattern == r'^(?:([a-z])-\d+)$'
    assert metadefs.json_schema_pattern(
        r'(?P<a>x)[(?P<]\((?:y)(?P<b>z)(?P=b)') == (
        r'^(?:(x)[(?P<]\((?:y)(z)(?:\2))$')
    assert metadefs.json_schema_pattern(r'[^]a(?P<c>]') == (
        r'^(?:[^\]a(?P<c>])$')
    awkward = sample['hw'].properties['awkward']['pattern']
    assert re.search(awkward, '`***`')
    assert not re.search(awkward, 'x`***`')
    assert not re.search(awkward, '`***`x')


def test_patterned_names_are_left_out_and_listed(sample):
    hw = sample['hw']
    assert [(s.name, s.reason) for s in hw.skipped] == [
        ('hw:numa_cpus.{id}', 'patterned name')]
    assert 'hw:numa_cpus.{id}' in hw.document['description']
    assert not any('{' in name for name in hw.properties)
    # A namespace with nothing but patterned names is still accounted for.
    resources = sample['resources']
    assert resources.properties == {}
    assert 'resources{group}:{resource_class}' in (
        resources.document['description'])


def test_glance_limits(glance_schema):
    long_namespace = 'x' * 70
    specs = [base.ExtraSpec('%s:p%d.{n}' % ('hw', i), 'Patterned.',
                            base.Value(int),
                            parameters=[base.Parameter('n', r'\d+', 'N.')])
             for i in range(60)]
    specs.append(base.ExtraSpec('hw:' + 'k' * 81, 'Too long.',
                                base.Value(int)))
    specs.append(base.ExtraSpec(long_namespace + ':key', 'Long namespace.',
                                base.Value(int)))
    specs.append(base.ExtraSpec(long_namespace + 'y:key', 'Long namespace.',
                                base.Value(int)))
    built = metadefs.build_namespaces(registry.Registry(specs))
    names = [m.namespace for m in built]
    assert len(set(names)) == 3
    for metadef in built:
        assert_glance_accepts(metadef.document, glance_schema)
        assert len(metadef.namespace) <= 80
    hw = next(m for m in built if m.extra_spec_namespace == 'hw')
    assert len(hw.document['description']) <= 500
    assert re.search(r'and \d+ more', hw.document['description'])
    assert ('hw:' + 'k' * 81) in [s.name for s in hw.skipped]


def test_write(tmp_path, glance_schema):
    written = metadefs.write(
        registry.Registry(sample_definitions.DEFINITIONS),
        str(tmp_path / 'out'))
    assert sorted(os.listdir(tmp_path / 'out')) == sorted(
        m.filename for _path, m in written)
    for path, metadef in written:
        with open(path) as document:
            assert json.load(document) == metadef.document


def test_plain_text():
    assert metadefs.plain_text(
        'A **bold** and *light* ``x`` with :extra-spec:`hw:a` and\n'
        '`b`_ or 2 * 3 and a*b') == (
        'A bold and light x with hw:a and b or 2 * 3 and a*b')


def test_in_tree_definitions(glance_schema):
    """Every in-tree namespace makes a document Glance accepts, whose
    properties are exactly the registered non-patterned keys.
    """
    reg = registry.build(include_plugins=False)
    built = metadefs.build_namespaces(reg)
    assert {m.extra_spec_namespace for m in built} == {
        s.namespace for s in reg}
    covered = set()
    for metadef in built:
        assert_glance_accepts(metadef.document, glance_schema)
        prefix = metadef.document['resource_type_associations'][0].get(
            'prefix', '')
        for name, prop in metadef.properties.items():
            spec = reg.lookup(prefix + name)
            assert spec is not None and spec.name == prefix + name
            for choice in prop.get('enum', ()):
                spec.check(choice)
            covered.add(spec.name)
        covered.update(s.name for s in metadef.skipped)
    assert covered == {s.name for s in reg}
