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

"""The request body parser: what it refuses, and what only looks like it."""

import gc
import json
import time
import tracemalloc

import hypothesis
from hypothesis import strategies as st
import pytest

from nova_mini.api import json_body


def _nested(depth):
    return '[' * depth + ']' * depth


@pytest.mark.parametrize('text', [
    _nested(32),
    # Brackets and quotes inside strings are text.
    '{"a": "%s"}' % ('[' * 100),
    '["\\"[[[", "]"]',
    '["\\\\", %s]' % _nested(31),
    # A backslash, then u0000: text.
    '["\\\\u0000"]',
    '["\\\\\\\\u0000"]',
    # A surrogate pair is one character.
    '["\\ud83d\\ude00"]',
    '[1e308, -1e308, 0.5]',
])
def test_accepted(text):
    """What the standard parser makes of it."""
    assert json_body.loads(text) == json.loads(text)
    assert json_body.loads(text.encode()) == json.loads(text)


@pytest.mark.parametrize('text, words', [
    (_nested(33), 'nested more than 32 levels'),
    ('{"a": "]]]]", "b": %s}' % _nested(33), 'nested more than 32 levels'),
    ('["\\"", %s]' % _nested(33), 'nested more than 32 levels'),
    ('[NaN]', 'holds NaN'),
    ('[Infinity]', 'holds Infinity'),
    ('[-Infinity]', 'holds -Infinity'),
    ('[1e309]', 'the number 1e309, too large'),
    ('["\\u0000"]', 'NUL character'),
    ('{"\\u0000": 1}', 'NUL character'),
    ('["\\\\\\u0000"]', 'NUL character'),     # \\ then \u0000
    ('["\\ud800"]', 'lone UTF-16 surrogate'),
    ('[%s]' % ','.join(['[]'] * 65537), 'more than 65536 arrays and objects'),
    ('[%s]' % ','.join(['{}'] * 65536), 'more than 65536 arrays and objects'),
    ('{"\\udc00": 1}', 'lone UTF-16 surrogate'),
])
def test_refused(text, words):
    with pytest.raises(json_body.RefusedJSON) as caught:
        json_body.loads(text)
    assert words in str(caught.value)


@pytest.mark.parametrize('text', [
    b'{', b'', b'\xff', b'{"a": 1} x', '9' * 5000, b'["\x00"]',
    # More closing brackets than opening ones.
    _nested(33) + ']', '[' * 33 + ']' * 100000])
def test_not_json(text):
    with pytest.raises(json_body.InvalidJSON) as caught:
        json_body.loads(text)
    assert not isinstance(caught.value, json_body.RefusedJSON)


def test_bodies_at_the_size_limit_parse_fast():
    # 114688 bytes: the body size limit of the API.
    # Each body with what it reads as (or the refusal's message).
    bodies = [
        ('[' + '[],' * 38000 + '[]]', [[]] * 38001),
        ('{"a": "%s"}' % ('\\\\' * 57000), {'a': '\\' * 57000}),
        ('[%s]' % ','.join(['"\\u00e9[{"'] * 9000), ['\u00e9[{'] * 9000),
        (_nested(57000), 'The request body is nested more than 32 levels '
                         'deep.'),
    ]
    # The parse's own CPU time (not the wall clock, which a loaded machine
    # stretches) with the cyclic GC off: the 38,000 lists of the first body
    # set off a full collection, which walks the whole process's heap and
    # so costs what the process holds, not what the parse does (alone
    # 25 ms for the parse; 0.3 s more in a run of the unit tests, once
    # 1.6 s more in a whole run, whose worker holds every module and fixture
    # of the suite). A parse quadratic in these bodies takes minutes.
    gc.disable()
    try:
        for body, expected in bodies:
            start = time.thread_time()
            try:
                got = json_body.loads(body)
            except json_body.RefusedJSON as exc:
                got = str(exc)
            spent = time.thread_time() - start
            assert spent < 0.5, (spent, body[:20])
            assert got == expected
    finally:
        gc.enable()


def test_containers_up_to_the_limit():
    text = '[%s]' % ','.join(['[]'] * 65535)
    assert json_body.loads(text) == [[]] * 65535


def _depth(value):
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


# Strings full of what the scan must read as text: brackets, quotes,
# backslashes, NUL-looking text.
_TEXT = st.text(alphabet=st.sampled_from(
    ['[', ']', '{', '}', '"', '\\', 'u', '0', 'a', '\u00e9', '\n']),
    max_size=12)
_VALUES = st.recursive(
    st.none() | st.integers() | _TEXT,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(_TEXT, children, max_size=4),
    max_leaves=60)


@hypothesis.settings(max_examples=400, deadline=None, derandomize=True)
@hypothesis.given(
    value=st.one_of(_VALUES, st.integers(30, 36).map(
        lambda depth: ['[{"', {'"\\': _nested_value(depth)}])),
    ensure_ascii=st.booleans())
def test_depth_is_the_values(value, ensure_ascii):
    """The scan's depth is the value's, whatever its strings hold."""
    text = json.dumps(value, ensure_ascii=ensure_ascii)
    if _depth(value) > json_body.MAX_DEPTH:
        with pytest.raises(json_body.RefusedJSON, match='nested more'):
            json_body.loads(text)
    else:
        assert json_body.loads(text) == value


def _nested_value(depth):
    value = '"]\\'
    for _ in range(depth - 2):
        value = [value]
    return value


_MiB = 1024 * 1024


def _bodies_of(size):
    """Bodies of ``size`` bytes (a node's provision request may be 64 MiB),
    each with what it reads as (or the refusal's message).
    """
    nested = '[' * 33 + '1' + ']' * 33
    return [
        # A config drive's text beside brackets enough to be scanned.
        ('{"a": %s, "b": "%s"}' % (nested, 'A' * (size - 100)),
         'The request body is nested more than 32 levels deep.'),
        ('{"a": [%s], "b": "%s"}' % (','.join(['[1]'] * 40),
                                     'A' * (size - 200)),
         {'a': [[1]] * 40, 'b': 'A' * (size - 200)}),
        # A string of escaped quotes that is never closed.
        ('[' * 33 + '"' + '\\"' * (size // 2),
         'The request body is nested more than 32 levels deep.'),
        # Escaped backslashes, then a NUL.
        ('["%s\\u0000"]' % ('\\\\' * (size // 2)),
         'The request body holds a NUL character (\\u0000), which no '
         'field accepts.'),
        ('[' + '[],' * (size // 3) + '[]]',
         'The request body holds more than 65536 arrays and objects.'),
    ]


def test_bodies_at_the_provision_limit_parse_in_linear_time_and_memory():
    """Bodies of 8 MiB: a scan that keeps state for each character or each
    escape would take GiB of memory (about 120 bytes a character), one
    that tries again from each quote would take hours.
    """
    size = 8 * _MiB
    bodies = _bodies_of(size)
    tracemalloc.start()
    gc.disable()
    try:
        for body, expected in bodies:
            tracemalloc.reset_peak()
            held = tracemalloc.get_traced_memory()[0]
            start = time.thread_time()
            try:
                got = json_body.loads(body)
            except json_body.RefusedJSON as exc:
                got = str(exc)
            spent = time.thread_time() - start
            peak = tracemalloc.get_traced_memory()[1] - held
            assert got == expected, body[:40]
            # The body is copied a few times (escapes removed, strings
            # removed, encoded), each at most its size.
            assert peak < 5 * size, (peak, body[:40])
            assert spent < 4, (spent, body[:40])
    finally:
        gc.enable()
        tracemalloc.stop()


# The request's parsed body (nova_mini.api.wsgi.APIRequest.json)

def _counting_request(data):
    import io

    import webob

    from nova_mini.api import wsgi

    class Counting(wsgi.APIRequest):
        reads = 0

        def _read(self):
            type(self).reads += 1
            return webob.Request.body.fget(self)

        body = property(_read, webob.Request.body.fset)

    environ = webob.Request.blank('/', method='POST').environ
    environ['wsgi.input'] = io.BytesIO(data)
    environ['CONTENT_LENGTH'] = str(len(data))
    environ['CONTENT_TYPE'] = 'application/json'
    return Counting(environ)


def test_request_body_read_once_and_parsed_once():
    req = _counting_request(b'{"a": [1, 2]}')
    assert req.json == {'a': [1, 2]}
    assert req.json is req.json
    assert type(req).reads == 1


def test_request_empty_body_is_none():
    req = _counting_request(b'')
    assert req.json is None
    assert type(req).reads == 1
