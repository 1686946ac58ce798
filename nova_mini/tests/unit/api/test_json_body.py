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
    ('{"\\udc00": 1}', 'lone UTF-16 surrogate'),
])
def test_refused(text, words):
    with pytest.raises(json_body.RefusedJSON) as caught:
        json_body.loads(text)
    assert words in str(caught.value)


@pytest.mark.parametrize('text', [
    b'{', b'', b'\xff', b'{"a": 1} x', '9' * 5000, b'["\x00"]'])
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
