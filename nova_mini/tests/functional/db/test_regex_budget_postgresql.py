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

"""The regular expressions' budget on PostgreSQL (nova_mini.db.regexp):
what a filtered page of servers sends the database, and that the
budget's ``statement_timeout`` ends with the page's transaction, whether
the page was read or refused, on the connection the pool hands out next.
"""

import contextlib
import datetime

from oslo_config import fixture as config_fixture
import psycopg2.extensions
import pytest

from nova_mini import conf as nm_conf
from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.tests.fixtures import builders

NEWEST_FIRST = [('created_at', 'desc'), ('id', 'desc')]
START = datetime.datetime(2026, 1, 1)
# The transaction control the driver or the session sends: not counted.
# A pattern PostgreSQL is slow to match on a run of a.
SLOW = r'^(a*)(a*)(a*)(a*)(a*)\5\4\3\2\1!$'
_CONTROL = ('BEGIN', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE')


@pytest.fixture(scope='module')
def backend():
    """PostgreSQL only: the budget is its statement_timeout."""
    return 'postgresql'


@pytest.fixture
def admin(db):
    context = nm_context.get_admin_context()
    for n in range(1, 21):
        builders.boot_server(
            context, '6d1f3a52-0c4e-4b7a-9e21-%012d' % n, 'srv-%02d' % n,
            created_at=START + datetime.timedelta(minutes=n),
            tags=['t%d' % (n % 2)], metadata={'k': str(n)})
    return context


class _CountingCursor(psycopg2.extensions.cursor):
    """A cursor that notes each statement it sends (the real driver's)."""

    sent = None

    def execute(self, query, vars=None):
        text = query.decode() if isinstance(query, bytes) else query
        if not text.lstrip().upper().startswith(_CONTROL):
            self.sent.append(text)
        return super().execute(query, vars)


@contextlib.contextmanager
def _sent(engine):
    """Every statement sent meanwhile on the engine's connections, through
    SQLAlchemy or straight on their DB-API cursors.
    """
    sent = []
    counting = type('Counting', (_CountingCursor,), {'sent': sent})
    with contextlib.ExitStack() as stack:
        # Every connection the pool holds (and one more) counts.
        pooled = [stack.enter_context(engine.connect()).connection.
                  dbapi_connection
                  for _ in range(engine.pool.checkedin() + 1)]
    for dbapi in pooled:
        dbapi.cursor_factory = counting
    try:
        yield sent
    finally:
        for dbapi in pooled:
            dbapi.cursor_factory = None


def _timeouts(engine):
    """``statement_timeout`` on every connection of the pool."""
    with contextlib.ExitStack() as stack:
        connections = [stack.enter_context(engine.connect())
                       for _ in range(engine.pool.checkedin())]
        return {c.exec_driver_sql('SHOW statement_timeout').scalar()
                for c in connections}


def _page(context, pattern, limit=10):
    return objects.InstanceList.get_by_filters(
        context, {'project_id': 'demo', 'regex': [('name', pattern)]},
        NEWEST_FIRST, limit=limit)


def test_a_filtered_page_sends_four_statements(admin, db):
    assert db.engine.pool.size() >= 1
    with _sent(db.engine) as sent:
        page = _page(admin, '^srv-1')
    assert [i.name for i in page] == ['srv-19', 'srv-18', 'srv-17',
                                      'srv-16', 'srv-15', 'srv-14',
                                      'srv-13', 'srv-12', 'srv-11',
                                      'srv-10']
    assert all(i.metadata and i.tags for i in page)
    # The database takes the pattern and the budget in one statement; the
    # page, its metadata and its tags; no reset (SET LOCAL ends with the
    # transaction).
    assert len(sent) == 4, sent
    assert 'set_config' in sent[0] and '~' in sent[0]
    assert not [s for s in sent if 'statement_timeout' in s.lower()
                and 'set_config' not in s]


def test_the_budget_ends_with_the_page(admin, db):
    default = _timeouts(db.engine)
    assert default == {'0'}
    _page(admin, 'srv-0[0-9]$')
    assert _timeouts(db.engine) == default


def test_the_budget_ends_with_a_refused_page(admin, db):
    for n in range(21, 61):
        builders.boot_server(admin, '6d1f3a52-0c4e-4b7a-9e21-%012d' % n,
                             'a' * (2 * (n % 14) + 3) + '!')
    # Back references over an odd number of a, which they never match:
    # 0.5 s for these names on PostgreSQL, past a budget of 50 ms.
    fixture = config_fixture.Config(nm_conf.CONF)
    fixture.setUp()
    try:
        fixture.config(group='api', regex_filter_timeout=0.05)
        with pytest.raises(exception.RegexFilterTimeout):
            _page(admin, SLOW)
    finally:
        fixture.cleanUp()
    assert _timeouts(db.engine) == {'0'}
    # The next page on those connections has the whole budget again.
    assert [i.name for i in _page(admin, SLOW, limit=None)] == []


def test_the_budget_ends_with_a_refused_pattern(admin, db):
    with pytest.raises(exception.InvalidRegexFilter):
        _page(admin, '(?P<x>srv)')
    assert _timeouts(db.engine) == {'0'}
