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

# A string in a JSON text: what is inside it is not structure.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(r'[^\[\]{}]+')
# ``\u0000`` after an even number of backslashes (``\\u0000`` is a
# backslash and the text u0000).
_NUL_ESCAPE = re.compile(r'(?<!\\)(?:\\\\)*\\u0000')
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


def _depth(text):
    """How deep arrays and objects nest in ``text``, or more: a text
    with few brackets is not scanned.
    """
    openers = text.count('[') + text.count('{')
    if openers <= MAX_DEPTH:
        return openers      # the common case: no scan needed
    brackets = _BRACKETS.sub('', _STRING.sub('', text))
    return max(itertools.accumulate(
        1 if char in '[{' else -1 for char in brackets), default=0)


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
    if _depth(text) > MAX_DEPTH:
        raise RefusedJSON('The request body is nested more than %d levels '
                          'deep.' % MAX_DEPTH)
    if '\\u0000' in text and _NUL_ESCAPE.search(text):
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
