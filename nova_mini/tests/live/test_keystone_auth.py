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

"""The compute API behind keystonemiddleware, with tokens from a real
Keystone: who gets in, and what policy lets each role do.
"""

import uuid

import pytest
import requests

pytestmark = pytest.mark.live

TIMEOUT = 30


# Local: a POST /flavors body, the request these tests send with each
# token; the shared builders store flavors without the API.
def _flavor(name):
    return {'flavor': {'name': name, 'ram': 256, 'vcpus': 1, 'disk': 1}}


def _url(stack, path):
    return stack.nova.compute_url + path


def _get(stack, path, token=None):
    headers = {'X-Auth-Token': token} if token else {}
    return requests.get(_url(stack, path), headers=headers, timeout=TIMEOUT)


def _post(stack, path, body, token=None):
    headers = {'X-Auth-Token': token} if token else {}
    return requests.post(_url(stack, path), json=body, headers=headers,
                         timeout=TIMEOUT)


def _delete(stack, path, token):
    return requests.delete(_url(stack, path), timeout=TIMEOUT,
                           headers={'X-Auth-Token': token})


def test_admin_token_lists_flavors(stack, admin_token):
    resp = _get(stack, '/flavors', admin_token)
    assert resp.status_code == 200, resp.text
    assert isinstance(resp.json()['flavors'], list)
    assert resp.headers['Content-Type'] == 'application/json'


def test_admin_token_creates_flavor(stack, admin_token):
    name = 'live-%s' % uuid.uuid4().hex[:8]
    resp = _post(stack, '/flavors', _flavor(name), admin_token)
    assert resp.status_code == 200, resp.text
    flavor = resp.json()['flavor']
    assert (flavor['name'], flavor['ram'], flavor['vcpus'],
            flavor['disk']) == (name, 256, 1, 1)

    listed = _get(stack, '/flavors/detail', admin_token).json()['flavors']
    assert name in [f['name'] for f in listed]
    assert _delete(stack, '/flavors/%s' % flavor['id'],
                   admin_token).status_code == 202


@pytest.mark.parametrize('method', ['GET', 'POST'])
def test_missing_token_is_401(stack, method):
    if method == 'GET':
        resp = _get(stack, '/flavors')
    else:
        resp = _post(stack, '/flavors', _flavor('no-token'))
    assert resp.status_code == 401
    # keystonemiddleware tells the client where to get a token.
    assert resp.headers['WWW-Authenticate'] == (
        'Keystone uri="%s"' % stack.keystone.auth_url)


def test_garbage_token_is_401(stack):
    resp = _get(stack, '/flavors', 'gAAAAABnot-a-real-token')
    assert resp.status_code == 401


def test_revoked_token_is_401(stack):
    """A well-formed token Keystone no longer honours: proof that the API
    asks Keystone rather than checking the token's shape.
    """
    token = stack.token('admin')
    admin = stack.keystone.admin_client()
    resp = admin.session.delete(stack.keystone.auth_url + '/auth/tokens',
                                headers={'X-Subject-Token': token})
    assert resp.status_code == 204
    assert _get(stack, '/flavors', token).status_code == 401


def test_member_may_read_but_not_create(stack, demo_token, admin_token):
    assert _get(stack, '/flavors', demo_token).status_code == 200

    name = 'live-%s' % uuid.uuid4().hex[:8]
    resp = _post(stack, '/flavors', _flavor(name), demo_token)
    assert resp.status_code == 403, resp.text
    fault = resp.json()['forbidden']
    assert fault['code'] == 403
    assert 'os-flavor-manage:create' in fault['message']

    # The same request with the admin's token is allowed.
    resp = _post(stack, '/flavors', _flavor(name), admin_token)
    assert resp.status_code == 200, resp.text
    _delete(stack, '/flavors/%s' % resp.json()['flavor']['id'], admin_token)


def test_versions_document_needs_no_token(stack):
    resp = requests.get(stack.nova.api_url + '/compute/', timeout=TIMEOUT)
    assert resp.status_code == 200
