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

"""List filters a member could make expensive, on every backend: regular
expressions (a time budget, bounded patterns, the database's own refusals
answered 400), trait and tag filters (capped; more required than an item
can hold match nothing at once), next links that give back their query,
and markers naming a node the caller cannot see.
"""

import json
import logging
import threading
import time
from urllib import parse
import uuid

import pytest
import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.tests.fixtures import builders

DEMO = {'X-Auth-Token': 'demo:demo',
        'OpenStack-API-Version': 'compute 2.86'}
# An administrator, listing project demo's servers (every filter).
ADMIN_DEMO = dict(DEMO, **{'X-Auth-Token': 'admin:demo'})
ADMIN_BM = {'X-Auth-Token': 'admin:admin',
            'X-OpenStack-Ironic-API-Version': '1.65'}
COMPUTE = '/compute/v2.1'
BM = '/baremetal/v1'
# The budget of these tests' regular-expression filters, in seconds.
BUDGET = 0.5
# A request bounded by the budget answers well within this (it waits for
# CPU on a loaded test machine); unbounded, the patterns below run for
# minutes on a 30-character name.
QUICK = 15
NAME = 'a' * 29 + '!'
EVIL = ['(a+)+$', '(a|a)+$', '((a+)+)+$', '(a|aa)+$', '(a*)*$',
        '(.*a){25}$', '^(a?){30}a{30}$']


@pytest.fixture
def app(api_fixture_factory, backend, caplog):
    caplog.set_level(logging.INFO)
    return webtest.TestApp(api_fixture_factory(
        backend=backend,
        conf_overrides={'api.regex_filter_timeout': BUDGET}).app)


pytestmark = pytest.mark.usefixtures('no_traceback')


def _admin():
    return nm_context.get_admin_context()


def _boot(name, **values):
    return builders.boot_server(_admin(), str(uuid.uuid4()), name, **values)


def _servers(app, status=None, headers=DEMO, **query):
    return app.get('%s/servers?%s' % (COMPUTE, parse.urlencode(query)),
                   headers=headers, status=status or '*')


# Regular expressions

def test_evil_patterns_answer_within_the_budget(app):
    _boot(NAME, key_name=NAME)
    _boot('b' * 10, description=NAME * 8)
    for name, headers in (('name', DEMO), ('key_name', DEMO),
                          ('description', ADMIN_DEMO),
                          ('hostname', ADMIN_DEMO)):
        for pattern in EVIL:
            start = time.monotonic()
            response = _servers(app, headers=headers, **{name: pattern})
            elapsed = time.monotonic() - start
            assert elapsed < QUICK, (name, pattern, elapsed)
            assert response.status_int in (200, 400), response.text
            if response.status_int == 400:
                message = response.json['badRequest']['message']
                assert 'took more than' in message, message
                assert '%s seconds' % BUDGET in message


def test_a_slow_match_lets_other_threads_run(app, backend):
    """The match gives up the GIL: a heartbeat thread of the worker keeps
    beating while a member's pattern runs out its budget.
    """
    _boot(NAME)
    beats = []
    done = threading.Event()

    def heartbeat():
        while not done.is_set():
            beats.append(time.monotonic())
            time.sleep(0.01)    # the beat: the gaps are what is measured

    thread = threading.Thread(target=heartbeat)
    thread.start()
    try:
        start = time.monotonic()
        _servers(app, name='(a|a)+$')
        end = time.monotonic()
    finally:
        done.set()
        thread.join()
    during = [start] + [t for t in beats if start <= t <= end] + [end]
    gaps = [b - a for a, b in zip(during, during[1:])]
    # Holding the GIL, the match would leave one gap as long as itself.
    assert max(gaps) < BUDGET * 0.8, (max(gaps), end - start)


def test_patterns_no_server_can_stall_on_are_fast(app):
    _boot('web-1')
    _boot('web-2')
    _boot('db-1')
    listed = _servers(app, name='^web-[0-9]$', sort_key='display_name',
                      sort_dir='asc', status=200).json['servers']
    assert [s['name'] for s in listed] == ['web-1', 'web-2']


@pytest.mark.parametrize('pattern', ['web[', '(?P<', 'a{2,1}', '*a',
                                     '((aa{e<=1}a|))*'])
def test_invalid_pattern_is_400(app, pattern):
    _boot('web-1')
    response = _servers(app, status=400, name=pattern)
    message = response.json['badRequest']['message']
    assert message.startswith('Invalid regular expression for name: ')


# A pattern Python's syntax takes that a database refuses: too complex
# for PostgreSQL and MariaDB, or not in their syntax.
_DATABASE_REFUSES = {
    r'(((a{1,100}){1,100}){1,100}){1,100}': ('postgresql', 'mariadb'),
    '(?P<x>web)': ('postgresql',),
    r'\N{LATIN SMALL LETTER W}': ('postgresql', 'mariadb'),
}


@pytest.mark.parametrize('pattern', sorted(_DATABASE_REFUSES))
def test_pattern_the_database_refuses_is_400(app, backend, pattern):
    _boot('web-1')
    for name in ('name', 'hostname'):
        response = _servers(app, headers=ADMIN_DEMO, **{name: pattern})
        if backend in _DATABASE_REFUSES[pattern]:
            assert response.status_int == 400, response.text
            message = response.json['badRequest']['message']
            assert message.startswith(
                'Invalid regular expression for %s: ' % name), message
        else:
            assert response.status_int == 200, response.text


def test_pattern_length_is_capped(app):
    _boot('web-1')
    _servers(app, status=200, name='w' + '.?' * 127)
    response = _servers(app, status=400, name='w' + '.?' * 128)
    assert 'at most 255 characters' in (
        response.json['badRequest']['message'])


def test_config_drive_pattern_is_bounded(app):
    _boot('web-1')
    response = _servers(app, config_drive='(?P<')
    assert response.status_int == 400
    _servers(app, status=200, config_drive='(T|T)+rue')


def test_repeated_sort_keys_are_read_once(app):
    """500 sort keys (as many as an 8 KB request line holds) and a marker
    made the marker's condition half a million comparisons: minutes on
    SQLite, 13 s on PostgreSQL.
    """
    servers = [_boot('web-%d' % i) for i in range(3)]
    query = '&'.join(['sort_key=display_name'] * 250 +
                     ['sort_key=uuid', 'sort_dir=asc'] +
                     ['sort_key=display_name'] * 250)
    start = time.monotonic()
    listed = app.get('%s/servers?%s&marker=%s' % (
        COMPUTE, query, servers[0].uuid), headers=DEMO).json['servers']
    assert time.monotonic() - start < 5
    assert [s['name'] for s in listed] == ['web-1', 'web-2']


# Tag filters of servers (a server has at most 50 tags)

def test_server_tag_filters_are_capped(app):
    server = _boot('web-1', tags=['t1', 't2'])
    many = ','.join('t%d' % i for i in range(51))
    assert _servers(app, status=200, tags=many).json['servers'] == []
    for name in ('tags-any', 'not-tags', 'not-tags-any'):
        listed = _servers(app, status=200, **{name: many}).json['servers']
        assert [s['id'] for s in listed] == (
            [server.uuid] if name in ('tags-any', 'not-tags') else [])
    too_many = ','.join('t%d' % i for i in range(101))
    for name in ('tags', 'tags-any', 'not-tags', 'not-tags-any'):
        response = _servers(app, status=400, **{name: too_many})
        assert 'at most 100' in response.json['badRequest']['message']


# Trait filters of nodes (a node has at most 50 traits)

@pytest.fixture
def statements(app):
    """The SQL statements run meanwhile (their text)."""
    seen = []

    def record(conn, cursor, statement, parameters, context, many):
        seen.append(statement)

    engine = db_api.get_engine()
    sa.event.listen(engine, 'before_cursor_execute', record)
    yield seen
    sa.event.remove(engine, 'before_cursor_execute', record)


def _fault(response):
    """The message of an answer in Ironic's error format."""
    return json.loads(response.json['error_message'])['faultstring']


def _traits(count, start=0):
    return ','.join('CUSTOM_T%d' % i for i in range(start, start + count))


def _nodes(app, status=200, headers=ADMIN_BM, **query):
    return app.get('%s/nodes?%s' % (BM, parse.urlencode(query)),
                   headers=headers, status=status)


@pytest.fixture
def traited_nodes(app):
    admin = _admin()
    return [builders.create_node(admin, 'n%d' % i, traits=[
        'CUSTOM_T%d' % t for t in range(i, i + 50)]) for i in range(3)]


def test_more_required_traits_than_a_node_holds(app, traited_nodes,
                                                statements):
    names = [n['name'] for n in _nodes(app, traits=_traits(50, 2)).json[
        'nodes']]
    assert names == ['n2']
    del statements[:]
    start = time.monotonic()
    assert _nodes(app, traits=_traits(51)).json['nodes'] == []
    assert time.monotonic() - start < QUICK
    # Answered without asking the database about traits.
    assert not [s for s in statements if 'node_traits' in s]
    # Repeated names count once.
    many = ','.join(['CUSTOM_T2'] * 60)
    assert len(_nodes(app, traits=many).json['nodes']) == 3


@pytest.mark.parametrize('param', ['traits', 'not-traits', 'traits-any',
                                   'not-traits-any'])
def test_trait_filters_are_capped(app, traited_nodes, param):
    for count in (120, 600):
        start = time.monotonic()
        response = _nodes(app, status=400, **{param: _traits(count)})
        assert time.monotonic() - start < QUICK
        assert 'at most 100 traits' in _fault(response), response.text
    response = _nodes(app, **{param: _traits(100)})
    names = [n['name'] for n in response.json['nodes']]
    assert names == {'traits': [], 'not-traits': [],
                     'traits-any': ['n0', 'n1', 'n2'],
                     'not-traits-any': ['n0', 'n1', 'n2']}[param]


def test_not_traits_any_beyond_a_node_matches_every_node(app,
                                                         traited_nodes):
    names = [n['name'] for n in _nodes(
        app, **{'not-traits-any': _traits(51)}).json['nodes']]
    assert names == ['n0', 'n1', 'n2']


# Next links

_AWKWARD = ['a b', 'a&b=c', 'x+y', 'caf\u00e9 \u2603', '100%', '#frag']


def test_node_next_link_round_trips(app):
    admin = _admin()
    for value in _AWKWARD:
        for i in range(2):
            builders.create_node(admin, 'n-%d-%s' % (i, uuid.uuid4().hex),
                                 description='%s %d' % (value, i))
    for value in _AWKWARD:
        first = _nodes(app, description_contains=value, limit=1,
                       fields='name,description').json
        assert first['nodes'][0]['description'] == '%s 0' % value
        link = parse.urlsplit(first['next'])
        query = parse.parse_qs(link.query, strict_parsing=True)
        assert query['description_contains'] == [value]
        assert query['fields'] == ['name,description']
        assert query['limit'] == ['1']
        second = app.get('%s?%s' % (link.path, link.query),
                         headers=ADMIN_BM).json
        assert second['nodes'][0]['description'] == '%s 1' % value


def test_server_next_link_round_trips(app):
    for value in _AWKWARD:
        for i in range(2):
            _boot('%s %d' % (value, i))
    for value in _AWKWARD:
        pattern = '^%s [0-9]$' % value.replace('+', r'\+')
        first = _servers(app, status=200, name=pattern, limit=1,
                         sort_key='display_name', sort_dir='asc').json
        assert first['servers'][0]['name'] == '%s 0' % value
        link = parse.urlsplit(first['servers_links'][0]['href'])
        assert parse.parse_qs(link.query)['name'] == [pattern]
        second = app.get('%s?%s' % (link.path, link.query),
                         headers=DEMO).json
        assert second['servers'][0]['name'] == '%s 1' % value


# Markers

def test_marker_of_a_node_the_caller_cannot_see(app):
    admin = _admin()
    mine = builders.create_node(admin, 'mine', owner='demo')
    builders.create_node(admin, 'leased', lessee='demo')
    hidden = builders.create_node(admin, 'hidden', owner='other')
    member = dict(ADMIN_BM, **{'X-Auth-Token': 'demo:demo'})
    listed = _nodes(app, headers=member, marker=mine.uuid).json['nodes']
    assert [n['name'] for n in listed] == ['leased']
    missing = str(uuid.uuid4())
    unknown = _nodes(app, status=404, headers=member, marker=missing)
    invisible = _nodes(app, status=404, headers=member, marker=hidden.uuid)
    # The same answer as for a node that does not exist: Ironic's.
    assert _fault(invisible) == 'Node %s could not be found.' % hidden.uuid
    assert _fault(unknown) == 'Node %s could not be found.' % missing
    # An administrator pages past it.
    listed = _nodes(app, marker=hidden.uuid).json['nodes']
    assert listed == []


def test_marker_of_a_server_of_another_project(app):
    other = _boot('theirs', project_id='other')
    _boot('mine')
    response = _servers(app, status=400, marker=other.uuid)
    assert response.json['badRequest']['message'] == (
        'marker [%s] not found' % other.uuid)
