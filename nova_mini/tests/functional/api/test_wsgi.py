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

"""HTTP details that YAML expresses badly: huge bodies, missing headers,
unexpected errors (the rest is in gabbits/)."""

import json

import pytest

from nova_mini import objects

ADMIN = {'X-Auth-Token': 'admin:admin'}
V255 = dict(ADMIN, **{'OpenStack-API-Version': 'compute 2.55'})
FLAVORS = '/compute/v2.1/flavors'


# Local: a POST /flavors body whose fields the tests break one at a time;
# the shared builders make stored flavors, not request bodies.
def _flavor(**values):
    body = {'name': 'f', 'ram': 1, 'vcpus': 1, 'disk': 0, 'id': 'f'}
    body.update(values)
    return {'flavor': body}


def _fault(response, name, code):
    assert response.status_int == code
    assert response.headers['Content-Type'] == \
        'application/json; charset=UTF-8'
    assert list(response.json) == [name]
    assert response.json[name]['code'] == code
    return response.json[name]['message']


def _stored_description(api):
    return api.get(FLAVORS + '/f', headers=V255).json['flavor'][
        'description']


def test_body_over_the_size_limit(api):
    api.post_json(FLAVORS, _flavor(), headers=ADMIN)
    body = json.dumps({'extra_specs': {'a': 'x' * 120000}})
    assert len(body) > 114688
    for accept in (None, 'application/json', 'text/html', '*/*'):
        headers = dict(ADMIN, **({'Accept': accept} if accept else {}))
        response = api.post(FLAVORS + '/f/os-extra_specs', body,
                            headers=dict(headers, **{
                                'Content-Type': 'application/json'}),
                            expect_errors=True)
        _fault(response, 'overLimit', 413)
        assert response.headers['OpenStack-API-Version'] == 'compute 2.1'
    assert api.get(FLAVORS + '/f/os-extra_specs',
                   headers=ADMIN).json == {'extra_specs': {}}


def test_body_at_the_size_limit_is_read(api):
    body = json.dumps(_flavor())
    body += ' ' * (114688 - len(body))      # JSON may end in white space
    response = api.post(FLAVORS, body, headers=dict(
        ADMIN, **{'Content-Type': 'application/json'}))
    assert response.json['flavor']['id'] == 'f'
    assert api.get(FLAVORS + '/f', headers=ADMIN).json['flavor']['name'] \
        == 'f'


def test_description_of_65535_characters(api):
    response = api.post_json(FLAVORS, _flavor(description='d' * 65535),
                             headers=V255)
    assert response.json['flavor']['description'] == 'd' * 65535
    assert _stored_description(api) == 'd' * 65535
    response = api.put_json(FLAVORS + '/f',
                            {'flavor': {'description': 'e' * 65535}},
                            headers=V255)
    assert response.json['flavor']['description'] == 'e' * 65535
    assert _stored_description(api) == 'e' * 65535


def test_description_of_65536_characters(api):
    response = api.post_json(FLAVORS, _flavor(description='d' * 65536),
                             headers=V255, expect_errors=True)
    message = _fault(response, 'badRequest', 400)
    assert message.startswith(
        'Invalid input for field/attribute description. Value: ddd')
    assert message.endswith('Must be at most 65535 characters long.')
    api.get(FLAVORS + '/f', headers=ADMIN, status=404)
    api.post_json(FLAVORS, _flavor(description='kept'), headers=V255)
    response = api.put_json(FLAVORS + '/f',
                            {'flavor': {'description': 'e' * 65536}},
                            headers=V255, expect_errors=True)
    assert _fault(response, 'badRequest', 400).endswith(
        'Must be at most 65535 characters long.')
    assert _stored_description(api) == 'kept'


def test_json_without_content_type(api):
    response = api.request(FLAVORS, method='POST', headers=ADMIN,
                           body=json.dumps(_flavor()).encode())
    assert 'Content-Type' not in response.request.headers
    assert response.json['flavor']['id'] == 'f'
    assert api.get(FLAVORS + '/f', headers=ADMIN).json['flavor']['ram'] == 1


def test_no_body_and_no_content_type(api):
    response = api.post(FLAVORS, headers=ADMIN, expect_errors=True)
    assert _fault(response, 'badRequest', 400) == \
        'The request body must be an object ({...}).'


def test_noauth2_without_token(api):
    response = api.get(FLAVORS, headers={'X-Auth-User': 'someone',
                                         'X-Auth-Project-Id': 'proj'})
    assert response.status_int == 204
    assert response.body == b''
    assert response.headers['X-Auth-Token'] == 'someone:proj'
    assert response.headers['X-Server-Management-Url'].endswith('/proj')


def test_noauth2_ignores_forged_identity_headers(api):
    api.post_json(FLAVORS, _flavor(), headers=ADMIN)
    response = api.delete(FLAVORS + '/f', headers={
        'X-Auth-Token': 'demo:demo', 'X-Roles': 'admin',
        'X-User-Id': 'admin'}, expect_errors=True)
    assert _fault(response, 'forbidden', 403) == (
        "Policy doesn't allow os_compute_api:os-flavor-manage:delete to be "
        "performed.")
    assert api.get(FLAVORS + '/f', headers=ADMIN).json['flavor']['id'] == 'f'


def test_request_id(api):
    response = api.get(FLAVORS, headers=ADMIN)
    assert response.headers['x-openstack-request-id'].startswith('req-')


def test_unexpected_errors_are_500_without_details(api, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError('secret details')

    monkeypatch.setattr(objects.Flavor, 'get_by_flavor_id', explode)
    response = api.get(FLAVORS + '/f', headers=ADMIN, expect_errors=True)
    message = _fault(response, 'computeFault', 500)
    assert 'secret' not in message
    assert message.startswith('Unexpected API Error.')
    assert response.headers['OpenStack-API-Version'] == 'compute 2.1'


@pytest.mark.parametrize('method', ['PATCH', 'HEAD', 'OPTIONS'])
def test_other_methods_get_a_fault(api, method):
    # Nova answers 404 (no route); pecan knows the resource and says 405.
    # The answer is in Nova's format and carries the version.
    response = api.request(FLAVORS, method=method, headers=ADMIN,
                           expect_errors=True)
    assert response.status_int == 405
    assert response.headers['Content-Type'] == \
        'application/json; charset=UTF-8'
    assert response.headers['OpenStack-API-Version'] == 'compute 2.1'
    if method != 'HEAD':
        _fault(response, 'badMethod', 405)


@pytest.mark.parametrize('body', [
    _flavor(name='f\n'),
    _flavor(id='f\n'),
    _flavor(ram='1\n'),
])
def test_trailing_newline_is_not_the_end_of_a_pattern(api, body):
    # Python's "$" also matches before a final newline; ours does not.
    response = api.post_json(FLAVORS, body, headers=ADMIN,
                             expect_errors=True)
    _fault(response, 'badRequest', 400)
    assert api.get(FLAVORS, headers=ADMIN).json == {'flavors': []}


def test_trailing_newline_in_an_extra_spec_key_is_refused(api):
    api.post_json(FLAVORS, _flavor(), headers=ADMIN)
    response = api.post_json(FLAVORS + '/f/os-extra_specs',
                             {'extra_specs': {'a': 'b', 'key\n': 'v'}},
                             headers=ADMIN, expect_errors=True)
    assert "'key\\n' is not allowed as key: a key must be" in _fault(
        response, 'badRequest', 400)
    assert api.get(FLAVORS + '/f/os-extra_specs',
                   headers=ADMIN).json == {'extra_specs': {}}
