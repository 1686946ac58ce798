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

"""What a value must look like, in words: the text of schema violations.

jsonschema words a violation for the schema's author ("'x' does not match
'^[0-9]+$'"); the API says what to send instead ("Must be a whole number
(digits 0-9 only)."). A schema says it with a ``description`` (what the
value must be, as a noun phrase), else its pattern or format is looked up
in the tables below; a unit test checks that every pattern, ``anyOf`` and
``oneOf`` of the request schemas has words. A 400 quotes the value it
refuses unless the value is or holds a secret (``quoted``).
"""

from oslo_utils import strutils

from nova_mini.api import secrets


# What a trait is, where a trait is refused (node traits, ``trait:`` extra
# specs).
TRAIT_RULE = ('a standard trait of os-traits, such as HW_CPU_X86_AVX2, or '
              'CUSTOM_ followed by capital letters A-Z, digits 0-9 and '
              'underscores, at most 255 characters in all')

# Words of the patterns of the request schemas, by pattern.
PATTERN_MEANINGS = {
    # validation.PRINTABLE_PATTERN is added by nova_mini.api.validation.
    '^[0-9]+$': 'a whole number (digits 0-9 only)',
    '^[0-9]*$': 'a whole number (digits 0-9 only)',
    '^-?[0-9]+$': 'a whole number (digits 0-9, optionally after a -)',
    r'^[0-9]+(\.[0-9]+)?$': 'a number such as 1 or 1.5',
    '^(?! )[a-zA-Z0-9. _-]+(?<! )$': (
        "letters, digits, spaces, '.', '_' and '-', not starting or "
        "ending with a space"),
    '^[a-zA-Z0-9-_:. ]{1,255}$': (
        "1 to 255 letters, digits, spaces, '-', '_', ':' and '.'"),
    r'^[^\x00-\x1f\x7f]*$': (
        'text without control characters (no tabs, newlines or other '
        'control codes)'),
    '^[a-zA-Z0-9._-]*$': "letters, digits, '.', '_' and '-'",
    r'^[a-zA-Z0-9_\-\.]*$': "letters, digits, '_', '-' and '.'",
    '^[a-zA-Z0-9._/-]*$': "letters, digits, '.', '_', '/' and '-'",
    '^[^,/]*$': "text without ',' or '/'",
    '^[a-zA-Z0-9-._~]+$': "letters, digits, '-', '.', '_' and '~'",
    ('^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?'
     r'(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$'): (
        "a host name: lower-case labels of letters, digits and '-', "
        "separated by dots (from API version 1.10 names may use more "
        "characters)"),
    r'^(/[\w~.-]+)+$': (
        "a JSON pointer to a field, such as '/name' or "
        "'/properties/cpus'"),
    r'^[A-Za-z0-9_]+(,[A-Za-z0-9_]+)*$': (
        "names of letters, digits and '_', separated by commas"),
    '^CUSTOM_[A-Z0-9_]+$': TRAIT_RULE,
}

# Words of the formats of the request schemas, by format.
FORMAT_MEANINGS = {
    'uuid': 'a UUID, such as 2f3e2c32-3d0d-4d6e-9c3f-7a8ab8e1c0de',
    'ipv4': 'an IPv4 address, such as 192.0.2.10',
    'ipv6': 'an IPv6 address, such as 2001:db8::10',
    'base64': 'base64-encoded data',
    'date-time': 'a date and time in ISO 8601, such as '
                 '2025-01-31T12:00:00Z',
}

_TYPE_NAMES = {
    'string': 'a string', 'integer': 'an integer', 'number': 'a number',
    'boolean': 'a boolean (true or false)', 'null': 'null',
    'object': 'an object ({...})', 'array': 'a list ([...])',
}

# Every spelling of a boolean that the schemas' boolean enums accept.
_BOOLEAN_WORDS = frozenset([
    'true', 'false', '1', '0', 'on', 'off', 'yes', 'no', 'y', 'n', 't',
    'f'])
_BOOLEAN = 'a boolean: true or false (yes/no, on/off and 1/0 work too)'

# Enums longer than this are named by a few examples.
_MAX_LISTED = 40


def add_pattern(pattern, meaning):
    """Give words to a pattern defined outside this module.

    :param pattern: the regex text, as schemas write it.
    :param meaning: what a value matching it is (a noun phrase).
    """
    PATTERN_MEANINGS[pattern] = meaning


def _or_list(names):
    names = list(names)
    if len(names) == 1:
        return names[0]
    return '%s or %s' % (', '.join(names[:-1]), names[-1])


def type_words(types):
    """Return the words of a schema ``type`` (a name or a list of names)."""
    if isinstance(types, str):
        types = [types]
    return _or_list(_TYPE_NAMES.get(t, t) for t in types)


def _is_boolean_enum(values):
    return all(isinstance(v, bool) or (isinstance(v, str) and
                                       v.lower() in _BOOLEAN_WORDS)
               for v in values) and any(
        v is True or (isinstance(v, str) and v.lower() == 'true')
        for v in values)


def enum_words(values):
    """Return the words of an ``enum``: its values, or what they mean."""
    if _is_boolean_enum(values):
        return _BOOLEAN
    shown = [repr(v) if not isinstance(v, str) else "'%s'" % v
             for v in values]
    if len(shown) > _MAX_LISTED:
        return 'one of %d accepted values, such as %s' % (
            len(shown), ', '.join(shown[:5]))
    if len(shown) == 1:
        return shown[0]
    return 'one of ' + ', '.join(shown)


def meaning(schema):
    """Return what a value of ``schema`` must be, or None if unknown.

    :param schema: a (sub)schema.
    :returns: a noun phrase, from its ``description``, its pattern or its
        format; None when the schema has none of them with known words.
    """
    if not isinstance(schema, dict):
        return None
    if schema.get('description'):
        return schema['description']
    if 'pattern' in schema and schema['pattern'] in PATTERN_MEANINGS:
        return PATTERN_MEANINGS[schema['pattern']]
    if schema.get('format') in FORMAT_MEANINGS:
        return FORMAT_MEANINGS[schema['format']]
    if 'enum' in schema:
        return enum_words(schema['enum'])
    return None


def _must(words):
    return 'Must be %s.' % words


def problem(error):
    """Return what is wrong with the value of a jsonschema error, in words
    that say what to send instead, without quoting the value.

    :param error: a jsonschema.ValidationError.
    :returns: one sentence (or two).
    """
    kind = error.validator
    rule = error.validator_value
    schema = error.schema if isinstance(error.schema, dict) else {}
    if kind in ('pattern', 'format', 'enum', 'anyOf', 'oneOf'):
        words = meaning(schema)
        if words is None and kind in ('anyOf', 'oneOf'):
            options = [meaning(sub) or (type_words(sub['type'])
                                        if 'type' in sub else None)
                       for sub in rule]
            if all(options):
                words = _or_list(options)
        if words is None and kind == 'pattern':
            words = 'text matching the regular expression %s' % rule
        if words is None and kind == 'format':
            words = 'a valid %s' % rule
        if words is not None:
            return _must(words)
    if kind == 'type':
        # The schema's own words (a pattern's, say) say more than its
        # types: 'a whole number' for ['integer', 'string'] and '^[0-9]+$'.
        # A format says less than the type of a value of the wrong type.
        words = meaning(schema) if 'format' not in schema else None
        return _must(words or type_words(rule))
    if kind == 'maxLength':
        return 'Must be at most %d characters long.' % rule
    if kind == 'minLength':
        return ('Must not be empty.' if rule == 1 else
                'Must be at least %d characters long.' % rule)
    if kind in ('minimum', 'maximum'):
        exclusive = schema.get('exclusive' + kind.capitalize(), False)
        if kind == 'minimum':
            return ('Must be more than %s.' if exclusive else
                    'Must be at least %s.') % rule
        return ('Must be less than %s.' if exclusive else
                'Must be at most %s.') % rule
    counted = {'maxItems': 'at most %d item', 'minItems': 'at least %d item',
               'maxProperties': 'at most %d key',
               'minProperties': 'at least %d key'}
    if kind in counted:
        return 'Must have %s%s.' % (counted[kind] % rule,
                                    's' if rule > 1 else '')
    if kind == 'uniqueItems':
        return 'Must not hold the same item twice.'
    return error.message


# Fields whose whole value may hold secrets (a BMC password, a config
# drive).
_SECRET_HOLDERS = frozenset(['driver_info', 'driver_internal_info',
                             'instance_info'])


def _secret_name(name):
    if not isinstance(name, str):
        return False
    return (name in _SECRET_HOLDERS or name in secrets.DRIVER_SECRETS or
            name in secrets.INSTANCE_SECRETS or secrets.is_secret_key(name))


def _holds_secret(value, depth=0):
    if depth > 40:     # bodies are at most 32 deep; be safe anyway
        return True
    if isinstance(value, dict):
        path = value.get('path')
        if isinstance(path, str) and any(
                _secret_name(token) for token in path.split('/')):
            return True      # a JSON patch operation on a secret
        return any(_secret_name(key) or _holds_secret(item, depth + 1)
                   for key, item in value.items())
    if isinstance(value, list):
        return any(_holds_secret(item, depth + 1) for item in value)
    if isinstance(value, str):
        return strutils.mask_password(value, secrets.MASK) != value
    return False


def quoted(error):
    """The value a 400 may quote: ``******`` when it is a secret (a field
    named as one on its path: adminPass, rescue_password, agent_token,
    driver_info ...) or holds one. The message is answered to a client
    that may not be the secret's owner's, and logged.
    """
    if any(_secret_name(name) for name in error.path) or \
            _holds_secret(error.instance):
        return secrets.MASK
    return short(error.instance)


def short(value, limit=300):
    text = str(value)
    return text if len(text) <= limit else text[:limit] + '...'


def query_message(error):
    """Nova's wording: the parameter, its value, what is wrong; errors of
    the whole query (an unknown parameter) as jsonschema words them.
    """
    if not error.path:
        return error.message
    if error.validator == 'maxItems' and len(error.path) == 1:
        words = 'Give this parameter at most %d time%s.' % (
            error.validator_value, 's' if error.validator_value > 1 else '')
    else:
        words = problem(error)
    return 'Invalid input for query parameters %s. Value: %s. %s' % (
        error.path[0], quoted(error), words)
