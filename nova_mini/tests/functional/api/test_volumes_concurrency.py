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

"""Volume connectors and targets under dozens of concurrent clients of
the whole WSGI app, on every test backend: of the clients creating the
same connector (or a target of the same boot index of one node) one gets
201 and the others 409, none 5xx, and one row is stored; a power-on
racing with patches leaves no patch stored after the node is on.
"""

import threading

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

CLIENTS = 24
NODES = 4
HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.32'}


@pytest.fixture
def api(api_fixture_factory, backend):
    app = webtest.TestApp(api_fixture_factory(backend=backend).app)
    admin = nm_context.get_admin_context()
    nodes = [builders.create_node(admin, 'vol-%d' % index,
                                  power_state='power off')
             for index in range(NODES)]
    app.node_uuids = [node.uuid for node in nodes]
    return app


def _race(api, target):
    responses = {}
    lock = threading.Lock()

    def run(index):
        response = target(index)
        assert response.status_int < 500, response.text
        with lock:
            responses[index] = response

    assert threads.race(run, CLIENTS) == []
    return sorted(r.status_int for r in responses.values()), responses


def test_one_connector_of_a_connector_id(api):
    statuses, responses = _race(api, lambda index: api.post_json(
        '/baremetal/v1/volume/connectors',
        {'node_uuid': api.node_uuids[index % NODES], 'type': 'iqn',
         'connector_id': 'iqn.2026-11.org.example:shared'},
        headers=HEADERS, expect_errors=True))
    assert statuses == [201] + [409] * (CLIENTS - 1)
    created = [r.json for r in responses.values() if r.status_int == 201]
    refused = [r for r in responses.values() if r.status_int == 409]
    assert all('already exists' in r.text for r in refused)
    stored = api.get('/baremetal/v1/volume/connectors?detail=true',
                     headers=HEADERS).json['connectors']
    assert len(stored) == 1
    assert stored[0]['uuid'] == created[0]['uuid']
    assert stored[0]['node_uuid'] == created[0]['node_uuid']
    assert stored[0]['connector_id'] == 'iqn.2026-11.org.example:shared'


def test_one_target_of_a_boot_index(api):
    node = api.node_uuids[0]
    statuses, responses = _race(api, lambda index: api.post_json(
        '/baremetal/v1/volume/targets',
        {'node_uuid': node, 'volume_type': 'iscsi', 'boot_index': 0,
         'volume_id': 'vol-%d' % index},
        headers=HEADERS, expect_errors=True))
    assert statuses == [201] + [409] * (CLIENTS - 1)
    created = [r.json for r in responses.values() if r.status_int == 201]
    stored = api.get('/baremetal/v1/nodes/%s/volume/targets' % node,
                     headers=HEADERS).json['targets']
    assert [(t['uuid'], t['boot_index'], t['volume_id']) for t in stored] \
        == [(created[0]['uuid'], 0, created[0]['volume_id'])]


def test_distinct_connectors_are_all_created(api):
    statuses, _responses = _race(api, lambda index: api.post_json(
        '/baremetal/v1/volume/connectors',
        {'node_uuid': api.node_uuids[index % NODES], 'type': 'wwpn',
         'connector_id': '5000000000%06d' % index},
        headers=HEADERS, expect_errors=True))
    assert statuses == [201] * CLIENTS
    for node in api.node_uuids:
        stored = api.get('/baremetal/v1/nodes/%s/volume/connectors' % node,
                         headers=HEADERS).json['connectors']
        assert len(stored) == CLIENTS // NODES


def test_no_patch_lands_after_power_on(api):
    node = api.node_uuids[0]
    connector = api.post_json(
        '/baremetal/v1/volume/connectors',
        {'node_uuid': node, 'type': 'ip', 'connector_id': '192.0.2.10'},
        headers=HEADERS).json['uuid']

    def patch_or_power(index):
        if index == CLIENTS // 2:
            return api.put_json(
                '/baremetal/v1/nodes/%s/states/power' % node,
                {'target': 'power on'}, headers=HEADERS, expect_errors=True)
        return api.patch_json(
            '/baremetal/v1/volume/connectors/' + connector,
            [{'op': 'add', 'path': '/extra/c%d' % index, 'value': 'x'}],
            headers=HEADERS, expect_errors=True)

    statuses, responses = _race(api, patch_or_power)
    assert responses[CLIENTS // 2].status_int == 202
    assert set(statuses) <= {200, 202, 400}
    refused = [r for r in responses.values() if r.status_int == 400]
    assert all('can not be performed on node' in r.text for r in refused)
    stored = api.get('/baremetal/v1/volume/connectors/' + connector,
                     headers=HEADERS).json
    accepted = {'c%d' % index for index, r in responses.items()
                if r.status_int == 200}
    # Each accepted patch is kept, each refused one left no trace (the
    # patches race with each other too: each stores its key).
    assert set(stored['extra']) <= accepted
    # After the node is on, every patch is refused.
    late = api.patch_json(
        '/baremetal/v1/volume/connectors/' + connector,
        [{'op': 'add', 'path': '/extra/late', 'value': 'x'}],
        headers=HEADERS, expect_errors=True)
    assert late.status_int == 400
