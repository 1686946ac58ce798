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

"""Scheduler hints end to end in one process: the compute API casts the
build to a real scheduler RPC server (oslo.messaging's ``fake`` driver),
which reads the group or the named servers once per selection. Anti-
affinity spreads a group over nodes; affinity with a member already on
a node, or ``same_host``, ends in "no valid host" saying why (a node
holds one server); ``different_host`` keeps off the named server's node;
concurrent boots into one group keep its members quota exactly, with no
500.
"""

import time

import oslo_messaging as messaging
import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import rpc
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

# An image id (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'

V21 = '/compute/v2.1'
ADMIN = {'X-Auth-Token': 'admin:admin'}
DEMO = {'X-Auth-Token': 'demo:demo'}
ALL_FILTERS = ('ComputeCapabilitiesFilter,RamFilter,DiskFilter,CoreFilter,'
               'ImagePropertiesFilter,TraitsFilter,'
               'ServerGroupAntiAffinityFilter,ServerGroupAffinityFilter,'
               'SameHostFilter,DifferentHostFilter')
HOSTNAME = 'OS-EXT-SRV-ATTR:hypervisor_hostname'


def _stack(api_fixture_factory, **conf_overrides):
    fixture = api_fixture_factory(conf_overrides=conf_overrides)
    scheduler = manager.SchedulerManager('groups', fixture.conf)
    server = rpc.get_server(
        fixture.conf, messaging.Target(topic=rpcapi.TOPIC, server='groups'),
        [scheduler])
    server.start()
    builders.create_flavor(
        nm_context.get_admin_context(), 'bm', memory_mb=1024, vcpus=1,
        root_gb=10, extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                                 'resources:VCPU': '0',
                                 'resources:MEMORY_MB': '0',
                                 'resources:DISK_GB': '0'})
    return webtest.TestApp(fixture.app), server


@pytest.fixture
def app(api_fixture_factory):
    app, server = _stack(
        api_fixture_factory,
        **{'filter_scheduler.enabled_filters': ALL_FILTERS.split(',')})
    try:
        yield app
    finally:
        server.stop()
        server.wait()


def _nodes(count):
    admin = nm_context.get_admin_context()
    return [builders.create_node(
        admin, 'node-%d' % index, resource_class='baremetal',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(1, 1024, 10)).uuid
        for index in range(count)]


def _group(app, policy, headers=DEMO):
    return app.post_json(
        V21 + '/os-server-groups',
        {'server_group': {'name': policy, 'policy': policy}},
        headers=dict(headers, **{'OpenStack-API-Version': 'compute 2.64'})
    ).json['server_group']['id']


def _boot(app, hints, count=1, name='srv', status=202):
    response = app.post_json(
        V21 + '/servers',
        {'server': {'name': name, 'flavorRef': 'bm', 'imageRef': IMAGE,
                    'min_count': count},
         'os:scheduler_hints': hints}, headers=DEMO, status=status)
    return response.json


def _servers(app, name):
    return [server['id'] for server in app.get(
        V21 + '/servers?name=^%s' % name, headers=DEMO).json['servers']]


def _wait(app, server_id, timeout=15):
    deadline = time.monotonic() + timeout
    while True:
        server = app.get(V21 + '/servers/%s' % server_id,
                         headers=ADMIN).json['server']
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(0.05)


def test_anti_affinity_spreads_the_group(app):
    nodes = _nodes(3)
    group = _group(app, 'anti-affinity')
    _boot(app, {'group': group}, count=2, name='web')
    _boot(app, {'group': group}, name='last')
    servers = [_wait(app, uuid) for uuid in _servers(app, 'web') +
               _servers(app, 'last')]
    assert [server['status'] for server in servers] == ['ACTIVE'] * 3
    assert sorted(server[HOSTNAME] for server in servers) == sorted(nodes)
    members = app.get(V21 + '/os-server-groups/%s' % group,
                      headers=DEMO).json['server_group']['members']
    assert sorted(members) == sorted(server['id'] for server in servers)


def test_affinity_with_a_placed_member_is_no_valid_host(app):
    _nodes(2)
    group = _group(app, 'affinity')
    first = _boot(app, {'group': group}, name='first')['server']['id']
    assert _wait(app, first)['status'] == 'ACTIVE'
    second = _boot(app, {'group': group}, name='second')['server']['id']
    server = _wait(app, second)
    assert server['status'] == 'ERROR'
    assert server['fault']['message'] == (
        'No valid host was found. The ServerGroupAffinityFilter rejected '
        'the only candidate node: the affinity group already has a server '
        'on a node, and a node holds only one server.')
    # As in Nova, the failed server stays a member until it is deleted.
    members = app.get(V21 + '/os-server-groups/%s' % group,
                      headers=DEMO).json['server_group']['members']
    assert sorted(members) == sorted([first, second])
    app.delete(V21 + '/servers/%s' % second, headers=DEMO)
    members = app.get(V21 + '/os-server-groups/%s' % group,
                      headers=DEMO).json['server_group']['members']
    assert members == [first]


def test_affinity_for_two_servers_at_once_is_no_valid_host(app):
    _nodes(2)
    group = _group(app, 'affinity')
    _boot(app, {'group': group}, count=2, name='pair')
    for uuid in _servers(app, 'pair'):
        server = _wait(app, uuid)
        assert server['status'] == 'ERROR'
        assert ('an affinity group puts its servers on one node, and a node '
                'holds only one server: 2 were asked for at once'
                in server['fault']['message'])


def test_soft_policies_never_constrain(app):
    nodes = _nodes(2)
    group = _group(app, 'soft-affinity')
    _boot(app, {'group': group}, count=2, name='soft')
    servers = [_wait(app, uuid) for uuid in _servers(app, 'soft')]
    assert [server['status'] for server in servers] == ['ACTIVE'] * 2
    assert sorted(server[HOSTNAME] for server in servers) == sorted(nodes)


def test_same_host_is_no_valid_host(app):
    _nodes(2)
    first = _boot(app, {}, name='first')['server']['id']
    assert _wait(app, first)['status'] == 'ACTIVE'
    second = _boot(app, {'same_host': first}, name='second')['server']['id']
    server = _wait(app, second)
    assert server['status'] == 'ERROR'
    assert server['fault']['message'] == (
        'No valid host was found. The SameHostFilter rejected the only '
        'candidate node: same_host asks for the node of a named server, '
        'and a node holds only one server.')


def test_different_host_keeps_off_the_named_servers_nodes(app):
    nodes = _nodes(3)
    first = _boot(app, {}, name='first')['server']['id']
    first_node = _wait(app, first)[HOSTNAME]
    second = _boot(app, {'different_host': [first]},
                   name='second')['server']['id']
    server = _wait(app, second)
    assert server['status'] == 'ACTIVE'
    assert server[HOSTNAME] in set(nodes) - {first_node}


def test_group_filter_disabled_refuses_the_group(api_fixture_factory):
    app, server = _stack(api_fixture_factory, **{
        'filter_scheduler.enabled_filters': ['RamFilter']})
    try:
        group = _group(app, 'anti-affinity')
        response = _boot(app, {'group': group}, status=400)
        assert response['badRequest']['message'] == (
            'The group hint (a server group of policy anti-affinity) '
            'cannot be honoured: the ServerGroupAntiAffinityFilter is not '
            'enabled in this cloud ([filter_scheduler] enabled_filters). '
            'Boot without it, or ask the operator to enable the filter.')
        # A soft policy needs no filter.
        _boot(app, {'group': _group(app, 'soft-anti-affinity')})
        assert len(app.get(V21 + '/servers',
                           headers=DEMO).json['servers']) == 1
    finally:
        server.stop()
        server.wait()


@pytest.mark.parametrize('backend', [
    'sqlite', pytest.param('postgresql', marks=pytest.mark.postgresql)])
def test_concurrent_boots_keep_the_members_quota(api_fixture_factory,
                                                 backend):
    fixture = api_fixture_factory(backend=backend)
    builders.create_flavor(nm_context.get_admin_context(), 'bm',
                           memory_mb=1024, vcpus=1, root_gb=10)
    app = webtest.TestApp(fixture.app)
    # The group's members quota is what is tested: the project's
    # instances quota (10 too) is lifted, or a boot racing past both
    # could be refused for either.
    app.put_json(V21 + '/os-quota-sets/demo', {'quota_set': {
        'instances': -1, 'cores': -1, 'ram': -1}}, headers=ADMIN)
    group = _group(app, 'anti-affinity')
    statuses = []

    def boot(index):
        response = app.post_json(
            V21 + '/servers',
            {'server': {'name': 'c%d' % index, 'flavorRef': 'bm',
                        'imageRef': IMAGE, 'min_count': 3},
             'os:scheduler_hints': {'group': group}}, headers=DEMO,
            expect_errors=True)
        statuses.append(response.status_int)
        if response.status_int == 403:
            assert response.json['forbidden']['message'] == (
                'Quota exceeded, too many servers in group')

    assert threads.race(boot, 8) == []
    # 3 boots of 3 servers fit in 10; the others are refused, none fails.
    assert sorted(statuses) == [202] * 3 + [403] * 5
    members = app.get(V21 + '/os-server-groups/%s' % group,
                      headers=DEMO).json['server_group']['members']
    assert len(members) == 9
    listed = app.get(V21 + '/servers', headers=DEMO).json['servers']
    assert sorted(server['id'] for server in listed) == sorted(members)


@pytest.mark.parametrize('backend', [
    'sqlite', pytest.param('postgresql', marks=pytest.mark.postgresql)])
def test_odd_ids_and_offsets_are_no_500(api_fixture_factory, backend):
    app = webtest.TestApp(api_fixture_factory(backend=backend).app)
    _group(app, 'affinity')
    # (a NUL, '/%00', is refused before the route: test_bad_input.py)
    for path in ('/' + 'a' * 300, '/not-a-uuid'):
        for method in (app.get, app.delete):
            response = method(V21 + '/os-server-groups' + path,
                              headers=DEMO, status=404)
            assert response.json['itemNotFound']['message'].endswith(
                'could not be found.')
    response = app.get(V21 + '/os-server-groups?offset=%d&limit=%d'
                       % (10 ** 22, 10 ** 22), headers=DEMO)
    assert response.json == {'server_groups': []}


def test_same_host_text_that_is_no_uuid_names_no_server(app):
    # Nova's schema takes any string for same_host: it names no server.
    _nodes(1)
    # (a NUL in it is refused with the body: test_bad_input.py)
    server_id = _boot(app, {'same_host': 'web server'})['server']['id']
    server = _wait(app, server_id)
    assert server['status'] == 'ERROR'
    assert server['fault']['message'] == (
        'No valid host was found. The SameHostFilter rejected the only '
        'candidate node: no server named by the same_host hint is on a '
        'node.')
