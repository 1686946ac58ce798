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

"""The image property registry: definitions, Nova's coercions, lookup,
"did you mean", the flavor extra specs they mirror, and operator plugins
through the ``nova_mini.image_property_validators`` entry point."""

import logging

import pytest

from nova_mini.api.validation.extra_specs import registry as xs_registry
from nova_mini.api.validation.image_properties import base
from nova_mini.api.validation.image_properties import registry
from nova_mini.tests.fixtures import plugins


@pytest.fixture(scope='module')
def reg():
    return registry.build(include_plugins=False)


def _example(prop):
    """(key, value) of a definition's example."""
    if prop.patterned:
        return tuple(prop.example.split('=', 1))
    return prop.name, prop.example


def test_every_definition_is_complete(reg):
    assert len(reg) > 100
    assert reg.namespaces() == ['hw', 'img', 'os', 'trait']
    for prop in reg:
        assert isinstance(prop, base.ImageProperty), prop
        assert prop.description and prop.description == \
            prop.description.strip(), prop.name
        assert prop.source == 'nova_mini'
        if prop.example is not None:
            key, value = _example(prop)
            assert reg.lookup(key) is prop, prop.name
            verdict = registry.validate(reg, {key: value}, registry.STRICT)
            assert verdict, (prop.name, verdict.errors)


def test_mirrors_are_extra_specs_with_the_same_values(reg):
    specs = xs_registry.build(include_plugins=False)
    mirrored = [p for p in reg if p.mirrors]
    assert len(mirrored) > 30
    for prop in mirrored:
        spec = next((s for s in specs if s.name == prop.mirrors), None)
        assert spec is not None, (prop.name, prop.mirrors)
        if prop.value.enum and spec.value.enum:
            # Nova's image enumerations equal the flavor's, except that an
            # image may also make secure boot optional.
            extra = set(prop.value.enum) - set(spec.value.enum)
            assert set(spec.value.enum) <= set(prop.value.enum), prop.name
            assert extra == ({'optional'} if prop.name == 'os_secure_boot'
                             else set()), prop.name
    assert reg.lookup('hw_cpu_policy').mirrors == 'hw:cpu_policy'
    assert reg.lookup('hw_numa_cpus.1').mirrors == 'hw:numa_cpus.{num}'


def test_legacy_names_are_supported_unless_their_field_is_deprecated(reg):
    # Glance's image schema has architecture, hypervisor_type and vm_mode;
    # Nova writes owner_id into snapshots and its API reads
    # auto_disk_config: none is deprecated.
    for name in ('architecture', 'hypervisor_type', 'vm_mode', 'owner_id',
                 'vmware_ostype', 'auto_disk_config'):
        prop = reg.lookup(name)
        assert prop.support.status == base.SUPPORTED, name
        current = reg.lookup(prop.field)
        assert current is not None and current.name == prop.field
        assert current.value == prop.value
    assert '``hw_architecture`` wins' in reg.lookup(
        'architecture').support.note
    # The XenAPI ones are deprecated, as their current names are.
    old = reg.lookup('xenapi_use_agent')
    assert old.support.status == base.DEPRECATED
    assert old.support == reg.lookup('img_use_agent').support
    verdict = registry.validate(reg, {'architecture': 'AMD64',
                                      'xenapi_use_agent': 'true'})
    assert verdict.values == {'architecture': 'x86_64',
                              'xenapi_use_agent': True}
    assert [key for key, _ in verdict.deprecated] == ['xenapi_use_agent']


@pytest.mark.parametrize('key,value,typed', [
    ('hw_cpu_policy', 'dedicated', 'dedicated'),
    ('hw_architecture', 'AMD64', 'x86_64'),
    ('hw_architecture', 'i386', 'i686'),
    ('img_hv_type', 'XAPI', 'xen'),
    ('hw_vm_mode', 'hv', 'hvm'),
    ('os_type', 'Linux', 'linux'),
    ('hw_scsi_model', 'lsiLogicsas', 'lsisas1068'),
    ('hw_vif_model', 'VirtualE1000', 'e1000'),
    ('hw_pmu', 'maybe', False),
    ('hw_pmu', 'YES', True),
    ('hw_cpu_sockets', ' 3 ', 3),
    ('hw_cpu_sockets', '1_000', 1000),
    ('hw_cpu_sockets', '-1', -1),
    ('hw_numa_cpus.0', '0-3,^1, 6', {0, 2, 3, 6}),
    ('hw_numa_mem.0', '1024', 1024),
    ('img_signature_certificate_uuid', 'not-a-uuid', 'not-a-uuid'),
    ('img_hv_requested_version', '>=1.0,<2', '>=1.0,<2'),
    ('block_device_mapping', '[{"boot_index": 0, "x": null}]',
     [{'boot_index': '0', 'x': None}]),
    ('vmware_adaptertype', 'paraVirtual', 'vmpvscsi'),
    ('vmware_adaptertype', 'ide', 'ide'),
    ('trait:CUSTOM_GPU', 'forbidden', 'forbidden'),
    ('hw_mem_page_size', 'whatever', 'whatever'),
])
def test_nova_coercions(reg, key, value, typed):
    verdict = registry.validate(reg, {key: value}, registry.STRICT)
    assert verdict, verdict.errors
    assert verdict.values[key] == typed
    assert registry.validate_one(key, value, registry=reg) == typed


@pytest.mark.parametrize('key,value,words', [
    ('hw_cpu_policy', 'Dedicated', "'Dedicated' is not one of: dedicated, "
                                   "shared, mixed"),
    ('hw_firmware_type', 'UEFI', 'one of: uefi, bios'),
    ('hw_architecture', 'x64', "'x64' is not one of"),
    ('hw_cpu_cores', '0x10', "'0x10' is not an integer"),
    ('hw_numa_cpus.0', '3-1', "invalid range '3-1'"),
    ('hw_numa_cpus.0', '1^2', "invalid CPU number"),
    ('img_hv_requested_version', '1.0', 'not a version predicate'),
    ('img_block_device_mapping', '[]', 'is not a list'),
    ('mappings', '{}', 'is not a list'),
    ('mappings', '[1]', 'not a mapping'),
    ('block_device_mapping', '[', 'is not JSON'),
    ('vmware_adaptertype', 'IDE', "'IDE' is not one of"),
])
def test_nova_refusals(reg, key, value, words):
    verdict = registry.validate(reg, {key: value})
    assert not verdict
    [message] = verdict.errors
    assert message.startswith("Image property '%s'" % key)
    assert words in message
    with pytest.raises(base.InvalidValue) as raised:
        registry.validate_one(key, value, registry=reg)
    assert str(raised.value) == message


def test_unknown_properties_stay_raw_unless_strict(reg):
    properties = {'hw_cpu_polcy': 'dedicated', 'my_own_thing': 'x'}
    verdict = registry.validate(reg, properties)
    assert verdict and sorted(verdict.unknown) == sorted(properties)
    assert registry.validate_one('my_own_thing', 'x', registry=reg) == 'x'
    strict = registry.validate(reg, properties, registry.STRICT)
    assert len(strict.errors) == 2
    assert ("Image property 'hw_cpu_polcy' is not a known image property; "
            "did you mean 'hw_cpu_policy'") in strict.errors[0]
    assert not registry.validate(reg, {'hw_cpu_policy': 'x'},
                                 registry.DISABLED).errors


@pytest.mark.parametrize('key,expected', [
    ('hw_cpu_polcy', 'hw_cpu_policy'),
    ('hw_firmware', 'hw_firmware_type'),
    ('os_secureboot', 'os_secure_boot'),
    ('hw_numa_cpu.0', 'hw_numa_cpus.{id}'),
    ('img_hv_typ', 'img_hv_type'),
])
def test_did_you_mean(reg, key, expected):
    assert reg.lookup(key) is None
    assert expected in reg.suggest(key)


def test_numa_keys_past_a_gap_are_ignored_as_nova_does(reg):
    properties = {'hw_numa_cpus.0': '0', 'hw_numa_cpus.2': 'nonsense',
                  'hw_numa_mem.1': '1024', 'hw_numa_cpus.00': 'x'}
    verdict = registry.validate(reg, properties)
    assert verdict
    assert sorted(verdict.ignored) == ['hw_numa_cpus.2', 'hw_numa_mem.1']
    # No leading zeros: Nova never reads such a key, nor do we know it.
    assert verdict.unknown == ['hw_numa_cpus.00']
    assert verdict.values == {'hw_numa_cpus.0': {0}}
    strict = registry.validate(reg, properties, registry.STRICT)
    assert any("'hw_numa_mem.1' is ignored: hw_numa_mem.N is read from "
               "hw_numa_mem.0 upwards, up to hw_numa_mem.127" in e
               for e in strict.errors)
    full = {'hw_numa_cpus.%d' % i: str(i) for i in range(129)}
    assert registry.validate(reg, full).ignored == ['hw_numa_cpus.128']


PLUGIN_MODULE = '''
from nova_mini.api.validation.image_properties import base

DEFINITIONS = [
    base.ImageProperty(
        name='acme_rack',
        description='Rack the image was certified for.',
        value=base.Value(str, enum=('a1', 'b2')),
    ),
    base.ImageProperty(
        name='hw_cpu_policy',
        description='A clash with the in-tree definition.',
        value=base.Value(str),
    ),
]
'''


@pytest.fixture
def installed_plugin(tmp_path, monkeypatch):
    """A real distribution on sys.path with an entry point in the image
    property namespace (and one that fails to import).
    """
    with plugins.installed(tmp_path, monkeypatch, 'acme_image_props',
                           PLUGIN_MODULE, {registry.PLUGIN_NAMESPACE: {
                               'acme': 'acme_image_props:DEFINITIONS',
                               'acme_broken':
                                   'acme_image_props_missing:DEFINITIONS'}}):
        yield


def test_operator_plugins_add_definitions_below_in_tree(installed_plugin,
                                                        caplog):
    with caplog.at_level(logging.WARNING):
        built = registry.build()
    prop = built.lookup('acme_rack')
    assert prop is not None and prop.source == 'acme'
    assert registry.validate(built, {'acme_rack': 'a1'}, registry.STRICT)
    assert not registry.validate(built, {'acme_rack': 'c3'})
    # The in-tree definition wins the clash, which is logged.
    assert built.lookup('hw_cpu_policy').source == 'nova_mini'
    assert not registry.validate(built, {'hw_cpu_policy': 'x'})
    messages = [r.getMessage() for r in caplog.records]
    assert any('hw_cpu_policy' in m and 'acme' in m for m in messages)
    assert any('acme_broken' in m for m in messages)
    assert registry.build(include_plugins=False).lookup('acme_rack') is None
