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

"""JSON schemas compiled to plain Python checks that say "valid" only.

jsonschema walks the schema for every instance, through a new validator
per level: 0.2 ms for an extra-spec POST of ten keys, a fifth of the
request. ``acceptor(schema)`` turns a schema into one function of the
instance, made once; the validation package calls it first and, when it
accepts, jsonschema is not run. When it refuses, jsonschema validates the
instance again and its first error makes the 400, so every message stays
jsonschema's (and ours, ``messages.py``).

The one rule: an acceptor never accepts what jsonschema refuses (refusing
something valid only costs the walk). Only the keywords below are
compiled, with the semantics of nova_mini's validator (``pattern`` and
``patternProperties`` through the same anchored regular expressions); a
schema with any other keyword, anywhere, gets no acceptor (None) and is
always walked. ``nova_mini/tests/unit/api/test_validation_compiled.py``
compares both on every schema of the tree that compiles.
"""

import numbers

# Draft 4's types, as jsonschema's type checker tells them: the Python
# classes of each (a bool is neither a number nor an integer).
_TYPES = {
    'object': dict, 'array': list, 'string': str, 'boolean': bool,
    'null': type(None), 'number': numbers.Number, 'integer': int,
}

# Keywords that never refuse anything.
_ANNOTATIONS = frozenset(['description', 'title', '$schema'])

_KEYWORDS = frozenset([
    'type', 'properties', 'required', 'additionalProperties',
    'patternProperties', 'minProperties', 'maxProperties', 'maxLength',
    'minLength', 'pattern', 'enum', 'items', 'minItems', 'maxItems',
]) | _ANNOTATIONS


class _NotCompiled(Exception):
    """The schema uses a keyword (or form of one) not compiled here."""


def acceptor(schema, compile_pattern):
    """Return ``accepts(instance) -> bool`` for ``schema``, or None.

    :param schema: a Draft 4 JSON schema (already checked as such).
    :param compile_pattern: the regular expression of a ``pattern`` as the
        validator compiles it (searched, as jsonschema does).
    :returns: a function that returns True only for instances that the
        schema accepts, or None when the schema has a keyword not
        compiled here.
    """
    try:
        return _compile(schema, compile_pattern)
    except _NotCompiled:
        return None


def _compile(schema, compile_pattern):
    if not isinstance(schema, dict) or set(schema) - _KEYWORDS:
        raise _NotCompiled()
    checks = []
    if 'type' in schema:
        checks.append(_type_check(schema['type']))
    if 'enum' in schema:
        members = schema['enum']
        # Only strings: jsonschema's equality of numbers and booleans
        # (1 == 1.0, True != 1) is not repeated here.
        if not all(isinstance(member, str) for member in members):
            raise _NotCompiled()
        allowed = frozenset(members)
        checks.append(lambda value: isinstance(value, str)
                      and value in allowed)
    checks.extend(_string_checks(schema, compile_pattern))
    checks.extend(_array_checks(schema, compile_pattern))
    object_check = _object_check(schema, compile_pattern)
    if object_check is not None:
        checks.append(object_check)
    return _all_of(checks)


def _all_of(checks):
    if not checks:
        return lambda value: True
    if len(checks) == 1:
        return checks[0]
    checks = tuple(checks)

    def check(value):
        for each in checks:
            if not each(value):
                return False
        return True
    return check


def _type_check(types):
    if isinstance(types, str):
        types = [types]
    if not types or any(name not in _TYPES for name in types):
        raise _NotCompiled()
    classes = tuple(_TYPES[name] for name in types)
    if 'boolean' in types:
        return lambda value: isinstance(value, classes)
    return lambda value: (isinstance(value, classes)
                          and not isinstance(value, bool))


def _string_checks(schema, compile_pattern):
    """maxLength, minLength and pattern, as one check: strings only."""
    if not any(name in schema
               for name in ('maxLength', 'minLength', 'pattern')):
        return []
    longest = schema.get('maxLength')
    shortest = schema.get('minLength', 0)
    search = (compile_pattern(schema['pattern']).search
              if 'pattern' in schema else None)

    def check(value):
        if not isinstance(value, str):
            return True
        if longest is not None and len(value) > longest:
            return False
        if len(value) < shortest:
            return False
        return search is None or search(value) is not None
    return [check]


def _array_checks(schema, compile_pattern):
    """items (one schema for each), minItems and maxItems: lists only."""
    checks = []
    if 'items' in schema:
        if not isinstance(schema['items'], dict):
            raise _NotCompiled()    # a tuple of schemas
        item = _compile(schema['items'], compile_pattern)
        checks.append(lambda value: not isinstance(value, list)
                      or all(item(each) for each in value))
    if 'minItems' in schema:
        fewest = schema['minItems']
        checks.append(lambda value: not isinstance(value, list)
                      or len(value) >= fewest)
    if 'maxItems' in schema:
        most = schema['maxItems']
        checks.append(lambda value: not isinstance(value, list)
                      or len(value) <= most)
    return checks


def _object_check(schema, compile_pattern):
    """properties, patternProperties, additionalProperties, required,
    minProperties and maxProperties as one check of a dict.
    """
    names = ('properties', 'patternProperties', 'additionalProperties',
             'required', 'minProperties', 'maxProperties')
    if not any(name in schema for name in names):
        return None
    known = {name: _compile(sub, compile_pattern)
             for name, sub in schema.get('properties', {}).items()}
    patterns = tuple(
        (compile_pattern(pattern).search, _compile(sub, compile_pattern))
        for pattern, sub in schema.get('patternProperties', {}).items())
    additional = schema.get('additionalProperties', True)
    if additional is True:
        extra = None
    elif additional is False:
        extra = False
    else:
        extra = _compile(additional, compile_pattern)
    required = tuple(schema.get('required', ()))
    fewest = schema.get('minProperties')
    most = schema.get('maxProperties')

    def check(value):
        if not isinstance(value, dict):
            return True     # the type keyword, if any, refuses it
        if fewest is not None and len(value) < fewest:
            return False
        if most is not None and len(value) > most:
            return False
        for name in required:
            if name not in value:
                return False
        for key, item in value.items():
            matched = False
            if key in known:
                matched = True
                if not known[key](item):
                    return False
            for search, sub in patterns:
                if search(key) is not None:
                    matched = True
                    if not sub(item):
                        return False
            if not matched and extra is not None and (
                    extra is False or not extra(item)):
                return False
        return True
    return check
