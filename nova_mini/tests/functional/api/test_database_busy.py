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

"""A write that waits longer than ``[database] write_wait_timeout`` for a
busy database is answered 503 with Retry-After, in each root's error
format, with nothing written; once the database is free the same request
succeeds.
"""

import json

import pytest
import sqlalchemy as sa
import webtest

from nova_mini.db import models

COMPUTE = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Nova-API-Version': '2.61'}
BAREMETAL = {'X-Auth-Token': 'admin:admin',
             'X-OpenStack-Ironic-API-Version': '1.37'}


@pytest.fixture
def busy_api(api_fixture_factory):
    fixture = api_fixture_factory(conf_overrides={
        'database.write_wait_timeout': 0.5,
        'database.write_retry_interval': 0.01,
        'database.write_max_retry_interval': 0.05})
    return webtest.TestApp(fixture.app), fixture.database.engine


def _lock(engine):
    """Take SQLite's write lock from another connection; its release."""
    # A write matching no row still takes the write lock.
    connection = engine.connect()
    connection.execute(models.Flavor.__table__.delete().where(sa.false()))
    return connection


def test_busy_database_is_503_with_retry_after(busy_api):
    api, engine = busy_api
    api.post_json('/baremetal/v1/nodes', {'name': 'n1',
                                          'driver': 'fake-hardware'},
                  headers=BAREMETAL)
    holder = _lock(engine)
    try:
        resp = api.post_json('/compute/v2.1/flavors', {'flavor': {
            'name': 'f1', 'ram': 64, 'vcpus': 1, 'disk': 0}},
            headers=COMPUTE, expect_errors=True)
        assert resp.status_int == 503, resp.text
        assert resp.headers['Retry-After'] == '1'
        fault = resp.json['serviceUnavailable']
        assert fault['code'] == 503
        assert 'database is busy' in fault['message']
        assert 'Retry the request in 1 seconds' in fault['message']

        resp = api.put('/baremetal/v1/nodes/n1/traits/CUSTOM_A',
                       headers=BAREMETAL, expect_errors=True)
        assert resp.status_int == 503, resp.text
        assert resp.headers['Retry-After'] == '1'
        error = json.loads(resp.json['error_message'])
        assert error['faultcode'] == 'Server'
        assert 'Retry the request' in error['faultstring']
    finally:
        holder.rollback()
        holder.close()
    # Nothing was half-written; the same requests now succeed.
    assert api.get('/compute/v2.1/flavors', headers=COMPUTE).json[
        'flavors'] == []
    assert api.get('/baremetal/v1/nodes/n1/traits',
                   headers=BAREMETAL).json['traits'] == []
    api.post_json('/compute/v2.1/flavors', {'flavor': {
        'name': 'f1', 'ram': 64, 'vcpus': 1, 'disk': 0}}, headers=COMPUTE)
    api.put('/baremetal/v1/nodes/n1/traits/CUSTOM_A', headers=BAREMETAL)
    assert api.get('/baremetal/v1/nodes/n1/traits',
                   headers=BAREMETAL).json['traits'] == ['CUSTOM_A']
