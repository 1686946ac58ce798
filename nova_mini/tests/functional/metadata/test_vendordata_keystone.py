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

"""The service token of DynamicJSON: keystoneauth1's v3password plugin
against a local server speaking Keystone's token API (the live tests use
the real Keystone)."""

import itertools
import json

import pytest

from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import vendordata as helpers

# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load


class TokenAPI:
    """POST /v3/auth/tokens: a new token per call, for user nova only."""

    def __init__(self):
        self.counter = itertools.count(1)
        self.issued = []

    def __call__(self, request):
        if (request.method, request.path) != ('POST', '/v3/auth/tokens'):
            return http_servers.json_reply({}, status=404)
        user = json.loads(request.body)['auth']['identity']['password'][
            'user']
        if (user['name'], user['password']) != ('nova', 'secret'):
            return http_servers.json_reply(
                {'error': {'code': 401, 'title': 'Unauthorized'}},
                status=401)
        token = 'token-%d' % next(self.counter)
        self.issued.append(token)
        return http_servers.json_reply({'token': {
            'methods': ['password'],
            'expires_at': '2099-01-01T00:00:00.000000Z',
            'issued_at': '2026-01-01T00:00:00.000000Z',
            'user': {'id': 'nova-id', 'name': 'nova',
                     'domain': {'id': 'default', 'name': 'Default'}},
            'project': {'id': 'service-id', 'name': 'service',
                        'domain': {'id': 'default', 'name': 'Default'}},
            'roles': [{'id': 'r', 'name': 'service'}],
            'catalog': []}}, status=201, headers={'X-Subject-Token': token})


@pytest.fixture
def keystone():
    server = http_servers.ReplyServer(TokenAPI())
    server.setUp()
    try:
        yield server
    finally:
        server.cleanUp()


@pytest.fixture
def target():
    server = http_servers.ReplyServer()
    server.setUp()
    try:
        yield server
    finally:
        server.cleanUp()


def _providers(load, keystone, target, password='secret'):
    return load(**{
        'vendordata_providers': ['DynamicJSON'],
        'vendordata_dynamic_targets': ['ad@' + target.url],
        'vendordata_dynamic_cache_max_age': 0,
        'vendordata_dynamic_auth.auth_type': 'v3password',
        'vendordata_dynamic_auth.auth_url': keystone.url + 'v3',
        'vendordata_dynamic_auth.username': 'nova',
        'vendordata_dynamic_auth.password': password,
        'vendordata_dynamic_auth.user_domain_name': 'Default',
        'vendordata_dynamic_auth.project_name': 'service',
        'vendordata_dynamic_auth.project_domain_name': 'Default'})


def test_targets_get_the_service_token(load, keystone, target):
    target.reply = http_servers.json_reply({'ok': 1})
    providers = _providers(load, keystone, target)
    instance = helpers.make_instance()
    for _i in range(3):
        assert providers.vendor_data2(instance) == {'ad': {'ok': 1}}
    # One token, reused until it is refused.
    assert keystone.reply.issued == ['token-1']
    assert [request.headers['X-Auth-Token']
            for request in target.requests] == ['token-1'] * 3


def test_a_refused_token_is_renewed_once(load, keystone, target):
    def reply(request):
        if request.headers['X-Auth-Token'] == 'token-1':
            return http_servers.json_reply({}, status=401)
        return http_servers.json_reply({'ok': 1})
    target.reply = reply
    providers = _providers(load, keystone, target)
    assert providers.vendor_data2(helpers.make_instance()) == {
        'ad': {'ok': 1}}
    assert keystone.reply.issued == ['token-1', 'token-2']


def test_wrong_credentials_leave_the_key_out(load, keystone, target,
                                             caplog):
    providers = _providers(load, keystone, target,
                           password='wrong')
    instance = helpers.make_instance()
    assert providers.vendor_data2(instance) == {}
    assert target.calls == 0
    assert ('Vendordata target ad (%s) failed for instance %s: '
            % (target.url, instance.uuid)) in caplog.text
    assert '401' in caplog.text
