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

"""Every pattern, format and alternative of the request schemas has words
(nova_mini.api.validation.messages), and violations read as what to send.
"""

import importlib
import pkgutil

import jsonschema
import pytest

from nova_mini.api.baremetal import schemas as baremetal_schemas
from nova_mini.api.compute import schemas as compute_schemas
from nova_mini.api import validation
from nova_mini.api.validation import messages


def _schema_modules():
    for package in (compute_schemas, baremetal_schemas):
        for info in pkgutil.iter_modules(package.__path__):
            yield importlib.import_module(
                '%s.%s' % (package.__name__, info.name))


def _subschemas(value, where):
    """Every dict below ``value``, with where it is."""
    if isinstance(value, dict):
        yield where, value
        for key, item in value.items():
            yield from _subschemas(item, '%s/%s' % (where, key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _subschemas(item, '%s/%d' % (where, index))


def _all_subschemas():
    for module in _schema_modules():
        for name, value in vars(module).items():
            if name.startswith('_') or not isinstance(value, dict):
                continue
            yield from _subschemas(value, '%s.%s' % (module.__name__, name))


def test_every_pattern_has_words():
    missing = set()
    for where, schema in _all_subschemas():
        pattern = schema.get('pattern')
        if isinstance(pattern, str) and messages.meaning(schema) is None:
            missing.add('%s: %s' % (where, pattern))
        for key_pattern in schema.get('patternProperties', {}) or {}:
            if key_pattern not in messages.PATTERN_MEANINGS:
                missing.add('%s (keys): %s' % (where, key_pattern))
        fmt = schema.get('format')
        if isinstance(fmt, str) and fmt != validation.NAME_FORMAT and \
                fmt not in messages.FORMAT_MEANINGS:
            missing.add('%s: format %s' % (where, fmt))
    assert not missing, 'Add words to messages.py for: %s' % sorted(missing)


def test_every_alternative_has_words():
    missing = []
    for where, schema in _all_subschemas():
        for kind in ('anyOf', 'oneOf'):
            options = schema.get(kind)
            if not isinstance(options, list) or schema.get('description'):
                continue
            if not all(messages.meaning(o) or 'type' in o for o in options):
                missing.append('%s/%s' % (where, kind))
    assert not missing, 'Give these a description: %s' % missing


def _problem(schema, instance):
    validator = validation._validator(schema)
    error = next(iter(validator.iter_errors(instance)))
    return messages.problem(error)


@pytest.mark.parametrize('schema, instance, expected', [
    ({'type': 'string', 'pattern': '^[0-9]+$'}, 'x',
     'Must be a whole number (digits 0-9 only).'),
    ({'type': ['integer', 'string'], 'pattern': '^[0-9]+$'}, 1.5,
     'Must be a whole number (digits 0-9 only).'),
    ({'type': 'string', 'pattern': '^[a-z]+$'}, '1',
     'Must be text matching the regular expression ^[a-z]+$.'),
    ({'type': 'string', 'enum': ['a', 'b']}, 'c', "Must be one of 'a', 'b'."),
    ({'enum': ['true', 'false', 'yes', 'no']}, 'x',
     'Must be a boolean: true or false (yes/no, on/off and 1/0 work too).'),
    ({'enum': ['N%d' % i for i in range(50)]}, 'x',
     "Must be one of 50 accepted values, such as 'N0', 'N1', 'N2', 'N3', "
     "'N4'."),
    ({'type': 'string'}, 5, 'Must be a string.'),
    ({'type': ['string', 'null']}, 5, 'Must be a string or null.'),
    ({'type': 'string', 'format': 'uuid'}, 'x',
     'Must be a UUID, such as 2f3e2c32-3d0d-4d6e-9c3f-7a8ab8e1c0de.'),
    ({'type': 'string', 'maxLength': 3}, 'abcd',
     'Must be at most 3 characters long.'),
    ({'type': 'string', 'minLength': 1}, '', 'Must not be empty.'),
    ({'type': 'integer', 'minimum': 1}, 0, 'Must be at least 1.'),
    ({'type': 'number', 'minimum': 0, 'exclusiveMinimum': True}, 0,
     'Must be more than 0.'),
    ({'type': 'integer', 'maximum': 9}, 10, 'Must be at most 9.'),
    ({'type': 'array', 'maxItems': 2}, [1, 2, 3],
     'Must have at most 2 items.'),
    ({'type': 'object', 'minProperties': 1}, {},
     'Must have at least 1 key.'),
    ({'anyOf': [{'type': 'array'}, {'enum': ['auto']}]}, 'x',
     "Must be a list ([...]) or 'auto'."),
    ({'description': 'a colour', 'anyOf': [{'pattern': '^#'},
                                           {'enum': ['red']}]}, 'x',
     'Must be a colour.'),
])
def test_problem_words(schema, instance, expected):
    assert _problem(schema, instance) == expected


def test_problem_never_quotes_the_value():
    # value_checker relies on it: a node's fields may hold secrets.
    for schema, instance in (
            ({'type': 'string', 'pattern': '^[0-9]+$'}, 's3cret'),
            ({'type': 'integer'}, 's3cret'),
            ({'enum': ['a']}, 's3cret'),
            ({'type': 'string', 'maxLength': 2}, 's3cret'),
            ({'type': 'string', 'format': 'uuid'}, 's3cret')):
        assert 's3cret' not in _problem(schema, instance)


def test_unknown_keys_name_the_key_rule():
    schema = {'type': 'object', 'patternProperties': {
        '^[a-zA-Z0-9-_:. ]{1,255}$': {}}, 'additionalProperties': False}
    error = next(iter(validation._validator(schema).iter_errors(
        {'a/b': 1, 'c!': 2})))
    assert error.message == (
        "'a/b', 'c!' are not allowed as keys: a key must be 1 to 255 "
        "letters, digits, spaces, '-', '_', ':' and '.'.")


def test_schema_description_is_a_draft4_keyword():
    # 'description' is standard: schemas stay valid Draft 4 documents.
    jsonschema.Draft4Validator.check_schema(
        {'type': 'string', 'description': messages.TRAIT_RULE})
