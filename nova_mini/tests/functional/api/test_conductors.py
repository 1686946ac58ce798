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

"""The conductors registry through the API, on every database backend:
the heartbeat of a service (registered, refreshed, offline once stopped),
a conductor whose heartbeat timed out, and nodes spread over the alive
conductors (their ``conductor``, the ``conductor`` filter, the drivers'
``hosts``). gabbits/baremetal-conductors.yaml walks one host.
"""

import datetime
import uuid

from oslo_utils import timeutils
import sqlalchemy as sa
import webtest

from nova_mini.conductor import hash_ring
from nova_mini import conductor_heartbeat
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor
from nova_mini.tests.fixtures import builders

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}


def _get(app, path, status=200):
    return app.get('/baremetal/v1' + path, headers=HEADERS,
                   status=status).json


def _set_updated_at(url, hostname, when):
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(models.Conductor.__table__.update().where(
                models.Conductor.hostname == hostname).values(
                    updated_at=when))
    finally:
        engine.dispose()


def _api(api_fixture_factory, backend):
    fixture = api_fixture_factory(backend=backend)
    return fixture, webtest.TestApp(fixture.app)


def test_heartbeat_registers_refreshes_and_goes_offline(
        api_fixture_factory, backend):
    fixture, app = _api(api_fixture_factory, backend)
    heartbeat = conductor_heartbeat.Heartbeat(
        fixture.database.url, 'api-2.example.com', 60)
    heartbeat.start()
    try:
        shown = _get(app, '/conductors/api-2.example.com')
        assert shown['alive'] is True
        assert shown['drivers'] == ['fake-hardware']
        assert shown['hostname'] == 'api-2.example.com'
        # A beat refreshes a row that was getting old.
        old = timeutils.utcnow() - datetime.timedelta(seconds=30)
        _set_updated_at(fixture.database.url, 'api-2.example.com', old)
        assert heartbeat.beat()
        refreshed = timeutils.parse_isotime(
            _get(app, '/conductors/api-2.example.com')['updated_at'])
        assert refreshed.replace(tzinfo=None) > old + datetime.timedelta(
            seconds=20)
    finally:
        heartbeat.stop()
    # Stopped cleanly: still listed, not alive, no longer a driver's host.
    shown = _get(app, '/conductors/api-2.example.com')
    assert shown['alive'] is False
    listed = {c['hostname']: c['alive']
              for c in _get(app, '/conductors')['conductors']}
    assert listed == {fixture.conf.host: True, 'api-2.example.com': False}
    assert _get(app, '/drivers/fake-hardware')['hosts'] == [
        fixture.conf.host]
    # Started again, it is back.
    heartbeat.start()
    heartbeat.stop()
    heartbeat = conductor_heartbeat.Heartbeat(
        fixture.database.url, 'api-2.example.com', 60)
    heartbeat.start()
    try:
        assert _get(app, '/conductors/api-2.example.com')['alive'] is True
    finally:
        heartbeat.stop()


def test_heartbeat_thread_refreshes_on_its_own(api_fixture_factory):
    fixture, app = _api(api_fixture_factory, 'sqlite')
    heartbeat = conductor_heartbeat.Heartbeat(
        fixture.database.url, 'api-3', 1)
    heartbeat.start()
    try:
        old = timeutils.utcnow() - datetime.timedelta(seconds=3600)
        _set_updated_at(fixture.database.url, 'api-3', old)
        assert _get(app, '/conductors/api-3')['alive'] is False
        deadline = timeutils.utcnow() + datetime.timedelta(seconds=10)
        while not _get(app, '/conductors/api-3')['alive']:
            assert timeutils.utcnow() < deadline
            heartbeat._stopped.wait(0.2)
    finally:
        heartbeat.stop()


def test_a_conductor_whose_heartbeat_timed_out_is_not_alive(
        api_fixture_factory, backend):
    fixture, app = _api(api_fixture_factory, backend)
    admin = nm_context.get_admin_context()
    conductor.register_host(admin, 'api-dead')
    timeout = fixture.conf.conductor.heartbeat_timeout
    _set_updated_at(fixture.database.url, 'api-dead',
                    timeutils.utcnow() - datetime.timedelta(
                        seconds=timeout + 5))
    assert _get(app, '/conductors/api-dead')['alive'] is False
    assert _get(app, '/drivers/fake-hardware')['hosts'] == [
        fixture.conf.host]
    for _ in range(4):
        builders.create_node(admin, None)
    nodes = _get(app, '/nodes?fields=uuid,conductor')['nodes']
    assert {node['conductor'] for node in nodes} == {fixture.conf.host}
    assert _get(app, '/nodes?conductor=api-dead')['nodes'] == []
    assert len(_get(app, '/nodes?conductor=%s' % fixture.conf.host)[
        'nodes']) == 4


def test_nodes_are_spread_over_the_alive_conductors(api_fixture_factory,
                                                    backend):
    fixture, app = _api(api_fixture_factory, backend)
    admin = nm_context.get_admin_context()
    conductor.register_host(admin, 'api-b')
    hosts = sorted([fixture.conf.host, 'api-b'])
    assert _get(app, '/drivers/fake-hardware')['hosts'] == hosts
    assert [d['hosts'] for d in _get(app, '/drivers')['drivers']] == [hosts]
    for _ in range(6):
        builders.create_node(admin, None)
    nodes = _get(app, '/nodes?fields=uuid,conductor')['nodes']
    by_host = {}
    for node in nodes:
        by_host.setdefault(node['conductor'], set()).add(node['uuid'])
        # Each service shows the same conductor for a node.
        assert _get(app, '/nodes/%s?fields=conductor' % node['uuid'])[
            'conductor'] == node['conductor']
    assert sorted(by_host) == hosts
    for host in hosts:
        listed = _get(app, '/nodes?conductor=%s' % host)['nodes']
        assert {node['uuid'] for node in listed} == by_host[host]


def test_the_list_is_paged_by_hostname(api_fixture_factory):
    fixture, app = _api(api_fixture_factory, 'sqlite')
    admin = nm_context.get_admin_context()
    conductor.register_host(admin, 'api-b')
    first = _get(app, '/conductors?limit=1&sort_key=hostname')
    assert len(first['conductors']) == 1
    marker = first['conductors'][0]['hostname']
    assert first['next'].endswith('/baremetal/v1/conductors?'
                                  'sort_key=hostname&limit=1&marker=%s'
                                  % marker)
    second = _get(app, first['next'].split('/baremetal/v1', 1)[1])
    assert [c['hostname'] for c in second['conductors']] == sorted(
        set([fixture.conf.host, 'api-b']) - {marker})
    desc = _get(app, '/conductors?sort_key=hostname&sort_dir=desc')
    assert [c['hostname'] for c in desc['conductors']] == sorted(
        [fixture.conf.host, 'api-b'], reverse=True)


def test_redfish_nodes_show_the_hash_ring_host(api_fixture_factory,
                                               backend):
    # Two nova-mini-conductors drive redfish, two API services
    # fake-hardware: each kind of node shows, and is filtered by, a
    # conductor of its own kind; a redfish node is the hash ring's.
    fixture, app = _api(api_fixture_factory, backend)
    admin = nm_context.get_admin_context()
    conductor.register_host(admin, 'api-b')
    for host in ('cond-a', 'cond-b'):
        conductor.register_host(admin, host, ['redfish'])
    hash_ring.reset()
    apis = sorted([fixture.conf.host, 'api-b'])
    fake = [builders.create_node(admin, 'f%d' % i) for i in range(6)]
    redfish = [builders.create_node(admin, 'r%d' % i, driver='redfish',
                                    uuid=str(uuid.UUID(int=i + 1)))
               for i in range(12)]
    # No conductor of its group drives it: none.
    other = builders.create_node(admin, 'other', driver='redfish',
                                 conductor_group='rack-9')
    ring = {node.uuid: hash_ring.host_for(admin, node) for node in redfish}
    assert set(ring.values()) == {'cond-a', 'cond-b'}
    listed = {node['uuid']: node['conductor'] for node in _get(
        app, '/nodes?fields=uuid,conductor&limit=100')['nodes']}
    for node in redfish:
        assert listed[node.uuid] == ring[node.uuid]
        assert _get(app, '/nodes/%s?fields=conductor' % node.uuid)[
            'conductor'] == ring[node.uuid]
    assert {listed[node.uuid] for node in fake} == set(apis)
    assert listed[other.uuid] is None
    for host in ('cond-a', 'cond-b'):
        want = sorted(u for u, h in ring.items() if h == host)
        got = _get(app, '/nodes?conductor=%s&fields=uuid' % host)['nodes']
        assert sorted(node['uuid'] for node in got) == want
        # Paged: the same nodes, two at a time.
        seen, path = [], '/nodes?conductor=%s&fields=uuid&limit=2' % host
        while path:
            page = _get(app, path)
            seen += [node['uuid'] for node in page['nodes']]
            path = page.get('next', '').split('/baremetal/v1', 1)[-1]
        assert sorted(seen) == want
    for host in apis:
        got = {node['uuid'] for node in _get(
            app, '/nodes?conductor=%s&fields=uuid' % host)['nodes']}
        assert got == {node.uuid for node in fake
                       if listed[node.uuid] == host}
    # A conductor that died: its nodes go to the other one.
    _set_updated_at(fixture.database.url, 'cond-b',
                    timeutils.utcnow() - datetime.timedelta(days=1))
    hash_ring.reset()
    assert _get(app, '/nodes?conductor=cond-b')['nodes'] == []
    assert len(_get(app, '/nodes?conductor=cond-a')['nodes']) == 12
    listed = _get(app, '/nodes?fields=uuid,driver,conductor')['nodes']
    assert {node['conductor'] for node in listed
            if node['driver'] == 'redfish' and
            node['uuid'] != other.uuid} == {'cond-a'}


def test_fake_hardware_nodes_have_no_conductor_without_an_api(
        api_fixture_factory):
    # Only nova-mini-conductors alive: a fake-hardware node has none
    # (never a conductor that does not drive fake-hardware).
    fixture, app = _api(api_fixture_factory, 'sqlite')
    admin = nm_context.get_admin_context()
    conductor.register_host(admin, 'cond-a', ['redfish'])
    _set_updated_at(fixture.database.url, fixture.conf.host,
                    timeutils.utcnow() - datetime.timedelta(days=1))
    hash_ring.reset()
    node = builders.create_node(admin, 'f')
    assert _get(app, '/nodes/%s?fields=conductor' % node.uuid)[
        'conductor'] is None
    assert _get(app, '/nodes?conductor=cond-a')['nodes'] == []
