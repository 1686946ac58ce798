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

"""The API while its PostgreSQL server is stopped (``pg_ctl stop -m
fast``) and after it is started again: reads and writes of both roots are
answered 503 with Retry-After in the root's error format (a write after
waiting ``[database] write_wait_timeout``, saying the database cannot be
reached), never 500; once the server is back the same app serves and
stores again, its engine not disposed of.

The server is a PostgreSQL cluster of the test's own (harness
``postgresql.PrivateCluster``).
"""

import json

import pytest
import webtest

from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import database as db_fixture
from nova_mini.tests.harness import postgresql

pytestmark = pytest.mark.postgresql

COMPUTE = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Nova-API-Version': '2.61'}
BAREMETAL = {'X-Auth-Token': 'admin:admin',
             'X-OpenStack-Ironic-API-Version': '1.37'}
FLAVOR = {'flavor': {'name': 'f1', 'ram': 64, 'vcpus': 1, 'disk': 0}}


@pytest.fixture
def cluster():
    with postgresql.PrivateCluster() as pg:
        yield pg


@pytest.fixture
def api(cluster, monkeypatch):
    # The API fixture's fresh database, on the private cluster.
    monkeypatch.setattr(db_fixture, 'postgresql_admin_url',
                        lambda: cluster.admin_url)
    fixture = api_fixture.APIFixture(backend='postgresql', conf_overrides={
        'database.write_wait_timeout': 0.5,
        'database.write_retry_interval': 0.01,
        'database.write_max_retry_interval': 0.05})
    fixture.setUp()
    yield webtest.TestApp(fixture.app)
    if not cluster.running:
        cluster.start()
    fixture.cleanUp()


def _nova_fault(resp):
    assert resp.status_int == 503, resp.text
    assert int(resp.headers['Retry-After']) >= 1
    fault = resp.json['serviceUnavailable']
    assert fault['code'] == 503
    return fault['message']


def _ironic_fault(resp):
    assert resp.status_int == 503, resp.text
    assert int(resp.headers['Retry-After']) >= 1
    error = json.loads(resp.json['error_message'])
    assert error['faultcode'] == 'Server'
    return error['faultstring']


def test_stopped_database_is_503_then_served_again(cluster, api):
    api.post_json('/baremetal/v1/nodes', {'name': 'n1',
                                          'driver': 'fake-hardware'},
                  headers=BAREMETAL)
    assert api.get('/compute/v2.1/flavors',
                   headers=COMPUTE).json['flavors'] == []
    cluster.stop(mode='fast')

    # Reads: at once.
    message = _nova_fault(api.get('/compute/v2.1/flavors', headers=COMPUTE,
                                  expect_errors=True))
    assert 'cannot be reached' in message and 'Retry' in message
    message = _ironic_fault(api.get('/baremetal/v1/nodes/n1',
                                    headers=BAREMETAL, expect_errors=True))
    assert 'cannot be reached' in message
    # Writes: after waiting write_wait_timeout for it to come back.
    message = _nova_fault(api.post_json('/compute/v2.1/flavors', FLAVOR,
                                        headers=COMPUTE,
                                        expect_errors=True))
    assert message.startswith('The database cannot be reached'), message
    assert 'Retry the request' in message
    message = _ironic_fault(api.put('/baremetal/v1/nodes/n1/traits/'
                                    'CUSTOM_A', headers=BAREMETAL,
                                    expect_errors=True))
    assert message.startswith('The database cannot be reached'), message

    cluster.start()
    # Nothing was written meanwhile; the same requests now succeed.
    assert api.get('/compute/v2.1/flavors',
                   headers=COMPUTE).json['flavors'] == []
    assert api.get('/baremetal/v1/nodes/n1/traits',
                   headers=BAREMETAL).json['traits'] == []
    created = api.post_json('/compute/v2.1/flavors', FLAVOR,
                            headers=COMPUTE).json['flavor']
    api.put('/baremetal/v1/nodes/n1/traits/CUSTOM_A', headers=BAREMETAL)
    assert [f['name'] for f in api.get(
        '/compute/v2.1/flavors', headers=COMPUTE).json['flavors']] == ['f1']
    assert api.get('/compute/v2.1/flavors/%s' % created['id'],
                   headers=COMPUTE).json['flavor']['ram'] == 64
    assert api.get('/baremetal/v1/nodes/n1/traits',
                   headers=BAREMETAL).json['traits'] == ['CUSTOM_A']
