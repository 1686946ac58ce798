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

"""The metadata service while its PostgreSQL server is stopped: 503 with
Retry-After (an instance's cloud-init asks again), never 500; served again
once the server is back, the app not rebuilt.

The server is a PostgreSQL cluster of the test's own (harness
``postgresql.PrivateCluster``).
"""

import json

import pytest

from nova_mini.tests.fixtures import database as db_fixture
from nova_mini.tests.fixtures import metadata_service
from nova_mini.tests.harness import postgresql

pytestmark = pytest.mark.postgresql


@pytest.fixture
def cluster():
    with postgresql.PrivateCluster() as pg:
        yield pg


@pytest.fixture
def db(cluster, monkeypatch):
    """The conftest's ``db``, on the private cluster."""
    monkeypatch.setattr(db_fixture, 'postgresql_admin_url',
                        lambda: cluster.admin_url)
    fixture = db_fixture.DatabaseFixture('postgresql')
    fixture.setUp()
    yield fixture
    if not cluster.running:
        cluster.start()
    fixture.cleanUp()


def test_stopped_database_is_503_then_served_again(
        cluster, app, make_instance):
    instance = make_instance(name='web-1')
    path = '/openstack/latest/meta_data.json'
    headers = metadata_service.headers(instance.uuid)
    assert app.get(path, headers=headers).json['uuid'] == instance.uuid

    cluster.stop(mode='fast')
    try:
        resp = app.get(path, headers=headers, expect_errors=True)
    finally:
        cluster.start()
    assert resp.status_int == 503, resp.text
    assert resp.headers['Retry-After'] == '5'
    assert 'cannot reach its database' in resp.text

    document = app.get(path, headers=headers).json
    assert (document['uuid'], document['name']) == (instance.uuid, 'web-1')
    user_data = app.get('/openstack/latest/network_data.json',
                        headers=headers)
    assert json.loads(user_data.body)['links'] is not None
