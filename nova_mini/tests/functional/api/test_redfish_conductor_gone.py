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

"""A redfish node whose conductors are all gone: its requests that need
one are Ironic's 404 no valid host (its NoValidHost is a NotFound; only
node create and patch make it 400), on each backend, and nothing is
written; the fake hardware's requests are unaffected. No RPC is sent:
the hash ring has no conductor to send it to.
"""

import sqlalchemy as sa
import webtest

from nova_mini.conductor import hash_ring
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}
MESSAGE = ('No valid host was found. Reason: No conductor service '
           'registered which supports driver redfish for conductor group '
           '\\"\\".')


def _execute(url, statement):
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            return [dict(row._mapping) for row in
                    connection.execute(statement)] \
                if statement.is_select else connection.execute(statement)
    finally:
        engine.dispose()


def test_requests_of_a_node_without_conductor_are_404(api_fixture_factory,
                                                      backend):
    fixture = api_fixture_factory(backend=backend)
    app = webtest.TestApp(fixture.app)
    conductor.register_host(nm_context.get_admin_context(), 'rf-gone-1',
                            ['redfish'])
    hash_ring.reset()
    app.post_json('/baremetal/v1/nodes', {
        'name': 'rf-0', 'driver': 'redfish',
        'driver_info': {'redfish_address': 'http://127.0.0.1:9'}},
        headers=HEADERS, status=201)
    table = models.Conductor.__table__
    _execute(fixture.database.url, table.update().where(
        table.c.hostname == 'rf-gone-1').values(online=False))
    # Once the ring's copy is rebuilt ([DEFAULT] hash_ring_reset_interval;
    # before, its requests time out: 503 ConductorNotResponding).
    hash_ring.reset()
    nodes = models.Node.__table__
    before = _execute(fixture.database.url, sa.select(nodes))
    for method, path, body in (
            ('put', 'states/power', {'target': 'power on'}),
            ('put', 'states/provision', {'target': 'manage'}),
            ('put', 'management/boot_device', {'boot_device': 'pxe'}),
            ('get', 'management/boot_device', None),
            ('get', 'management/boot_device/supported', None),
            ('get', 'validate', None)):
        url = '/baremetal/v1/nodes/rf-0/' + path
        if method == 'get':
            response = app.get(url, headers=HEADERS, status=404)
        else:
            response = app.put_json(url, body, headers=HEADERS, status=404)
        assert MESSAGE in response.json['error_message'], path
    assert _execute(fixture.database.url, sa.select(nodes)) == before
    # fake-hardware nodes are nova-mini-api's own.
    app.post_json('/baremetal/v1/nodes', {'name': 'fake-0',
                                          'driver': 'fake-hardware'},
                  headers=HEADERS, status=201)
    app.put_json('/baremetal/v1/nodes/fake-0/states/power',
                 {'target': 'power on'}, headers=HEADERS, status=202)
