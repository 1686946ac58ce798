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

"""JSON-schema validation of request bodies and query strings.

``body`` and ``query`` are the only ways handlers validate input. Each
takes a schema, or the list of a handler's schemas with the microversion
each starts at, so that a handler has one decorator of each kind.
Validators are compiled once, at import time.
"""

import functools
import re
import unicodedata

import jsonschema
import pecan

from nova_mini.api import microversion
from nova_mini.api.validation import compiled
from nova_mini.api.validation import messages
from nova_mini import exception

_FORMAT_CHECKER = jsonschema.FormatChecker()


def _is_printable(char):
    """Letters, marks, numbers, punctuation, symbols and spaces: anything
    but control/format characters (C*) and line/paragraph separators.
    """
    category = unicodedata.category(char)
    return category[0] != 'C' and (category[0] != 'Z' or category == 'Zs')


def _char_class(predicate):
    """A regex character class body of the BMP characters matching
    ``predicate``, as ranges (Nova builds its name regexes the same way).
    """
    def escape(char):
        return '\\' + char if char in '\\]^-[' else char

    parts = []
    start = None
    for code in range(0x10000 + 1):
        inside = code < 0x10000 and predicate(chr(code))
        if inside and start is None:
            start = code
        elif not inside and start is not None:
            last = code - 1
            parts.append(escape(chr(start)) if start == last else
                         '%s-%s' % (escape(chr(start)), escape(chr(last))))
            start = None
    return ''.join(parts)


_PRINTABLE = _char_class(_is_printable)
_SPACES = _char_class(lambda char: unicodedata.category(char) == 'Zs')

# Printable text (see _is_printable); schemas use it as a ``pattern``.
PRINTABLE_PATTERN = '^[%s]*$' % _PRINTABLE
messages.add_pattern(PRINTABLE_PATTERN, 'printable text (no tabs, newlines '
                     'or other control characters)')

# ``format: name``: printable, not starting or ending with a space. Its
# failure has Nova's own message rather than jsonschema's.
NAME_FORMAT = 'name'
NAME_MESSAGE = ("An invalid 'name' value was provided. The name must be: "
                "printable characters. Can not start or end with "
                "whitespace.")
messages.FORMAT_MEANINGS[NAME_FORMAT] = (
    'printable characters, not starting or ending with white space')
_NAME_REGEX = re.compile(r'^(?![%s])[%s]*(?<![%s])\Z'
                         % (_SPACES, _PRINTABLE, _SPACES))


@_FORMAT_CHECKER.checks(NAME_FORMAT)
def _is_name(instance):
    if not isinstance(instance, str):
        return True     # the type keyword reports that
    return _NAME_REGEX.match(instance) is not None


def _number(validator, instance):
    """The numeric value of a number or of a string holding one."""
    if isinstance(instance, str):
        for convert in (int, float):
            try:
                return convert(instance)
            except ValueError:
                pass
        return None
    if validator.is_type(instance, 'number'):
        return instance
    return None


def _minimum(validator, minimum, instance, schema):
    # Bounds apply to numeric strings too ("512" for a RAM size), and so
    # does exclusiveMinimum (Nova forgets that one and fails later).
    value = _number(validator, instance)
    if value is None:
        return
    if schema.get('exclusiveMinimum', False):
        if value <= minimum:
            yield jsonschema.ValidationError(
                '%s is less than or equal to the minimum of %s'
                % (value, minimum))
    elif value < minimum:
        yield jsonschema.ValidationError(
            '%s is less than the minimum of %s' % (value, minimum))


def _maximum(validator, maximum, instance, schema):
    value = _number(validator, instance)
    if value is None:
        return
    if schema.get('exclusiveMaximum', False):
        if value >= maximum:
            yield jsonschema.ValidationError(
                '%s is greater than or equal to the maximum of %s'
                % (value, maximum))
    elif value > maximum:
        yield jsonschema.ValidationError(
            '%s is greater than the maximum of %s' % (value, maximum))


@functools.lru_cache(maxsize=None)
def _anchored(pattern):
    """``pattern`` compiled so that a final ``$`` means the very end.

    NOTE: in Python's re ``$`` also matches before a final newline, so
    ``"CUSTOM_X\n"`` would pass ``^[A-Z_]+$``. Messages still quote the
    pattern as written.
    """
    if pattern.endswith('$') and not pattern.endswith('\\$'):
        pattern = pattern[:-1] + r'\Z'
    return re.compile(pattern)


def _pattern(validator, pattern, instance, schema):
    if validator.is_type(instance, 'string') and not _anchored(
            pattern).search(instance):
        yield jsonschema.ValidationError(
            '%r does not match %r' % (instance, pattern))


def _pattern_properties(validator, patterns, instance, schema):
    if not validator.is_type(instance, 'object'):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _anchored(pattern).search(key):
                yield from validator.descend(value, subschema, path=key,
                                             schema_path=pattern)


def _additional_properties(validator, allowed, instance, schema):
    if not validator.is_type(instance, 'object'):
        return
    known = schema.get('properties', {})
    patterns = schema.get('patternProperties', {})
    extras = sorted(
        key for key in instance if key not in known and not any(
            _anchored(p).search(key) for p in patterns))
    if validator.is_type(allowed, 'object'):
        for extra in extras:
            yield from validator.descend(instance[extra], allowed, path=extra)
    elif not allowed and extras:
        listed = ', '.join(repr(extra) for extra in extras)
        several = len(extras) > 1
        if patterns:
            words = [messages.PATTERN_MEANINGS.get(
                p, 'text matching the regular expression %s' % p)
                for p in sorted(patterns)]
            yield jsonschema.ValidationError(
                '%s %s not allowed as key%s: a key must be %s.' % (
                    listed, 'are' if several else 'is',
                    's' if several else '', ' or '.join(words)))
        else:
            # Nova's words, then the names that are allowed.
            message = ('Additional properties are not allowed (%s %s '
                       'unexpected)' % (listed, 'were' if several else 'was'))
            if known:
                message += '; allowed: %s.' % ', '.join(sorted(known))
            yield jsonschema.ValidationError(message)


def _dropped_additional_properties(validator, allowed, instance, schema):
    """``additionalProperties: false`` as Nova's v2 compatibility root
    applies it: unknown properties are removed from the body, not refused
    (still refused where the schema has patternProperties, or when no
    property is known: the body is for another branch of a oneOf).
    """
    if allowed is not False or not validator.is_type(instance, 'object') \
            or schema.get('patternProperties'):
        yield from _additional_properties(validator, allowed, instance,
                                          schema)
        return
    known = schema.get('properties', {})
    extras = [key for key in instance if key not in known]
    if extras and len(extras) < len(instance):
        for key in extras:
            del instance[key]


_Validator = jsonschema.validators.extend(
    jsonschema.Draft4Validator, {
        'minimum': _minimum, 'maximum': _maximum, 'pattern': _pattern,
        'patternProperties': _pattern_properties,
        'additionalProperties': _additional_properties,
    })
_LegacyV2Validator = jsonschema.validators.extend(
    _Validator, {'additionalProperties': _dropped_additional_properties})

# WSGI environ key: the body of a v2 compatibility request as validated,
# unknown properties removed (request_json returns it).
_LEGACY_BODY_KEY = 'nova_mini.legacy_v2_body'


def _validator(schema, cls=_Validator):
    cls.check_schema(schema)
    return cls(schema, format_checker=_FORMAT_CHECKER)


def _first_error(validator, instance):
    """The first violation in the schema's keyword order, or None."""
    return next(iter(validator.iter_errors(instance)), None)


class _Check(object):
    """A schema's validator, and its compiled acceptor (compiled.py): an
    instance the acceptor takes is valid without jsonschema's walk; any
    other is walked, for its first error.
    """

    def __init__(self, schema, cls=_Validator):
        self.validator = _validator(schema, cls)
        # The v2 compatibility validator changes bodies: always walked.
        self.accepts = (compiled.acceptor(schema, _anchored)
                        if cls is _Validator else None)

    def first_error(self, instance):
        if self.accepts is not None and self.accepts(instance):
            return None
        return _first_error(self.validator, instance)


def _body_message(error):
    """Nova's frame (the innermost field, its value), then what to send
    instead (see messages.problem).
    """
    if error.validator == 'format' and error.validator_value == NAME_FORMAT:
        return NAME_MESSAGE
    if error.path:
        field = error.path[-1]
        if isinstance(field, int) and len(error.path) > 1:
            field = '%s[%d]' % (error.path[-2], field)   # tags[0]
        return ('Invalid input for field/attribute %s. Value: %s. %s'
                % (field, messages.quoted(error), messages.problem(error)))
    if error.validator == 'type':
        return 'The request body must be %s.' % messages.type_words(
            error.validator_value)
    problem = messages.problem(error)
    if problem.startswith('Must '):
        problem = 'The request body m' + problem[1:]
    return problem


# Bodies are JSON; a missing Content-Type or text/plain is taken as JSON
# too, as Nova does for old clients.
_JSON_TYPES = frozenset(['', 'application/json', 'text/plain'])


def request_json(req):
    """Return the request body as JSON.

    :param req: the webob request.
    :returns: the decoded body.
    :raises nova_mini.exception.UnsupportedMediaType: a media type other
        than JSON (415).
    """
    if _LEGACY_BODY_KEY in req.environ:
        return req.environ[_LEGACY_BODY_KEY]
    if req.content_type not in _JSON_TYPES:
        raise exception.UnsupportedMediaType()
    return req.json


def _by_version(schemas):
    """``[(first version or None, _Check), ...]`` newest first,
    from a schema or a list of ``(first version, schema)`` oldest first.

    :raises ValueError: the versions do not strictly increase, or one but
        the first is None.
    """
    if isinstance(schemas, dict):
        schemas = [(None, schemas)]
    entries = [(None if start is None else microversion.APIVersion(start),
                schema) for start, schema in schemas]
    starts = [start for start, _schema in entries]
    if not entries or None in starts[1:] or any(
            earlier is not None and later <= earlier
            for earlier, later in zip(starts, starts[1:])):
        raise ValueError('Schemas must start at increasing versions, None '
                         'only first: %s' % ', '.join(map(str, starts)))
    return [(start, _Check(schema)) for start, schema in reversed(entries)]


def _versioned(kind, schemas, instance_of, message):
    """A decorator validating ``instance_of(request)`` against the schema
    of the request's microversion (see ``body``).
    """
    by_version = _by_version(schemas)
    if len(by_version) == 1 and by_version[0][0] is None:
        only = by_version[0][1]

        def pick(req):
            return only
    else:
        def pick(req):
            for start, validator in by_version:
                if req.since(start):
                    return validator
            return None     # before the first schema: nothing to check

    # Nova's v2 compatibility root checks only the schemas of the first
    # version, bodies dropping unknown properties (see legacy_v2.py).
    first_start, first = (None, schemas) if isinstance(schemas, dict) \
        else schemas[0]
    legacy = None
    if first_start is None:
        legacy = _Check(first, _LegacyV2Validator if kind == 'body'
                        else _Validator)

    def decorator(func):
        # updated=(): the attributes below are this layer's own.
        @functools.wraps(func, updated=())
        def wrapper(self, *args):
            req = pecan.request
            is_legacy = req.environ.get(microversion.LEGACY_V2_KEY, False)
            validator = legacy if is_legacy else pick(req)
            if validator is not None:
                instance = instance_of(req)
                error = validator.first_error(instance)
                if error is not None:
                    raise exception.ValidationError(detail=message(error))
                if is_legacy and kind == 'body':
                    req.environ[_LEGACY_BODY_KEY] = instance
            return func(self, *args)
        # For the tests of handler version ranges.
        wrapper.validates = kind
        wrapper.schema_versions = tuple(
            start for start, _validator in reversed(by_version))
        return wrapper
    return decorator


def body(schemas):
    """Validate the JSON request body against the schema of its version.

    ``@body(schema.update)`` checks every version against one schema;

        @body([(None, schema.create),
               (versions.SERVER_DESCRIPTION, schema.create_v219)])

    checks each version against the schema of the last entry starting at
    or before it: each schema ends where the next begins. None, as the
    first entry's version, is the handler's first version; a list that
    starts later leaves the earlier versions unchecked. Validators are
    compiled here, once.

    :param schemas: a JSON schema, or ``[(APIVersion or None, schema),
        ...]`` oldest first.
    :returns: the decorator of a controller method.
    :raises ValueError: the versions do not strictly increase.
    """
    return _versioned('body', schemas, request_json, _body_message)


def query(schemas):
    """Validate the query string against the schema of its version.

    The query is checked as a dict of lists (a parameter may be given
    more than once; see ``single_param`` and ``multi_params``).

    :param schemas: as for ``body``.
    :returns: the decorator of a controller method.
    :raises ValueError: the versions do not strictly increase.
    """
    return _versioned('query', schemas,
                      lambda req: req.GET.dict_of_lists(), messages.query_message)


def single_param(schema):
    """Return the schema of a query parameter given at most once.

    :param schema: the schema of its value.
    :returns: the schema of its list of values (of one).
    """
    return {'type': 'array', 'items': schema, 'maxItems': 1}


def multi_params(schema):
    """Return the schema of a query parameter that may repeat.

    :param schema: the schema of each value.
    :returns: the schema of its list of values.
    """
    return {'type': 'array', 'items': schema}


def value_checker(schema, name):
    """Return a function validating one value (a URL segment, say).

    :param schema: the JSON schema of the value.
    :param name: what the value is, in the 400's message.
    :returns: ``check(value)``, raising
        nova_mini.exception.ValidationError (naming the failing field,
        never echoing a whole document) when it fails.
    """
    validator = _validator(schema)

    def check(instance):
        error = _first_error(validator, instance)
        if error is None:
            return
        # NOTE: name the failing field, never echo a whole document: it
        # may hold secrets (a node's driver_info passwords).
        if error.path:
            where = ' field /%s' % '/'.join(str(p) for p in error.path)
        elif isinstance(instance, (dict, list)):
            where = ''
        else:
            where = ' ' + messages.short(repr(instance))
        # messages.problem never quotes the value.
        raise exception.ValidationError(
            detail='Invalid %s%s. %s' % (name, where,
                                         messages.problem(error)))
    return check
