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

"""The sample vendordata application, composed without auth_token: the
identity headers auth_token would set are given by the tests."""

import hashlib
import hmac
import json
import time
import uuid

import pytest
import webtest

from nova_mini_vendordata_sample import app as sample_app

INSTANCE = 'f23a84c1-610e-4414-b77c-ca3799e0294a'
PROJECT = '33935b92dc224e6994979af977888d67'
BODY = {
    'project-id': PROJECT,
    'instance-id': INSTANCE,
    'image-id': 'f06404b8-87a2-4e02-b5fb-5019c75651fb',
    'user-data': None,
    'hostname': 'web-1',
    'metadata': {'role': 'web'},
    'boot-roles': 'member,reader',
}
NOVA = {'X-Identity-Status': 'Confirmed', 'X-Roles': 'admin,member',
        'X-User-Name': 'nova'}


@pytest.fixture
def client(conf):
    return webtest.TestApp(sample_app.VendordataApp(conf))


def post(client, body=BODY, headers=NOVA, status=200, **kw):
    return client.post_json('/', body, headers=headers, status=status, **kw)


def test_answer_describes_the_instance(client):
    resp = post(client)
    assert resp.content_type == 'application/json'
    assert resp.json == {
        'instance-id': INSTANCE,
        'project-id': PROJECT,
        'hostname': 'web-1',
        'fqdn': 'web-1.example.org',
        'greeting': 'Hello web-1, from the nova_mini vendordata sample',
        'boot-roles': ['member', 'reader'],
    }


def test_caching_headers(client, conf):
    resp = post(client)
    assert resp.headers['Cache-Control'] == 'max-age=300'
    expected = hashlib.sha256(resp.body).hexdigest()[:32]
    assert resp.headers['ETag'] == '"%s"' % expected
    conf.set_override('cache_max_age', 60, group='vendordata_sample')
    assert post(client).headers['Cache-Control'] == 'max-age=60'


def test_the_same_instance_gives_the_same_bytes(client):
    first, second = post(client), post(client)
    assert first.body == second.body
    assert first.headers['ETag'] == second.headers['ETag']


def test_etag_changes_with_the_instance(client):
    first = post(client)
    renamed = post(client, dict(BODY, hostname='web-2'))
    assert renamed.json['hostname'] == 'web-2'
    assert renamed.headers['ETag'] != first.headers['ETag']


def test_if_none_match_current_etag_is_304(client):
    etag = post(client).headers['ETag']
    resp = post(client, headers=dict(NOVA, **{'If-None-Match': etag}),
                status=304)
    assert resp.body == b''
    assert resp.headers['ETag'] == etag
    assert resp.headers['Cache-Control'] == 'max-age=300'


def test_if_none_match_old_etag_is_the_new_document(client):
    old = post(client).headers['ETag']
    resp = post(client, dict(BODY, hostname='web-2'),
                headers=dict(NOVA, **{'If-None-Match': old}))
    assert resp.json['hostname'] == 'web-2'
    assert resp.headers['ETag'] != old


def test_join_token_with_a_secret(client, conf):
    assert 'join-token' not in post(client).json
    conf.set_override('join_secret', 's3cret', group='vendordata_sample')
    expected = hmac.new(b's3cret', ('%s/%s' % (PROJECT, INSTANCE)).encode(),
                        hashlib.sha256).hexdigest()
    assert post(client).json['join-token'] == expected
    other = post(client, dict(BODY, **{'instance-id': str(uuid.uuid4())}))
    assert other.json['join-token'] != expected


def test_realm_and_missing_hostname(client, conf):
    conf.set_override('realm', 'corp.example', group='vendordata_sample')
    body = dict(BODY)
    del body['hostname']
    resp = post(client, body)
    assert resp.json['hostname'] == INSTANCE
    assert resp.json['fqdn'] == '%s.corp.example' % INSTANCE


def test_boot_roles_as_a_list_and_unknown_keys(client):
    resp = post(client, dict(BODY, **{'boot-roles': ['reader', 'member'],
                                      'some-future-key': {'x': 1}}))
    assert resp.json['boot-roles'] == ['member', 'reader']


def test_unauthenticated_is_401(client):
    for headers in ({}, dict(NOVA, **{'X-Identity-Status': 'Invalid'})):
        resp = post(client, headers=headers, status=401)
        assert resp.json['error']['code'] == 401
        assert resp.json['error']['title'] == 'Unauthorized'


@pytest.mark.parametrize('roles', ['', 'member', 'member,reader',
                                   'administrator'])
def test_without_an_allowed_role_is_403(client, roles):
    resp = post(client, headers=dict(NOVA, **{'X-Roles': roles}),
                status=403)
    assert resp.content_type == 'application/json'
    assert resp.json == {'error': {
        'code': 403, 'title': 'Forbidden',
        'message': 'Reading vendordata requires one of the roles: admin, '
                   'service.'}}


@pytest.mark.parametrize('roles', ['service', 'reader, Service', 'ADMIN'])
def test_allowed_roles_any_case(client, roles):
    resp = post(client, headers=dict(NOVA, **{'X-Roles': roles}))
    assert resp.json['instance-id'] == INSTANCE


def test_allowed_roles_are_configurable(client, conf):
    conf.set_override('allowed_roles', ['vendordata'],
                      group='vendordata_sample')
    post(client, status=403)
    resp = post(client, headers=dict(NOVA, **{'X-Roles': 'member,vendordata'}))
    assert resp.json['instance-id'] == INSTANCE


def test_forbidden_before_the_body_is_read(client):
    resp = client.post('/', 'not json', headers=dict(NOVA, **{
        'X-Roles': 'member'}), status=403)
    assert resp.json['error']['code'] == 403


@pytest.mark.parametrize('body, message', [
    ('not json', 'The request body is not JSON.'),
    ('', 'The request body is not JSON.'),
    ('[1, 2]', 'The request body must be a JSON object describing an '
               'instance.'),
    ('"x"', 'The request body must be a JSON object describing an '
            'instance.'),
    (json.dumps({'project-id': PROJECT}),
     "Invalid request body: 'instance-id' is a required property"),
    (json.dumps({'instance-id': INSTANCE}),
     "Invalid request body: 'project-id' is a required property"),
    (json.dumps(dict(BODY, **{'instance-id': ''})),
     "Invalid request body at instance-id: ''"),
    (json.dumps(dict(BODY, **{'instance-id': 42})),
     "Invalid request body at instance-id: 42 is not of type 'string'"),
    (json.dumps(dict(BODY, metadata={'a': 1})),
     "Invalid request body at metadata/a: 1 is not of type 'string'"),
    (json.dumps(dict(BODY, hostname=['a'])),
     "Invalid request body at hostname: ['a'] is not of type 'string', "
     "'null'"),
    # Refused by the parser, before the schema (nova_mini.api.json_body).
    ('[' * 30000 + ']' * 30000,
     'The request body is nested more than 32 levels deep.'),
    (json.dumps(dict(BODY, metadata={'a': '@'})).replace('"@"', 'NaN'),
     'The request body holds NaN, which is not a JSON number.'),
    (json.dumps(dict(BODY, hostname='a\x00')),
     'The request body holds a NUL character'),
])
def test_bad_body_is_400(client, body, message):
    # (message: how the message starts; jsonschema words some of its own
    # messages differently from one release to the next)
    resp = client.post('/', body, headers=dict(
        NOVA, **{'Content-Type': 'application/json'}), status=400)
    assert resp.content_type == 'application/json'
    error = resp.json['error']
    assert (error['code'], error['title']) == (400, 'Bad Request')
    assert error['message'].startswith(message), error['message']


def test_too_large_body_is_413(client, conf):
    conf.set_override('max_request_body', 2048, group='vendordata_sample')
    resp = post(client, dict(BODY, **{'user-data': 'x' * 4096}), status=413)
    assert resp.json['error']['message'] == (
        'The request body is larger than 2048 bytes.')
    resp = post(client, dict(BODY, **{'user-data': 'x' * 1024}))
    assert resp.json['instance-id'] == INSTANCE


def test_other_methods_and_paths(client):
    resp = client.get('/', headers=NOVA, status=405)
    assert resp.headers['Allow'] == 'POST'
    assert resp.json['error']['code'] == 405
    resp = client.post_json('/other', BODY, headers=NOVA, status=404)
    assert resp.json['error']['code'] == 404


def test_response_delay(client, conf):
    conf.set_override('response_delay', 0.2, group='vendordata_sample')
    start = time.monotonic()
    post(client)
    assert time.monotonic() - start >= 0.2
