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

"""Requests that were 500s (each 4xx now, with no traceback logged), on
every backend: huge microversions, deep or non-JSON bodies (NaN, NUL),
NUL bytes in paths and query strings, agent tokens that are not ASCII.
"""

import json
import uuid

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import api as api_fixture

ADMIN = {'X-Auth-Token': 'admin:admin'}
IRONIC = dict(ADMIN, **{'X-OpenStack-Ironic-API-Version': '1.65'})
NOVA = dict(ADMIN, **{'OpenStack-API-Version': 'compute 2.86'})
JSON = {'Content-Type': 'application/json'}
BM = '/baremetal/v1'
COMPUTE = '/compute/v2.1'
DEEP = '[' * 30000 + ']' * 30000


@pytest.fixture(scope='module')
def app(backend):
    """One application and database per backend: tests give what they
    make names of its own.
    """
    fixture = api_fixture.APIFixture(backend=backend)
    fixture.setUp()
    yield webtest.TestApp(fixture.app)
    fixture.cleanUp()


pytestmark = pytest.mark.usefixtures('no_traceback')


def _admin():
    return nm_context.get_admin_context()


def _post(app, path, body, headers, status=400):
    """POST a raw body; the answer (expected ``status``)."""
    return app.post(path, body, headers=dict(headers, **JSON),
                    status=status)


# Microversions

@pytest.mark.parametrize('name, value, status', [
    ('OpenStack-API-Version', 'compute 2.' + '9' * 5000, 400),
    ('OpenStack-API-Version', 'compute ' + '9' * 5000 + '.1', 400),
    ('X-OpenStack-Nova-API-Version', '2.' + '9' * 5000, 400),
    ('X-OpenStack-Nova-API-Version', '2.' + '9' * 20, 406),
])
def test_huge_compute_microversion(app, name, value, status):
    # The version document is answered without a token.
    for path, token in ((COMPUTE + '/flavors', ADMIN), (COMPUTE + '/', {})):
        response = app.get(path, headers=dict(token, **{name: value}),
                           status=status)
        message = response.json[
            'badRequest' if status == 400 else 'computeFault']['message']
        assert len(message) < 400
        # A refusal echoes the version asked for, but not a huge one.
        for header in ('OpenStack-API-Version',
                       'X-OpenStack-Nova-API-Version'):
            assert len(response.headers.get(header, '')) < 100


@pytest.mark.parametrize('value', [
    '1.' + '9' * 5000, '9' * 5000 + '.1', '1.' + '9' * 40, '1.65' * 2000])
def test_huge_baremetal_microversion(app, value):
    for path, token in ((BM + '/nodes', ADMIN), (BM + '/', {})):
        response = app.get(path, headers=dict(token, **{
            'X-OpenStack-Ironic-API-Version': value}), status=406)
        assert len(response.json['error_message']) < 600
        assert response.headers[
            'X-OpenStack-Ironic-API-Maximum-Version'].startswith('1.')


# Bodies

def _name():
    return 'n-%s' % uuid.uuid4().hex[:12]


@pytest.fixture
def waiting_node(app):
    """A node in ``rescue wait`` with agent token ``t``; (uuid, name)."""
    name = _name()
    uuid_ = app.post_json(BM + '/nodes', {
        'name': name, 'driver': 'fake-hardware'},
        headers=IRONIC).json['uuid']
    node = objects.Node.get_by_uuid(_admin(), uuid_)
    node.provision_state = 'rescue wait'
    node.driver_internal_info = {'agent_secret_token': 't'}
    node.save()
    return uuid_, name


def test_deep_bodies(app, waiting_node):
    node_uuid, node_name = waiting_node
    flavor = _name()
    app.post_json(COMPUTE + '/flavors', {'flavor': {
        'name': flavor, 'ram': 1, 'vcpus': 1, 'disk': 0, 'id': flavor}},
        headers=NOVA)
    for path, headers in [
            (COMPUTE + '/flavors', NOVA),
            (COMPUTE + '/flavors/%s/os-extra_specs' % flavor, NOVA),
            (COMPUTE + '/servers/%s/action' % uuid.uuid4(), NOVA),
            (BM + '/nodes', IRONIC),
            (BM + '/nodes/%s/vendor_passthru?method=second_method'
             % node_name, IRONIC),
            (BM + '/heartbeat/%s' % node_uuid, IRONIC),
            (BM + '/heartbeat/%s' % node_name,
             {'X-OpenStack-Ironic-API-Version': '1.65'})]:
        # (within the body size limit, 114688 bytes)
        for body in (DEEP, '{"a":' * 15000 + '1' + '}' * 15000,
                     '{"a": %s}' % ('[' * 33 + ']' * 33)):
            response = _post(app, path, body, headers)
            assert 'nested more than 32 levels deep' in response.text
    # As deep as allowed is parsed (and refused by the schema).
    response = _post(app, COMPUTE + '/flavors',
                     '{"flavor": %s}' % ('[' * 31 + ']' * 31), NOVA)
    assert 'nested' not in response.text
    # Brackets inside strings are text.
    response = app.post_json(BM + '/nodes', {
        'name': _name(), 'driver': 'fake-hardware',
        'extra': {'k': '[' * 100, '{': [{'a': ['"\\[']}]}},
        headers=IRONIC, status=201)
    assert response.json['extra']['k'] == '[' * 100


@pytest.mark.parametrize('literal', [
    'NaN', 'Infinity', '-Infinity', '1e999', '-1E400'])
def test_non_finite_numbers(app, literal):
    flavor = _name()
    response = _post(app, COMPUTE + '/flavors', json.dumps({'flavor': {
        'name': flavor, 'ram': 1, 'vcpus': 1, 'disk': 0, 'id': flavor,
        'rxtx_factor': '@'}}).replace('"@"', literal), NOVA)
    assert 'The request body holds' in response.json['badRequest']['message']
    app.get(COMPUTE + '/flavors/%s' % flavor, headers=NOVA, status=404)
    # A lessee cannot plant one in the owner's node either.
    name = _name()
    app.post_json(BM + '/nodes', {
        'name': name, 'driver': 'fake-hardware', 'owner': 'own',
        'lessee': 'les'}, headers=IRONIC)
    lessee = dict(IRONIC, **{'X-Auth-Token': 'u:les'})
    response = app.patch(
        BM + '/nodes/' + name,
        '[{"op": "add", "path": "/extra/x", "value": %s}]' % literal,
        headers=dict(lessee, **JSON), status=400)
    assert 'The request body holds' in response.text
    assert objects.Node.get_by_name(_admin(), name).extra == {}
    owner = dict(IRONIC, **{'X-Auth-Token': 'u:own'})
    listed = app.get(BM + '/nodes?fields=name,extra', headers=owner)
    assert json.loads(listed.text)['nodes'][0]['extra'] == {}


def test_nul_in_bodies(app):
    flavor = _name()
    for body in ({'flavor': {'name': 'a\x00b', 'ram': 1, 'vcpus': 1,
                             'disk': 0, 'id': flavor}},
                 {'flavor': {'name': 'a', 'ram': 1, 'vcpus': 1,
                             'disk': 0, 'id': flavor + '\x00'}}):
        response = _post(app, COMPUTE + '/flavors', json.dumps(body), NOVA)
        assert 'NUL character' in response.json['badRequest']['message']
    app.get(COMPUTE + '/flavors/' + flavor, headers=NOVA, status=404)
    name = _name()
    for extra in ({'k': 'a\x00'}, {'k\x00': 'a'}, {'k': ['\x00']}):
        response = _post(app, BM + '/nodes', json.dumps({
            'name': name, 'driver': 'fake-hardware', 'extra': extra}),
            IRONIC)
        assert 'NUL character' in response.text
    app.get(BM + '/nodes/' + name, headers=IRONIC, status=404)
    # An escaped backslash before u0000 is text, not a NUL.
    app.post_json(BM + '/nodes', {
        'name': name, 'driver': 'fake-hardware',
        'extra': {'k': '\\u0000'}}, headers=IRONIC, status=201)
    assert objects.Node.get_by_name(_admin(), name).extra == {
        'k': '\\u0000'}


def test_lone_surrogate_in_a_body(app):
    name = _name()
    body = ('{"name": "%s", "driver": "fake-hardware", '
            '"extra": {"k": "\\ud800"}}' % name)
    response = _post(app, BM + '/nodes', body, IRONIC)
    assert 'surrogate' in response.text
    # A pair is a character.
    body = ('{"name": "%s", "driver": "fake-hardware", '
            '"extra": {"k": "\\ud83d\\ude00"}}' % name)
    _post(app, BM + '/nodes', body, IRONIC, status=201)
    assert objects.Node.get_by_name(_admin(), name).extra == {
        'k': '\U0001F600'}


@pytest.mark.parametrize('path, headers', [
    (COMPUTE + '/flavors/a%00b', NOVA),
    (COMPUTE + '/servers/a%00b', NOVA),
    (COMPUTE + '/servers?name=a%00b', NOVA),
    (COMPUTE + '/servers?a%00b=1', NOVA),
    (COMPUTE + '/flavors?minRam=1%00', NOVA),
    (BM + '/nodes/a%00b', IRONIC),
    (BM + '/nodes?resource_class=a%00b', IRONIC),
    (BM + '/nodes?conductor_group=%00', IRONIC),
    (BM + '/ports?address=%00', IRONIC),
    (BM + '/heartbeat/a%00b', IRONIC),
])
def test_nul_in_paths_and_queries(app, path, headers):
    response = app.get(path, headers=headers, status=400)
    assert 'NUL' in response.text


def test_non_ascii_agent_token(app, waiting_node):
    node_uuid = waiting_node[0]
    for token in ('é', '\u20ac' * 40, 't\u0301'):
        response = _post(app, BM + '/heartbeat/%s' % node_uuid,
                         json.dumps({'callback_url': 'http://192.0.2.5:1',
                                     'agent_version': '9.0',
                                     'agent_token': token}),
                         {'X-OpenStack-Ironic-API-Version': '1.65'})
        assert 'Invalid or missing agent token' in response.text
    node = objects.Node.get_by_uuid(_admin(), node_uuid)
    assert node.driver_internal_info == {'agent_secret_token': 't'}


# Numbers

MAX_INT = 2 ** 31 - 1


@pytest.mark.parametrize('value', [2 ** 70, str(2 ** 70), MAX_INT + 1,
                                   '9' * 5000])
def test_node_sizes_beyond_an_integer_column(app, value):
    name = _name()
    for field in ('cpus', 'memory_mb', 'local_gb'):
        response = app.post_json(BM + '/nodes', {
            'name': name, 'driver': 'fake-hardware',
            'properties': {field: value}}, headers=IRONIC, status=400)
        assert 'Must be at most 2147483647' in response.text
    app.post_json(BM + '/nodes', {
        'name': name, 'driver': 'fake-hardware',
        'properties': {'cpus': MAX_INT}}, headers=IRONIC, status=201)
    response = app.patch_json(BM + '/nodes/' + name, [
        {'op': 'add', 'path': '/properties/memory_mb', 'value': value}],
        headers=IRONIC, status=400)
    assert 'Must be at most 2147483647' in response.text
    node = objects.Node.get_by_name(_admin(), name)
    assert node.properties == {'cpus': MAX_INT}


def test_power_timeout_beyond_an_integer(app):
    name = _name()
    app.post_json(BM + '/nodes', {'name': name, 'driver': 'fake-hardware'},
                  headers=IRONIC)
    before = objects.Node.get_by_name(_admin(), name)
    for timeout in (2 ** 64, MAX_INT + 1):
        response = app.put_json(BM + '/nodes/%s/states/power' % name, {
            'target': 'power on', 'timeout': timeout}, headers=IRONIC,
            status=400)
        assert 'Must be at most 2147483647' in response.text
    after = objects.Node.get_by_name(_admin(), name)
    assert (after.power_state, after.target_power_state, after.updated_at) \
        == (before.power_state, before.target_power_state, before.updated_at)


@pytest.mark.parametrize('priority', [2 ** 70, MAX_INT + 1, '9' * 5000])
def test_step_priority_beyond_an_integer(app, priority):
    name = 'CUSTOM_' + uuid.uuid4().hex.upper()
    step = {'interface': 'bios', 'step': 'apply_configuration',
            'args': {}, 'priority': priority}
    response = app.post_json(BM + '/deploy_templates', {
        'name': name, 'steps': [step]}, headers=IRONIC, status=400)
    assert 'Must be at most 2147483647' in response.text
    app.get(BM + '/deploy_templates/' + name, headers=IRONIC, status=404)
    created = app.post_json(BM + '/deploy_templates', {
        'name': name, 'steps': [dict(step, priority=MAX_INT)]},
        headers=IRONIC, status=201)
    assert created.json['steps'][0]['priority'] == MAX_INT


def test_allocation_list_of_an_unknown_state(app):
    response = app.get(BM + '/allocations?state=bogus', headers=IRONIC,
                       status=400)
    assert "'active'" in response.text
    for state in ('allocating', 'active', 'error'):
        app.get(BM + '/allocations?state=' + state, headers=IRONIC)


def test_huge_counts_in_queries(app):
    # Larger than any count is the largest, as Nova takes them...
    for path in ('/os-server-groups?limit=%d' % 10 ** 100,
                 '/os-server-groups?offset=%d' % 10 ** 100,
                 '/flavors?limit=%d' % 10 ** 100,
                 '/servers?limit=%d' % 10 ** 100,
                 '/os-keypairs?limit=%d' % 10 ** 100):
        app.get(COMPUTE + path, headers=NOVA, status=200)
    # ... up to where Python's int() refuses them.
    for path in ('/os-server-groups?limit=' + '9' * 5000,
                 '/os-server-groups?offset=' + '9' * 5000,
                 '/flavors?limit=' + '9' * 5000,
                 '/servers?limit=' + '9' * 5000):
        response = app.get(COMPUTE + path, headers=NOVA, status=400)
        assert len(response.text) < 1000
