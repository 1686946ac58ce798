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

"""Glance metadefs of the image properties, checked against the schema
Glance validates metadef namespaces with, and the command writing them."""

import json
import os

from nova_mini.api.validation.image_properties import registry
from nova_mini.cmd import manage_metadefs as metadefs
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.unit.extra_specs_tools import test_metadefs as tm
# The fixture: Glance's metadef namespace schema.
from nova_mini.tests.unit.extra_specs_tools.test_metadefs import \
    glance_schema  # noqa: F401


def _built():
    reg = registry.build(include_plugins=False)
    return reg, {m.extra_spec_namespace: m
                 for m in metadefs.build_image_namespaces(reg)}


def test_every_image_property_is_a_glance_property_or_listed(
        glance_schema):  # noqa: F811
    schema = glance_schema
    reg, built = _built()
    assert sorted(built, key=str) == sorted(
        [None, 'hw', 'img', 'os', 'trait'], key=str)
    covered = set()
    for namespace, metadef in built.items():
        tm.assert_glance_accepts(metadef.document, schema)
        associations = metadef.document['resource_type_associations']
        prefixes = {a.get('prefix', '') for a in associations}
        assert len(prefixes) == 1
        prefix = prefixes.pop()
        for name, schema_prop in metadef.properties.items():
            prop = reg.lookup(prefix + name)
            assert prop is not None and prop.name == prefix + name
            for choice in schema_prop.get('enum', ()):
                prop.check(choice)
            covered.add(prop.name)
        for skipped in metadef.skipped:
            assert skipped.name in metadef.document['description']
            covered.add(skipped.name)
    assert covered == {p.name for p in reg}


def test_glance_conventions_for_image_metadata():
    _reg, built = _built()
    hw = built['hw'].document
    assert hw['namespace'] == 'OS::Compute::NovaMini::Image::hw'
    assert hw['resource_type_associations'] == [
        {'name': 'OS::Glance::Image', 'prefix': 'hw_'},
        {'name': 'OS::Cinder::Volume', 'prefix': 'hw_',
         'properties_target': 'image'}]
    assert built['trait'].document['resource_type_associations'][0] == {
        'name': 'OS::Glance::Image', 'prefix': 'trait:'}
    assert built['trait'].properties == {}
    # Legacy names: no prefix; deprecated where their field is.
    legacy = built[None].document
    assert legacy['namespace'] == 'OS::Compute::NovaMini::Image'
    assert all('prefix' not in a
               for a in legacy['resource_type_associations'])
    assert legacy['properties']['architecture']['title'] == 'architecture'
    assert legacy['properties']['xenapi_use_agent']['title'] == (
        'xenapi_use_agent (deprecated)')
    policy = hw['properties']['cpu_policy']
    assert policy['enum'] == ['dedicated', 'shared', 'mixed']
    assert policy['description'].endswith(
        'Flavor extra spec: hw:cpu_policy.')
    assert hw['properties']['pmu']['type'] == 'boolean'
    assert built['img'].properties['hv_type']['enum'][0] == 'baremetal'


def test_the_command_writes_them(tmp_path):
    out = tmp_path / 'metadefs'
    result = console_scripts.run('nova-mini-manage', None,
                                 'image-properties', 'metadefs',
                                 '--output-dir', str(out))
    assert result.returncode == 0, result.stderr
    assert sorted(os.listdir(out)) == [
        'nova-mini-image-hw.json', 'nova-mini-image-img.json',
        'nova-mini-image-os.json', 'nova-mini-image-trait.json',
        'nova-mini-image.json']
    assert ('Wrote %s: OS::Compute::NovaMini::Image::trait, 0 properties\n'
            '  left out trait:{trait} (patterned name)\n'
            % (out / 'nova-mini-image-trait.json')) in result.stdout
    with open(out / 'nova-mini-image-hw.json') as document:
        assert json.load(document)['properties']['cpu_policy']['type'] == \
            'string'
