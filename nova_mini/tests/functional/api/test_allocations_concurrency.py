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

"""Allocations under dozens of concurrent clients of the whole WSGI app,
on every test backend: no 5xx, no node given twice (to two allocations,
or to an allocation and a server's claim), every allocation ``active``
with its own node or ``error``; deleting them all at once frees every
node.
"""

import threading

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

CLIENTS = 36
NODES = 6
HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.60'}


@pytest.fixture
def api(api_fixture_factory, backend):
    app = webtest.TestApp(api_fixture_factory(backend=backend).app)
    admin = nm_context.get_admin_context()
    for index in range(NODES):
        builders.create_node(admin, 'gold-%d' % index, ['CUSTOM_FAST'],
                             resource_class='gold',
                             provision_state='available',
                             power_state='power off')
    return app


def _bodies(api, responses, lock, index, response):
    assert response.status_int < 500, response.text
    with lock:
        responses[index] = response


def test_no_node_is_booked_twice(api):
    responses = {}
    lock = threading.Lock()

    def create(index):
        _bodies(api, responses, lock, index, api.post_json(
            '/baremetal/v1/allocations',
            {'resource_class': 'gold', 'traits': ['CUSTOM_FAST'],
             'name': 'a-%d' % index},
            headers=HEADERS, expect_errors=True))

    assert threads.race(create, CLIENTS) == []
    assert all(r.status_int == 201 for r in responses.values())
    stored = api.get('/baremetal/v1/allocations',
                     headers=HEADERS).json['allocations']
    assert len(stored) == CLIENTS
    active = [a for a in stored if a['state'] == 'active']
    failed = [a for a in stored if a['state'] == 'error']
    assert len(active) == NODES
    assert len(failed) == CLIENTS - NODES
    assert len({a['node_uuid'] for a in active}) == NODES
    assert all(f['node_uuid'] is None and f['last_error'] for f in failed)
    # Each node is held by the allocation naming it, and shows it.
    nodes = api.get('/baremetal/v1/nodes/detail',
                    headers=HEADERS).json['nodes']
    by_node = {a['node_uuid']: a['uuid'] for a in active}
    assert {n['uuid']: n['allocation_uuid'] for n in nodes} == by_node
    assert {n['uuid']: n['instance_uuid'] for n in nodes} == by_node

    def delete(index):
        name = 'a-%d' % index
        _bodies(api, responses, lock, index, api.delete(
            '/baremetal/v1/allocations/' + name, headers=HEADERS,
            expect_errors=True))

    assert threads.race(delete, CLIENTS) == []
    assert all(r.status_int == 204 for r in responses.values())
    nodes = api.get('/baremetal/v1/nodes/detail',
                    headers=HEADERS).json['nodes']
    assert all(n['instance_uuid'] is None and n['allocation_uuid'] is None
               for n in nodes)
    assert api.get('/baremetal/v1/allocations',
                   headers=HEADERS).json['allocations'] == []


def test_allocations_and_server_claims_share_no_node(api):
    admin = nm_context.get_admin_context()
    nodes = [node.uuid for node in objects.NodeList.get_all(admin).objects]
    responses = {}
    lock = threading.Lock()
    claimed = {}

    def race(index):
        if index % 2:
            _bodies(api, responses, lock, index, api.post_json(
                '/baremetal/v1/allocations', {'resource_class': 'gold'},
                headers=HEADERS, expect_errors=True))
            return
        # A scheduler claiming the nodes in turn for a server, as
        # FilterScheduler does.
        server = 'c0000000-0000-4000-8000-%012d' % index
        for node in nodes:
            if objects.Node.claim(admin, node, server):
                with lock:
                    claimed[server] = node
                return

    assert threads.race(race, CLIENTS) == []
    assert all(r.status_int == 201 for r in responses.values())
    allocated = [a['node_uuid'] for a in api.get(
        '/baremetal/v1/allocations', headers=HEADERS).json['allocations']
        if a['state'] == 'active']
    taken = allocated + list(claimed.values())
    assert len(taken) == len(set(taken)) == NODES
