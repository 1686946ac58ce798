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

"""The one JSON parser of request bodies (both API roots, the sample
vendordata service): strict JSON, bounded.

Python's ``json`` accepts more than JSON and more than the rest of the
service can hold, each of which was a 500 somewhere later:

- ``NaN``, ``Infinity``, ``-Infinity`` and numbers too large for a float
  (``1e999`` becomes ``inf``): not JSON, refused by SQLite's REAL columns,
  and written back out they make answers that are not JSON either;
- nesting without bound: the parser, jsonschema and the encoders recurse
  (``RecursionError``);
- arrays and objects without number: a body of 64 MiB (a node's provision
  request, which may carry a config drive) could hold 20 million, a few
  GiB once parsed;
- ``\\u0000``: PostgreSQL stores no NUL in text or jsonb;
- ``\\ud800`` alone (a lone UTF-16 surrogate): not text, no database
  driver can encode it.

This module imports nothing of the API, so that every service may use it.
"""

import itertools
import json
import math
import re

# Deeper than any body of Nova's or Ironic's API (a server create is 4
# levels, a node's deploy steps 5); and shallow enough that validating or
# encoding it stays far from Python's recursion limit.
MAX_DEPTH = 32
# More than any body of Nova's or Ironic's API holds, and more than a body
# under the default size limit (114688 bytes, 2 bytes an array at least)
# can hold: only larger bodies are limited by it.
MAX_CONTAINERS = 65536

# A string in a JSON text, once its escaped backslashes and quotes are
# gone: what is inside it is not structure. A single-character repeat
# (linear time, constant memory; a repeated group keeps state for each
# escape, GiB for a body of them); a string that is not closed runs to
# the end of the text, as the parser reads it, rather than being tried
# again from each of its quotes.
_STRING = re.compile(r'"[^"]*(?:"|\Z)')
# Every byte but brackets (bytes.translate deletes them in one copy).
_NOT_BRACKETS = bytes(sorted(set(range(256)) - set(b'[]{}')))
_SURROGATE_ESCAPE = re.compile(r'\\u[dD][89a-fA-F]')


class InvalidJSON(ValueError):
    """The body is not JSON (or not UTF-8)."""


class RefusedJSON(InvalidJSON):
    """The body is JSON, or what Python's parser takes for JSON, that
    this service refuses; the message says why (for the 400).
    """


def _refuse_constant(name):
    raise RefusedJSON('holds %s, which is not a JSON number.' % name)


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise RefusedJSON('holds the number %.40s, too large for a '
                          'floating-point number.' % text)
    return value


def finite_loads(data):
    """``json.loads`` of JSON's numbers only: ``NaN``, ``Infinity`` and
    numbers too large for a float (``1e999`` would be ``inf``) refused.

    :param data: a JSON text (str or bytes).
    :raises RefusedJSON: such a number; its message is what the text
        "holds ...", to follow the name of what was parsed.
    :raises ValueError: not JSON.
    """
    return json.loads(data, parse_constant=_refuse_constant,
                      parse_float=_finite_float)


def _check_structure(text):
    """Refuse ``text`` if its arrays and objects nest deeper than MAX_DEPTH
    or number more than MAX_CONTAINERS (a text with few brackets is not
    scanned).

    :raises RefusedJSON: either.
    :raises InvalidJSON: more closing brackets than opening ones.
    """
    if text.count('[') + text.count('{') <= MAX_DEPTH:
        return      # the common case: no scan needed
    # Escapes read from the left (``\\\\`` first), as the parser does.
    unescaped = text.replace('\\\\', '').replace('\\"', '')
    brackets = _STRING.sub('', unescaped).encode(
        'utf-8', 'surrogatepass').translate(None, _NOT_BRACKETS)
    openers = brackets.count(b'[') + brackets.count(b'{')
    if openers > MAX_CONTAINERS:
        raise RefusedJSON('The request body holds more than %d arrays and '
                          'objects.' % MAX_CONTAINERS)
    if len(brackets) > 2 * openers:
        raise InvalidJSON('The request body is not valid JSON.')
    if openers > MAX_DEPTH and max(itertools.accumulate(
            1 if byte in b'[{' else -1 for byte in brackets)) > MAX_DEPTH:
        raise RefusedJSON('The request body is nested more than %d levels '
                          'deep.' % MAX_DEPTH)


def loads(data):
    """Parse a request body.

    :param data: the body, bytes (UTF-8) or str.
    :returns: the decoded value.
    :raises InvalidJSON: not UTF-8, or not JSON.
    :raises RefusedJSON: (an InvalidJSON) refused, see the module's
        docstring; the message is meant for the client.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode('utf-8')
        except UnicodeDecodeError:
            raise InvalidJSON('The request body is not UTF-8.')
    else:
        text = data
    _check_structure(text)
    # ``\u0000`` once escaped backslashes are gone (``\\u0000`` is a
    # backslash and the text u0000).
    if '\\u0000' in text and '\\u0000' in text.replace('\\\\', ''):
        raise RefusedJSON('The request body holds a NUL character '
                          '(\\u0000), which no field accepts.')
    try:
        value = finite_loads(text)
    except RefusedJSON as exc:
        raise RefusedJSON('The request body %s' % exc) from None
    except (ValueError, RecursionError):
        # RecursionError: only if MAX_DEPTH is raised past the limit.
        raise InvalidJSON('The request body is not valid JSON.')
    if _SURROGATE_ESCAPE.search(text):
        try:
            json.dumps(value, ensure_ascii=False).encode('utf-8')
        except UnicodeEncodeError:
            raise RefusedJSON('The request body holds a lone UTF-16 '
                              'surrogate (\\ud800-\\udfff), which is not '
                              'text.')
    return value
