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

"""What a member may grow is bounded, on every backend: a JSON document
(a node's ``extra``, an allocation's, a port's...) is at most 65,535
bytes (MariaDB's TEXT column refused more with a 500; elsewhere a lessee
grew it without bound, 100 KB per PATCH); a project's members own at
most [api] max_allocations_per_project allocations (one that finds no
node stays, in state "error"); an allocation asks for at most 50 traits;
a node's VIFs fit its document. Each refusal is a 4xx that writes
nothing: the tests read the stored rows.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini.objects import base as objects_base
from nova_mini.tests.fixtures import api as api_fixture

BM = '/baremetal/v1'
ADMIN = 'admin:admin'
OWNER = 'u:p-own'
LESSEE = 'u:p-lease'
MAX_ALLOCATIONS = 3


@pytest.fixture(scope='module')
def app(backend):
    fixture = api_fixture.APIFixture(backend=backend, conf_overrides={
        'api.max_allocations_per_project': MAX_ALLOCATIONS})
    fixture.setUp()
    yield webtest.TestApp(fixture.app)
    fixture.cleanUp()


pytestmark = pytest.mark.usefixtures('no_traceback')


def _call(app, method, path, body=None, token=ADMIN, status=None):
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version': 'latest'}
    params = b''
    if body is not None:
        headers['Content-Type'] = 'application/json'
        params = json.dumps(body).encode()
    return app.request(path, method=method, body=params, headers=headers,
                       status=status,
                       expect_errors=status is None or status >= 400)


def _node(app, name):
    return _call(app, 'POST', BM + '/nodes', {
        'name': name, 'driver': 'fake-hardware', 'owner': 'p-own',
        'lessee': 'p-lease'}, status=201).json['uuid']


def _stored(uuid):
    return objects.Node.get_by_uuid(nm_context.get_admin_context(), uuid)


def _add(key, size):
    return [{'op': 'add', 'path': '/extra/' + key, 'value': 'x' * size}]


def test_node_extra_in_one_patch(app):
    uuid = _node(app, 'extra-one')
    answer = _call(app, 'PATCH', BM + '/nodes/' + uuid, _add('big', 70000),
                   token=LESSEE, status=400)
    assert 'at most 65535' in answer.text
    assert _stored(uuid).extra == {}


def test_node_extra_grown_patch_by_patch(app):
    uuid = _node(app, 'extra-grown')
    for key in ('a', 'b'):
        _call(app, 'PATCH', BM + '/nodes/' + uuid, _add(key, 30000),
              token=LESSEE, status=200)
    _call(app, 'PATCH', BM + '/nodes/' + uuid, _add('c', 30000),
          token=LESSEE, status=400)
    assert sorted(_stored(uuid).extra) == ['a', 'b']
    # What is kept is served.
    _call(app, 'GET', BM + '/nodes/' + uuid, token=LESSEE, status=200)


def test_node_instance_info_and_properties(app):
    uuid = _node(app, 'docs')
    for field, token in (('instance_info', LESSEE),
                         ('properties', OWNER)):
        _call(app, 'PATCH', BM + '/nodes/' + uuid, [
            {'op': 'add', 'path': '/%s/k' % field, 'value': 'x' * 70000}],
            token=token, status=400)
        assert getattr(_stored(uuid), field) in ({}, None)


def test_port_and_chassis_extra(app):
    uuid = _node(app, 'port-node')
    _call(app, 'POST', BM + '/ports', {
        'node_uuid': uuid, 'address': '52:54:00:00:00:01',
        'extra': {'k': 'x' * 70000}}, status=400)
    context = nm_context.get_admin_context()
    assert objects.PortList.get_all(context).objects == []
    _call(app, 'POST', BM + '/chassis', {'extra': {'k': 'x' * 70000}},
          status=400)
    assert objects.ChassisList.get_all(context).objects == []


def _allocations(owner):
    return allocation_obj.count_of_owner(nm_context.get_admin_context(),
                                         owner)


def test_allocation_extra(app):
    before = _allocations('p-big')
    _call(app, 'POST', BM + '/allocations', {
        'resource_class': 'none', 'extra': {'k': 'x' * 70000}},
        token='u:p-big', status=400)
    assert _allocations('p-big') == before


def test_allocation_traits(app):
    _call(app, 'POST', BM + '/allocations', {
        'resource_class': 'none',
        'traits': ['CUSTOM_T%d' % index for index in range(51)]},
        token='u:p-traits', status=400)
    assert _allocations('p-traits') == 0


def test_allocations_of_a_project(app):
    project = 'p-many'
    token = 'u:' + project
    made = [_call(app, 'POST', BM + '/allocations',
                  {'resource_class': 'none'}, token=token,
                  status=201).json['uuid']
            for _index in range(MAX_ALLOCATIONS)]
    # Each found no node: they stay, in state "error".
    answer = _call(app, 'POST', BM + '/allocations',
                   {'resource_class': 'none'}, token=token, status=403)
    assert 'error' in answer.text
    assert _allocations(project) == MAX_ALLOCATIONS
    # A system administrator's create is not limited.
    _call(app, 'POST', BM + '/allocations',
          {'resource_class': 'none', 'owner': project}, status=201)
    assert _allocations(project) == MAX_ALLOCATIONS + 1
    for uuid in made:
        _call(app, 'DELETE', BM + '/allocations/' + uuid, token=token,
              status=204)
    _call(app, 'POST', BM + '/allocations', {'resource_class': 'none'},
          token=token, status=201)


def test_vifs_of_a_node(app, monkeypatch):
    # The real bound is some 1,300 uuids: a smaller one, the same check.
    monkeypatch.setattr(objects_base, 'MAX_DOCUMENT_BYTES', 400)
    uuid = _node(app, 'vifs')
    attached = 0
    for _index in range(60):
        answer = _call(app, 'POST', BM + '/nodes/%s/vifs' % uuid,
                       {'id': 'vif-%04d' % attached}, token=OWNER)
        if answer.status_int != 204:
            break
        attached += 1
    assert answer.status_int == 400
    assert 0 < attached < 30
    info = _stored(uuid).driver_internal_info
    assert len(info['vifs']) == attached
