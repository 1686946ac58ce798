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

"""The bare-metal write paths of chassis, ports and port groups under
dozens of concurrent clients of the whole WSGI app, on every test backend:
no 5xx, every accepted write stored, uniqueness (MAC addresses, port group
names) exact, and a chassis or port group never deleted from under the
node or port that joins it at the same moment.
"""

import threading

import pytest
import webtest

from nova_mini.tests.fixtures import threads

CLIENTS = 24
HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}


@pytest.fixture
def api(api_fixture_factory, backend):
    return webtest.TestApp(api_fixture_factory(backend=backend).app)


class Answers:
    """The status codes of a race's requests, by client."""

    def __init__(self):
        self._lock = threading.Lock()
        self.codes = {}

    def add(self, index, response):
        assert response.status_int < 500, response.text
        with self._lock:
            self.codes[index] = response.status_int

    def count(self, status):
        return sorted(self.codes.values()).count(status)


def _post(api, path, body):
    return api.post_json('/baremetal/v1' + path, body, headers=HEADERS,
                         expect_errors=True)


def _node(api, name):
    response = _post(api, '/nodes', {'name': name, 'driver': 'fake-hardware'})
    assert response.status_int == 201, response.text
    return response.json['uuid']


def _list(api, path):
    response = api.get('/baremetal/v1' + path, headers=HEADERS)
    return response.json


def _mac(index):
    return '52:54:00:00:%02x:%02x' % (index // 256, index % 256)


def test_one_port_per_mac_address(api):
    node = _node(api, 'n0')
    answers = Answers()

    def create(index):
        answers.add(index, _post(api, '/ports', {
            'address': '52:54:00:AA:BB:CC', 'node_uuid': node}))

    assert threads.race(create, CLIENTS) == []
    assert (answers.count(201), answers.count(409)) == (1, CLIENTS - 1)
    ports = _list(api, '/ports?detail=true')['ports']
    assert [(p['address'], p['node_uuid']) for p in ports] == [
        ('52:54:00:aa:bb:cc', node)]


def test_ports_of_many_clients_are_all_stored(api):
    nodes = [_node(api, 'n%d' % i) for i in range(4)]
    answers = Answers()

    def create(index):
        answers.add(index, _post(api, '/ports', {
            'address': _mac(index), 'node_uuid': nodes[index % 4],
            'extra': {'client': index}}))

    assert threads.race(create, CLIENTS) == []
    assert answers.count(201) == CLIENTS
    for position, node in enumerate(nodes):
        ports = _list(api, '/nodes/%s/ports?detail=true' % node)['ports']
        assert sorted(p['extra']['client'] for p in ports) == list(
            range(position, CLIENTS, 4))
        assert all(p['address'] == _mac(p['extra']['client'])
                   for p in ports)


def test_chassis_of_many_clients_are_all_stored(api):
    answers = Answers()

    def create(index):
        answers.add(index, _post(api, '/chassis', {
            'description': 'rack %d' % index}))

    assert threads.race(create, CLIENTS) == []
    assert answers.count(201) == CLIENTS
    chassis = _list(api, '/chassis?detail=true')['chassis']
    assert sorted(c['description'] for c in chassis) == sorted(
        'rack %d' % i for i in range(CLIENTS))


def test_chassis_never_deleted_under_a_joining_node(api):
    """Half the clients move a node into the chassis, half delete the
    chassis: either the chassis is gone and no node names it, or every
    node that was moved names it.
    """
    chassis = _post(api, '/chassis', {'description': 'rack'}).json['uuid']
    nodes = [_node(api, 'j%d' % i) for i in range(CLIENTS // 2)]
    answers = Answers()

    def act(index):
        if index % 2:
            response = api.delete('/baremetal/v1/chassis/%s' % chassis,
                                  headers=HEADERS, expect_errors=True)
        else:
            response = api.patch_json(
                '/baremetal/v1/nodes/%s' % nodes[index // 2],
                [{'op': 'add', 'path': '/chassis_uuid', 'value': chassis}],
                headers=HEADERS, expect_errors=True)
        answers.add(index, response)

    assert threads.race(act, CLIENTS) == []
    joined = [nodes[i // 2] for i, code in answers.codes.items()
              if i % 2 == 0 and code == 200]
    deleted = [i for i, code in answers.codes.items()
               if i % 2 and code == 204]
    assert len(deleted) <= 1
    named = {n['uuid'] for n in _list(api, '/nodes?fields=uuid,chassis_uuid')[
        'nodes'] if n['chassis_uuid'] == chassis}
    response = api.get('/baremetal/v1/chassis/%s' % chassis,
                       headers=HEADERS, expect_errors=True)
    if deleted:
        assert response.status_int == 404
        assert named == set()
    else:
        assert response.status_int == 200
        assert named == set(joined)
        # A delete lost to the nodes: 400, the chassis is not empty.
        assert answers.count(400) >= 1 or not joined


def test_one_port_group_per_name_and_address(api):
    node = _node(api, 'pg')
    answers = Answers()

    def create(index):
        # Half the clients want the same name, half the same address.
        body = {'node_uuid': node}
        if index % 2:
            body.update(name='bond0', address=_mac(index))
        else:
            body.update(name='bond-%d' % index, address='52:54:00:00:ff:ff')
        answers.add(index, _post(api, '/portgroups', body))

    assert threads.race(create, CLIENTS) == []
    assert answers.count(201) == 2
    assert answers.count(409) == CLIENTS - 2
    groups = _list(api, '/portgroups?detail=true')['portgroups']
    assert len(groups) == 2
    assert sum(g['name'] == 'bond0' for g in groups) == 1
    assert sum(g['address'] == '52:54:00:00:ff:ff' for g in groups) == 1


def test_port_group_never_deleted_under_a_joining_port(api):
    node = _node(api, 'pj')
    group = _post(api, '/portgroups', {'node_uuid': node, 'name': 'bond1'})
    assert group.status_int == 201, group.text
    group = group.json['uuid']
    ports = []
    for index in range(CLIENTS // 2):
        response = _post(api, '/ports', {'address': _mac(100 + index),
                                         'node_uuid': node})
        assert response.status_int == 201, response.text
        ports.append(response.json['uuid'])
    answers = Answers()

    def act(index):
        if index % 2:
            response = api.delete('/baremetal/v1/portgroups/%s' % group,
                                  headers=HEADERS, expect_errors=True)
        else:
            response = api.patch_json(
                '/baremetal/v1/ports/%s' % ports[index // 2],
                [{'op': 'add', 'path': '/portgroup_uuid', 'value': group}],
                headers=HEADERS, expect_errors=True)
        answers.add(index, response)

    assert threads.race(act, CLIENTS) == []
    joined = {ports[i // 2] for i, code in answers.codes.items()
              if i % 2 == 0 and code == 200}
    deleted = [i for i, code in answers.codes.items()
               if i % 2 and code == 204]
    assert len(deleted) <= 1
    members = {p['uuid'] for p in _list(api, '/ports?detail=true')['ports']
               if p['portgroup_uuid'] == group}
    response = api.get('/baremetal/v1/portgroups/%s' % group,
                       headers=HEADERS, expect_errors=True)
    if deleted:
        assert response.status_int == 404
        assert members == set()
    else:
        assert response.status_int == 200
        assert members == joined


def test_vifs_of_many_clients_are_all_kept(api):
    node = _node(api, 'n-vifs')
    answers = Answers()

    def attach(index):
        answers.add(index, _post(api, '/nodes/%s/vifs' % node,
                                 {'id': 'vif-%d' % index}))

    assert threads.race(attach, CLIENTS) == []
    assert answers.count(204) == CLIENTS
    vifs = _list(api, '/nodes/%s/vifs' % node)['vifs']
    assert sorted(vif['id'] for vif in vifs) == sorted(
        'vif-%d' % index for index in range(CLIENTS))

    # The same VIF from every client: attached once, the rest 409.
    answers = Answers()

    def attach_same(index):
        answers.add(index, _post(api, '/nodes/%s/vifs' % node,
                                 {'id': 'vif-shared'}))

    assert threads.race(attach_same, CLIENTS) == []
    assert (answers.count(204), answers.count(409)) == (1, CLIENTS - 1)

    # Detachments of every client at once: none left behind.
    answers = Answers()

    def detach(index):
        answers.add(index, api.delete(
            '/baremetal/v1/nodes/%s/vifs/vif-%d' % (node, index),
            headers=HEADERS, expect_errors=True))

    assert threads.race(detach, CLIENTS) == []
    assert answers.count(204) == CLIENTS
    assert _list(api, '/nodes/%s/vifs' % node) == {
        'vifs': [{'id': 'vif-shared'}]}


def test_driver_internal_info_keys_written_at_once_are_all_kept(api):
    # VIF attachments, indicator states and the boot device all live in
    # the node's driver_internal_info: a write of one key never loses
    # another written at the same moment.
    node = _node(api, 'n-internal')
    answers = Answers()

    def write(index):
        if index % 3 == 0:
            response = _post(api, '/nodes/%s/vifs' % node,
                             {'id': 'vif-%d' % index})
        elif index % 3 == 1:
            response = api.put_json(
                '/baremetal/v1/nodes/%s/management/indicators/led@system'
                % node, {'state': 'BLINKING' if index % 2 else 'OFF'},
                headers=HEADERS, expect_errors=True)
        else:
            response = api.put_json(
                '/baremetal/v1/nodes/%s/management/boot_device' % node,
                {'boot_device': 'pxe', 'persistent': True},
                headers=HEADERS, expect_errors=True)
        answers.add(index, response)

    assert threads.race(write, CLIENTS) == []
    assert answers.count(204) == CLIENTS
    vifs = _list(api, '/nodes/%s/vifs' % node)['vifs']
    assert sorted(vif['id'] for vif in vifs) == sorted(
        'vif-%d' % index for index in range(0, CLIENTS, 3))
    state = _list(api, '/nodes/%s/management/indicators/led@system' % node)
    assert state['state'] in ('BLINKING', 'OFF')
    assert _list(api, '/nodes/%s/management/boot_device' % node) == {
        'boot_device': 'pxe', 'persistent': True}
