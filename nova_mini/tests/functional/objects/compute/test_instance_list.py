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

"""Server lists in SQL (InstanceList.get_by_filters) on SQLite and
PostgreSQL: filters, sort orders and markers as the compute API asks
them, and a fixed number of queries whatever the number of servers.
"""

import contextlib
import datetime

import pytest
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini import objects
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

NODE = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a'
NEWEST_FIRST = [('created_at', 'desc'), ('id', 'desc')]
START = datetime.datetime(2026, 1, 1)


def _uuid(n):
    return '6d1f3a52-0c4e-4b7a-9e21-%012d' % n


def _boot(context, n, name, flavorid='bm', **values):
    """Server n, created n minutes after START."""
    return builders.boot_server(
        context, _uuid(n), name,
        flavor=builders.make_flavor(context, flavorid),
        created_at=START + datetime.timedelta(minutes=n),
        updated_at=START + datetime.timedelta(minutes=n), **values)


@pytest.fixture
def servers(admin):
    """Five servers of demo and one of alt, oldest first."""
    made = [
        _boot(admin, 1, 'web-1', tags=['red', 'blue']),
        _boot(admin, 2, 'web-2', tags=['red'], image_ref='c0ffee00-0000-4000-8000-000000000002'),
        _boot(admin, 3, 'db-1', flavorid='big', config_drive=True),
        _boot(admin, 4, 'Web 3', tags=['blue'], description='third web'),
        _boot(admin, 5, 'cache', launch_index=7),
        _boot(admin, 6, 'web-alt', project_id='alt'),
    ]
    assert made[0].mark_active(NODE)
    return made


def _names(context, filters, sort=NEWEST_FIRST, **kwargs):
    return [i.name for i in objects.InstanceList.get_by_filters(
        context, filters, sort, **kwargs)]


def _test_id(value):
    """A test id that is the same in every process: sets in sorted order
    (pytest-xdist's workers, with their own hash seeds, must collect the
    same ids); no ':' (see tests/conftest.py).
    """
    if isinstance(value, (set, frozenset)):
        text = '{%s}' % ', '.join(sorted(repr(v) for v in value))
    elif isinstance(value, dict):
        text = '{%s}' % ', '.join('%r= %s' % (k, _test_id(v))
                                  for k, v in value.items())
    elif isinstance(value, (list, tuple)):
        text = '[%s]' % ', '.join(_test_id(v) for v in value)
    else:
        text = repr(value)
    return text.replace(':', '=')


@pytest.mark.parametrize('filters, expected', [
    ({}, ['web-alt', 'cache', 'Web 3', 'db-1', 'web-2', 'web-1']),
    ({'project_id': 'alt'}, ['web-alt']),
    ({'owner': 'demo'}, ['cache', 'Web 3', 'db-1', 'web-2', 'web-1']),
    # Regular expressions: Python's re.search on SQLite.
    ({'regex': [('name', '^web')]}, ['web-alt', 'web-2', 'web-1']),
    ({'regex': [('name', '^web-[12]$')]}, ['web-2', 'web-1']),
    ({'regex': [('name', '1$')]}, ['db-1', 'web-1']),
    ({'regex': [('name', '(?i)^web')]},
     ['web-alt', 'Web 3', 'web-2', 'web-1']),
    ({'regex': [('name', '^we*b')]}, ['web-alt', 'web-2', 'web-1']),
    ({'regex': [('name', '^web'), ('name', 'alt')]}, ['web-alt']),
    ({'regex': [('hostname', '^web-3$')]}, ['Web 3']),
    ({'regex': [('node_uuid', '.')]}, ['web-1']),
    ({'regex': [('description', 'web')]}, ['Web 3']),
    ({'regex': [('launch_index', '^7$')]}, ['cache']),
    ({'flavorid': 'big'}, ['db-1']),
    ({'image_ref': 'c0ffee00-0000-4000-8000-000000000002'}, ['web-2']),
    ({'config_drive': {True}}, ['db-1']),
    ({'config_drive': set()}, []),
    ({'vm_states': [{'active'}]}, ['web-1']),
    ({'vm_states': [{'active'}, {'building'}]}, []),
    ({'not_vm_states': [{'active'}], 'project_id': 'demo'},
     ['cache', 'Web 3', 'db-1', 'web-2']),
    ({'nothing': True}, []),
    # Tags.
    ({'tags': {'red', 'blue'}}, ['web-1']),
    ({'tags': {'red', ''}}, []),
    ({'tags_any': {'blue', 'green'}}, ['Web 3', 'web-1']),
    ({'not_tags': {'red', 'blue'}, 'project_id': 'demo'},
     ['cache', 'Web 3', 'db-1', 'web-2']),
    ({'not_tags_any': {'red'}, 'project_id': 'demo'},
     ['cache', 'Web 3', 'db-1']),
    # Times.
    ({'changes_before': START + datetime.timedelta(minutes=2)},
     ['web-2']),
], ids=_test_id)
def test_filters(admin, servers, filters, expected):
    assert _names(admin, filters) == expected


def test_changes_since(admin, servers):
    # web-1 changed when its build finished.
    since = START + datetime.timedelta(minutes=5)
    assert _names(admin, {'changes_since': since}) == [
        'web-alt', 'cache', 'web-1']


@pytest.mark.parametrize('sort', [
    [('name', 'asc'), ('created_at', 'asc'), ('id', 'asc')],
    [('image_ref', 'desc'), ('name', 'asc'), ('created_at', 'desc'),
     ('id', 'desc')],
    [('description', 'asc'), ('created_at', 'desc'), ('id', 'desc')],
    [('description', 'desc'), ('created_at', 'desc'), ('id', 'desc')],
    [(('vm_state', 'active'), 'desc'), ('created_at', 'asc'),
     ('id', 'asc')],
    [('node_uuid', 'asc'), ('launch_index', 'desc'), ('created_at', 'desc'),
     ('id', 'desc')],
], ids=_test_id)
def test_marker_pages_walk_the_sorted_list(admin, servers, sort):
    everything = _names(admin, {'project_id': 'demo'}, sort)
    assert sorted(everything) == sorted(
        i.name for i in servers if i.project_id == 'demo')
    walked, marker = [], None
    while True:
        page = objects.InstanceList.get_by_filters(
            admin, {'project_id': 'demo'}, sort, limit=2, marker=marker)
        walked.extend(i.name for i in page)
        if len(page) < 2:
            break
        marker = page[-1].uuid
    assert walked == everything


def test_marker_places_the_page_even_filtered_out(admin, servers):
    # db-1 does not match, yet the page starts after it.
    assert _names(admin, {'project_id': 'demo', 'regex': [('name', '^w')]},
                  marker=_uuid(3)) == ['web-2', 'web-1']


def test_unknown_marker(admin, servers):
    with pytest.raises(exception.MarkerNotFound):
        _names(admin, {'project_id': 'demo'}, marker='not-a-server')
    # Another project's server is no marker of this project's list...
    with pytest.raises(exception.MarkerNotFound):
        _names(admin, {'project_id': 'demo'}, marker=_uuid(6))
    # ...but is one of every project's list, even filtered by project.
    assert _names(admin, {'owner': 'demo'}, marker=_uuid(6)) == [
        'cache', 'Web 3', 'db-1', 'web-2', 'web-1']


def test_page_carries_metadata_and_tags(admin, servers):
    page = objects.InstanceList.get_by_filters(
        admin, {'tags_any': {'blue'}}, NEWEST_FIRST, limit=1)
    assert [(i.name, i.tags) for i in page] == [('Web 3', ['blue'])]


def test_renaming_moves_the_hostname(admin, servers):
    servers[4].update_details(name='Big Cache')
    assert _names(admin, {'regex': [('hostname', '^big-cache$')]}) == [
        'Big Cache']


@contextlib.contextmanager
def _statements():
    engine = db_api.get_engine()
    seen = []

    def count(conn, cursor, statement, *args):
        if not statement.lstrip().upper().startswith(
                ('SAVEPOINT', 'RELEASE', 'ROLLBACK', 'COMMIT', 'BEGIN')):
            seen.append(statement)
    sa.event.listen(engine, 'before_cursor_execute', count)
    try:
        yield seen
    finally:
        sa.event.remove(engine, 'before_cursor_execute', count)


# The statements that put the regular expressions' budget on the page's
# query and take it off (nova_mini.db.regexp): on MariaDB the session's;
# on PostgreSQL none (the check of the pattern, on the DB-API cursor, sets
# it for the transaction: tests/functional/db/test_regex_budget_postgresql).
_BUDGET_STATEMENTS = {'sqlite': 0, 'postgresql': 0, 'mariadb': 2}


@pytest.mark.parametrize('marker', [None, _uuid(40)])
def test_a_fixed_number_of_queries(admin, backend, marker):
    for n in range(1, 41):
        _boot(admin, n, 'srv-%d' % n, tags=['t%d' % (n % 3)],
              metadata={'k': str(n)})
    filters = {'project_id': 'demo', 'tags_any': {'t1', 't2'},
               'regex': [('name', '^srv-')]}
    counts = []
    for limit in (1, 10, 20):
        with _statements() as seen:
            page = objects.InstanceList.get_by_filters(
                admin, filters, NEWEST_FIRST, limit=limit, marker=marker)
        assert len(page) == limit
        assert all(i.metadata and i.tags for i in page)
        counts.append(len(seen))
    # The page, its metadata, its tags (and the marker's place).
    assert counts == [(3 if marker is None else 4) +
                      _BUDGET_STATEMENTS[backend]] * 3


def test_overdue_builds_expire_in_one_go(admin, servers):
    expired = objects.InstanceList.expire_overdue_builds(admin, 'demo', 60)
    # Every building server of demo (web-1 is active, web-alt is alt's).
    assert expired == 4
    states = {i.name: i.vm_state for i in objects.InstanceList.get_by_filters(
        admin, {}, NEWEST_FIRST)}
    assert states == {'web-1': 'active', 'web-2': 'error', 'db-1': 'error',
                      'Web 3': 'error', 'cache': 'error',
                      'web-alt': 'building'}
    assert objects.InstanceList.expire_overdue_builds(admin, None, 60) == 1
    assert objects.InstanceList.expire_overdue_builds(admin, None, 60) == 0
    fault = objects.Instance.get_by_uuid(admin, _uuid(2)).fault
    assert fault['message'].startswith('Timed out waiting for a scheduler')
