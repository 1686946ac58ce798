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

"""The text a regular expression requires (instance_filters.required_text)
and SQLite's ``LIKE`` before REGEXP that it makes: the same servers match
with it as without, for generated patterns and names (an in-memory SQLite
database with the REGEXP every connection has).
"""

import hypothesis
from hypothesis import strategies as st
import pytest
import regex
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.db import regexp
from nova_mini import exception
from nova_mini.objects.compute import instance_filters

_INSTANCES = models.Instance.__table__
# re warns of nested sets in the generated patterns ('[[:digit:]]').
pytestmark = pytest.mark.filterwarnings('ignore::FutureWarning')


@pytest.mark.parametrize('pattern, text', [
    ('4321$', '4321'),
    ('^srv-00012[0-9]', 'srv-00012'),
    ('web-[0-9]+-db', 'web-'),      # the longest run
    ('x(ab)+y', 'ab'),              # a group matched at least once
    ('(ab)cde', 'cde'),             # runs do not join across a group
    ('a?bcd', 'bcd'),               # an optional character is not required
    ('ab*c', 'a'),
    ('a{2}bcd', 'bcd'),             # a quantifier is not a literal brace
    ('(?=abc)d', 'd'),              # look-arounds require nothing
    ('a%_b', 'a%_b'),               # LIKE's wildcards are escaped, not lost
    (r'\.example\.com$', '.example.com'),
    ('caf\u00e9', 'caf\u00e9'),
    # Nothing every match contains.
    ('ab|cd', ''),
    ('(ab)?', ''),
    ('[0-9]+', ''),
    ('.*', ''),
    # Case ignored: LIKE folds ASCII only.
    ('(?i)abc', ''),
    ('(?i:ab)cd', 'cd'),
    # Read otherwise by the regex package (fuzzy matching, POSIX
    # classes), which SQLite runs.
    ('(abc){e<=1}', ''),
    ('[[:digit:]]4321', ''),
    (r'abc\}', ''),
    ('', ''),
])
def test_required_text(pattern, text):
    assert instance_filters.required_text(pattern) == text


def test_the_regex_package_reads_the_ambiguous_patterns_otherwise():
    """Why a pattern with a literal brace or bracket has no required text:
    the regex package (SQLite's REGEXP) matches names without it.
    """
    assert regex.search('(abc){e<=1}', 'abd')
    assert regex.search('[[:digit:]]4321', '04321')


@pytest.fixture(scope='module')
def engine():
    engine = sa.create_engine('sqlite://')
    sa.event.listen(engine, 'connect', regexp.sqlite_regexp)
    _INSTANCES.create(engine)
    yield engine
    engine.dispose()


def _matching(engine, condition):
    with engine.connect() as connection:
        return {row.name for row in connection.execute(
            sa.select(_INSTANCES.c.name).where(condition))}


def _fill(engine, names):
    with engine.begin() as connection:
        connection.execute(_INSTANCES.delete())
        connection.execute(_INSTANCES.insert(), [
            {'id': i, 'uuid': 'u%d' % i, 'flavor': '{}', 'vm_state': 'active',
             'name': name} for i, name in enumerate(names, 1)])


_LITERALS = ['a', 'b', 'A', 'ab', '4', '3', '%', '_', '/', '-', '\u00e9',
             '\u00c9', r'\\', r'\%', r'\.', ' ', '#', '\n']
_OTHER_ATOMS = ['.', '[ab]', '[^a]', r'\d', r'\w', '^', '$', r'\b', r'\1',
                '(?P=x)', '(?<=a)', '[[:digit:]]', '{', '}', ']']
_QUANTIFIERS = ['', '', '', '?', '*', '+', '{2}', '{0,2}', '{1,2}', '*?',
                '+?', '?+']


def _quantified(atoms):
    return st.tuples(atoms, st.sampled_from(_QUANTIFIERS)).map(''.join)


def _sequence(atoms):
    return st.lists(_quantified(atoms), max_size=5).map(''.join)


_ATOMS = st.recursive(
    st.sampled_from(_LITERALS + _OTHER_ATOMS),
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(['(', '(?:', '(?=', '(?!', '(?P<x>',
                                   '(?i:', '(?>']),
                  _sequence(inner)).map(lambda t: t[0] + t[1] + ')'),
        st.lists(_sequence(inner), min_size=2, max_size=3).map(
            lambda alternatives: '(%s)' % '|'.join(alternatives))),
    max_leaves=8)
_PATTERNS = st.tuples(st.sampled_from(['', '', '(?i)', '(?x)', '(?s)']),
                      _sequence(_ATOMS)).map(''.join)
_NAME_ALPHABET = 'abAB43%_/\\-.\u00e9\u00c9{}[]: x#\n'


@hypothesis.settings(max_examples=600, deadline=None, derandomize=True)
@hypothesis.given(
    pattern=_PATTERNS,
    names=st.lists(st.text(_NAME_ALPHABET, max_size=10), min_size=1,
                   max_size=12, unique=True))
def test_like_before_regexp_drops_no_match(engine, pattern, names):
    try:
        regexp.check('name', pattern)
    except exception.InvalidRegexFilter:
        hypothesis.assume(False)
    hypothesis.assume(not instance_filters.literal_prefix(pattern))
    text = instance_filters.required_text(pattern)
    # Every name the pattern matches (Python's search, as REGEXP) has it.
    # A pattern too costly to match is refused by the budget, not here.
    try:
        matched = {n for n in names
                   if regex.search(pattern, n, timeout=2, concurrent=True)}
    except (TimeoutError, MemoryError):
        hypothesis.assume(False)
    assert all(text in n for n in matched), (text, matched)
    _fill(engine, names)
    condition = instance_filters.regex_condition('name', pattern, 'sqlite')
    assert _matching(engine, condition) == matched
    assert _matching(engine, _INSTANCES.c.name.regexp_match(pattern)) == (
        matched)


def test_like_comes_first_on_sqlite_only():
    condition = instance_filters.regex_condition('name', '4321$', 'sqlite')
    sql = str(condition.compile(dialect=sa.dialects.sqlite.dialect()))
    assert sql.index('LIKE') < sql.index('REGEXP'), sql
    for dialect in ('postgresql', 'mysql'):
        condition = instance_filters.regex_condition('name', '4321$', dialect)
        assert 'LIKE' not in str(condition.compile(
            dialect=sa.dialects.registry.load(dialect)()))
    condition = instance_filters.regex_condition('launch_index', '12',
                                                 'sqlite')
    assert 'LIKE' not in str(condition.compile(
        dialect=sa.dialects.sqlite.dialect()))


@pytest.mark.parametrize('pattern, names', [
    # Case ignored beyond ASCII, which SQLite's LIKE does not fold.
    ('(?i)caf\u00e9', ['CAF\u00c9', 'caf\u00e9', 'cafe']),
    ('(?i:\u00e9)x', ['\u00c9x', '\u00e9x', 'ex']),
    # Optional parts, branches, look-aheads: nothing required from them.
    ('ab?c', ['ac', 'abc', 'bc']),
    ('(ab)?c', ['c', 'abc']),
    ('(?!ab)c', ['c', 'ac']),
    ('x(ab|cd)y', ['xcdy', 'xaby']),
    # The regex package's readings (fuzzy matching, POSIX classes).
    ('(abc){e<=1}', ['abd', 'xyz']),
    ('[[:digit:]]4321', ['04321', ']4321']),
    # LIKE's wildcards and escape character in the text.
    ('a%_/b', ['a%_/b', 'axxb', 'a%_b']),
])
def test_like_before_regexp_known_cases(engine, pattern, names):
    matched = {n for n in names if regex.search(pattern, n)}
    assert matched
    _fill(engine, names)
    condition = instance_filters.regex_condition('name', pattern, 'sqlite')
    assert _matching(engine, condition) == matched
