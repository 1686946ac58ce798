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

"""``[DEFAULT] enabled_hardware_types`` as Ironic's: nova-mini-api
registers for fake-hardware only when it is enabled, and a hardware type
no service drives is neither listed nor accepted for a node (400 no
valid host); nothing is stored.
"""

import sqlalchemy as sa
import webtest

from nova_mini import conductor_heartbeat
from nova_mini import conf as nm_conf
from nova_mini.db import models

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}


def _rows(url, table):
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            return [dict(row._mapping) for row in
                    connection.execute(sa.select(table))]
    finally:
        engine.dispose()


def test_fake_hardware_disabled(api_fixture_factory):
    fixture = api_fixture_factory(
        conf_overrides={'enabled_hardware_types': ['redfish']})
    app = webtest.TestApp(fixture.app)
    (row,) = _rows(fixture.database.url, models.Conductor.__table__)
    assert row['drivers'] == []
    assert app.get('/baremetal/v1/drivers',
                   headers=HEADERS).json == {'drivers': []}
    response = app.post_json('/baremetal/v1/nodes',
                             {'driver': 'fake-hardware'}, headers=HEADERS,
                             status=400)
    assert ('No valid host was found. Reason: No conductor service '
            'registered which supports driver fake-hardware for conductor '
            'group \\"\\".') in response.json['error_message']
    assert _rows(fixture.database.url, models.Node.__table__) == []
    heartbeat = conductor_heartbeat.Heartbeat(
        fixture.database.url, 'api-2', 60)
    assert heartbeat.drivers == []


def test_fake_hardware_enabled_by_default(api_fixture_factory):
    fixture = api_fixture_factory()
    assert 'fake-hardware' in nm_conf.CONF.enabled_hardware_types
    app = webtest.TestApp(fixture.app)
    (row,) = _rows(fixture.database.url, models.Conductor.__table__)
    assert row['drivers'] == ['fake-hardware']
    app.post_json('/baremetal/v1/nodes', {'driver': 'fake-hardware'},
                  headers=HEADERS, status=201)
    assert len(_rows(fixture.database.url, models.Node.__table__)) == 1
