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

"""Paths and query strings an attacker writes (bytes that are not UTF-8,
10 KB identifiers, Unicode and huge numbers where a uuid or an integer is
expected), on every route family, by a member and without a token, on
SQLite and PostgreSQL: each is a 4xx (or an empty list), never a 500,
and nothing logs a traceback.
"""


import pytest
import webtest

from nova_mini.tests.fixtures import api as api_fixture

ADMIN = 'admin:admin'
MEMBER = 'u:p-own'
VERSIONS = {'X-OpenStack-Ironic-API-Version': 'latest',
            'OpenStack-API-Version': 'compute latest'}
HOSTILE = ('%ff', 'x' * 10000, '%C3%A9t%C3%A9', '9' * 40, '-1')
PATHS = (
    '/compute/v2.1/servers/{}', '/compute/v2.1/servers/{}/metadata/{}',
    '/compute/v2.1/servers/{}/os-instance-actions/{}',
    '/compute/v2.1/flavors/{}', '/compute/v2.1/flavors/{}/os-extra_specs/{}',
    '/compute/v2.1/flavors/{}/os-flavor-access',
    '/compute/v2.1/os-keypairs/{}', '/compute/v2.1/os-server-groups/{}',
    '/compute/v2.1/os-quota-sets/{}', '/compute/v2.1/limits?tenant_id={}',
    '/compute/v2.1/servers?marker={}', '/compute/v2.1/flavors?marker={}',
    '/compute/v2.1/os-keypairs?marker={}',
    '/compute/v2.1/servers/detail?flavor={}',
    '/compute/v2.1/servers?changes-since={}',
    '/compute/v2.1/servers?sort_key={}', '/compute/v2.1/servers?limit={}',
    '/baremetal/v1/nodes/{}', '/baremetal/v1/nodes/{}/vifs',
    '/baremetal/v1/nodes/{}/traits', '/baremetal/v1/nodes/{}/states',
    '/baremetal/v1/nodes/{}/bios/{}', '/baremetal/v1/nodes/{}/allocation',
    '/baremetal/v1/ports/{}', '/baremetal/v1/portgroups/{}',
    '/baremetal/v1/chassis/{}', '/baremetal/v1/allocations/{}',
    '/baremetal/v1/deploy_templates/{}',
    '/baremetal/v1/volume/connectors/{}', '/baremetal/v1/volume/targets/{}',
    '/baremetal/v1/drivers/{}', '/baremetal/v1/conductors/{}',
    '/baremetal/v1/ports?node={}', '/baremetal/v1/ports?address={}',
    '/baremetal/v1/allocations?node={}', '/baremetal/v1/nodes?fields={}',
    '/baremetal/v1/nodes?sort_key={}', '/baremetal/v1/ports?marker={}',
    '/baremetal/v1/allocations?marker={}', '/baremetal/v1/ports?limit={}',
    '/baremetal/v1/lookup?addresses={}',
)


@pytest.fixture(scope='module')
def app(backend):
    fixture = api_fixture.APIFixture(backend=backend)
    fixture.setUp()
    yield webtest.TestApp(fixture.app, lint=False)
    fixture.cleanUp()


pytestmark = pytest.mark.usefixtures('no_traceback')


def _headers(token):
    headers = dict(VERSIONS)
    if token:
        headers['X-Auth-Token'] = token
    return headers


@pytest.mark.parametrize('token', [ADMIN, MEMBER])
@pytest.mark.parametrize('template', PATHS)
def test_hostile_segment_is_a_4xx(app, template, token):
    for value in HOSTILE:
        for method in ('GET', 'DELETE'):
            answer = app.request(template.replace('{}', value),
                                 method=method, headers=_headers(token),
                                 expect_errors=True)
            assert answer.status_int < 500, (method, value[:20],
                                             answer.text[:200])


@pytest.mark.parametrize('path', [
    '/baremetal/v1/heartbeat/%ff', '/baremetal/v1/nodes/%ff',
    '/compute/v2.1/servers/%ff', '/baremetal/v1/heartbeat/%C3%A9',
])
def test_path_not_utf8_without_a_token(app, path):
    # noauth2 answers a request without a token with one to use (and a
    # management URL built from the path, which must not be decoded).
    answer = app.post(path, b'{}', headers=dict(
        _headers(None), **{'Content-Type': 'application/json'}),
        expect_errors=True)
    assert answer.status_int < 500
