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

"""The compiled acceptors (nova_mini.api.validation.compiled) never accept
what jsonschema refuses: every schema of the tree that compiles, and each
of its subschemas, against instances made from it, valid and broken.
"""

import importlib
import pkgutil
import random

import pytest

from nova_mini.api.baremetal import schemas as baremetal_schemas
from nova_mini.api.compute import schemas as compute_schemas
from nova_mini.api.compute.schemas import flavor_extra_specs
from nova_mini.api import validation
from nova_mini.api.validation import compiled

# The body of tools/bench's extra-spec POSTs.
EXTRA_SPECS = {
    'hw:cpu_policy': 'dedicated', 'hw:mem_page_size': 'large',
    'hw:numa_nodes': '2', 'trait:HW_CPU_X86_AVX2': 'required',
    'resources:VCPU': '2', 'quota:cpu_shares': '1024',
    'hw:cpu_thread_policy': 'prefer', 'hw:watchdog_action': 'reset',
    'hw_rng:allowed': 'true', 'hw:boot_menu': 'false',
}

_STRINGS = ['', 'a', 'dedicated', 'x' * 255, 'x' * 256, 'tab\there',
            'new\nline', 'del\x7f', 'nul\x00', 'h\u00e9', ' lead',
            'hw:cpu_policy', 'CUSTOM_X', 'CUSTOM_X\n', '1024', '-1', '1.5',
            'strict', 'permissive', 'disabled', 'bad key!', '\u2028']
_SCALARS = [0, 1, -1, 1.5, 10 ** 20, True, False, None]


def _schemas():
    for package in (compute_schemas, baremetal_schemas):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(
                '%s.%s' % (package.__name__, info.name))
            for name, value in sorted(vars(module).items()):
                if isinstance(value, dict) and not name.startswith('__'):
                    yield from _subschemas(
                        value, '%s.%s' % (module.__name__, name))


def _subschemas(value, where):
    if isinstance(value, dict):
        if 'type' in value or 'properties' in value:
            yield where, value
        for key, item in value.items():
            yield from _subschemas(item, '%s/%s' % (where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _subschemas(item, '%s/%d' % (where, index))


def _words(schema, found):
    """Property names, enum members and pattern-like strings of
    ``schema``, to build instances that get past its first checks.
    """
    if isinstance(schema, dict):
        found.update(name for name in schema.get('properties', {}))
        found.update(m for m in schema.get('enum', ()) if isinstance(m, str))
        for item in schema.values():
            _words(item, found)
    elif isinstance(schema, list):
        for item in schema:
            _words(item, found)
    return found


def _instance(schema, rng, words, depth=0):
    """Something shaped after ``schema`` most of the time, anything at
    all otherwise.
    """
    if not isinstance(schema, dict) or depth > 6 or rng.random() < 0.15:
        return rng.choice(_STRINGS + _SCALARS + sorted(words) + [[], {}])
    types = schema.get('type', 'object')
    kind = rng.choice(types if isinstance(types, list) else [types])
    if kind == 'object':
        value = {}
        for name, sub in schema.get('properties', {}).items():
            if name in schema.get('required', ()) or rng.random() < 0.6:
                value[name] = _instance(sub, rng, words, depth + 1)
        for _pattern, sub in schema.get('patternProperties', {}).items():
            for _ in range(rng.randint(0, 4)):
                key = rng.choice(_STRINGS + sorted(words))
                value[key] = _instance(sub, rng, words, depth + 1)
        if rng.random() < 0.2:
            value[rng.choice(_STRINGS)] = rng.choice(_SCALARS)
        return value
    if kind == 'array':
        item = schema.get('items', {})
        return [_instance(item, rng, words, depth + 1)
                for _ in range(rng.randint(0, 3))]
    if kind == 'string':
        return rng.choice(_STRINGS + sorted(words))
    if kind in ('number', 'integer'):
        return rng.choice([0, 1, -1, 1.5, 255, 10 ** 20])
    if kind == 'boolean':
        return rng.choice([True, False])
    return None


def _compiled_schemas():
    found = []
    for where, schema in _schemas():
        try:
            validator = validation._validator(schema)
        except Exception:
            continue    # a fragment that is not a schema on its own
        accepts = compiled.acceptor(schema, validation._anchored)
        if accepts is not None:
            found.append((where, schema, validator, accepts))
    return found


def test_never_accepts_what_jsonschema_refuses():
    rng = random.Random(25)
    checked = accepted = 0
    wrong = []
    for where, schema, validator, accepts in _compiled_schemas():
        words = _words(schema, set())
        for _ in range(60):
            instance = _instance(schema, rng, words)
            if not accepts(instance):
                continue
            accepted += 1
            error = validation._first_error(validator, instance)
            if error is not None:
                wrong.append('%s accepted %r: %s'
                             % (where, instance, error.message))
        checked += 1
    assert not wrong, '\n'.join(wrong[:20])
    # Not vacuous: many schemas compile, and valid instances were met.
    assert checked > 50 and accepted > 1000, (checked, accepted)


@pytest.mark.parametrize('schema', [
    flavor_extra_specs.create, flavor_extra_specs.create_v286])
def test_extra_spec_bodies_compile(schema):
    accepts = validation._Check(schema).accepts
    assert accepts is not None
    assert accepts({'extra_specs': dict(EXTRA_SPECS)})
    assert accepts({'extra_specs': {'hw:numa_nodes': 2}})
    for body in ({'extra_specs': {'hw:numa_nodes': True}},
                 {'extra_specs': {'bad key!': '1'}},
                 {'extra_specs': {'k': 'x' * 256}},
                 {'extra_specs': {'k': None}},
                 {'extra_specs': []}, {}, [],
                 {'extra_specs': {}, 'other': 1}):
        assert not accepts(body), body


def test_control_characters_refused_from_2_86():
    body = {'extra_specs': {'hw:cpu_policy': 'dedicated\n'}}
    assert validation._Check(flavor_extra_specs.create).accepts(body)
    assert not validation._Check(flavor_extra_specs.create_v286).accepts(
        body)


def test_anchored_patterns():
    # ``$`` means the very end, as nova_mini's pattern keyword has it.
    accepts = compiled.acceptor({'type': 'string', 'pattern': '^[A-Z_]+$'},
                                validation._anchored)
    assert accepts('CUSTOM_X')
    assert not accepts('CUSTOM_X\n')


@pytest.mark.parametrize('schema', [
    {'type': 'integer', 'minimum': 1},      # nova_mini's own minimum
    {'type': 'string', 'format': 'uuid'},
    {'oneOf': [{'type': 'string'}, {'type': 'null'}]},
    {'type': 'object', 'properties': {'a': {'$ref': '#/definitions/x'}}},
    {'enum': [1, True]},
    {'type': 'array', 'items': [{'type': 'string'}]},
])
def test_other_keywords_not_compiled(schema):
    assert compiled.acceptor(schema, validation._anchored) is None


def test_v2_compatibility_validator_always_walks():
    # It removes unknown properties from the body it validates.
    check = validation._Check(flavor_extra_specs.create,
                              validation._LegacyV2Validator)
    assert check.accepts is None
