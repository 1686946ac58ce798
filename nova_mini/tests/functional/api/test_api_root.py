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

"""Requests whose path or query string is not UTF-8 are refused with a
400 in each root's error format (api_root.APIRoot), not a 500."""

import json

import pytest

ADMIN = {'X-Auth-Token': 'admin:admin'}


@pytest.mark.parametrize('path', [
    '/compute/v2.1/flavors/detail?sort_key=%FF',
    '/compute/v2.1/flavors/detail?%FF=1',
    '/compute/v2.1/flavors/%FF',
    '/compute/v2.1/flavors/%FF/os-extra_specs',
])
def test_compute_refuses_bytes_that_are_not_utf8(api, path):
    response = api.get(path, headers=ADMIN, expect_errors=True)
    assert response.status_int == 400
    assert response.json['badRequest']['code'] == 400


@pytest.mark.parametrize('path', [
    '/baremetal/v1/nodes?fields=%FF',
    '/baremetal/v1/nodes/%FF',
])
def test_baremetal_refuses_bytes_that_are_not_utf8(api, path):
    response = api.get(path, headers=ADMIN, expect_errors=True)
    assert response.status_int == 400
    fault = json.loads(response.json['error_message'])
    assert fault['faultcode'] == 'Client'


def test_a_body_that_is_not_utf8_is_malformed(api):
    response = api.post('/compute/v2.1/flavors', b'{"flavor": "\xff"}',
                        headers=dict(ADMIN, **{
                            'Content-Type': 'application/json'}),
                        expect_errors=True)
    assert response.status_int == 400
    assert 'badRequest' in response.json


@pytest.mark.parametrize('version,linked', [
    ('1.1', {'nodes', 'ports', 'chassis', 'drivers'}),
    ('1.23', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups'}),
    ('1.31', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups'}),
    ('1.32', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups',
              'volume'}),
    ('1.48', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups',
              'volume'}),
    ('1.49', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups',
              'volume', 'conductors'}),
    ('1.52', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups',
              'volume', 'conductors', 'allocations'}),
    ('1.54', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups',
              'volume', 'conductors', 'allocations'}),
    ('1.55', {'nodes', 'ports', 'chassis', 'drivers', 'portgroups',
              'volume', 'conductors', 'allocations', 'deploy_templates'}),
])
def test_baremetal_v1_links_collections_from_their_version(api, version,
                                                           linked):
    response = api.get('/baremetal/v1', headers={
        'X-OpenStack-Ironic-API-Version': version})
    collections = {name for name, value in response.json.items()
                   if name not in ('id', 'links') + _ENDPOINTS and
                   isinstance(value, list)}
    assert collections == linked


# Endpoints (not collections) the document links, checked below.
_ENDPOINTS = ('lookup', 'heartbeat', 'events')


@pytest.mark.parametrize('version,linked', [
    ('1.21', set()),
    ('1.22', {'lookup', 'heartbeat'}),
    ('1.53', {'lookup', 'heartbeat'}),
    ('1.54', {'lookup', 'heartbeat', 'events'}),
    ('1.65', {'lookup', 'heartbeat', 'events'}),
])
def test_baremetal_v1_links_endpoints_from_their_version(api, version,
                                                         linked):
    response = api.get('/baremetal/v1', headers={
        'X-OpenStack-Ironic-API-Version': version})
    assert {name for name in _ENDPOINTS if name in response.json} == linked
    for name in linked:
        assert response.json[name][0]['href'].endswith(
            '/baremetal/v1/%s/' % name)
