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

"""A node shows its stored ``reservation`` (the host of the conductor
working on it), as Ironic's: null while none is, on every backend.
"""

import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.tests.fixtures import builders

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}


def _reserve(url, node_id, host):
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(models.Node.__table__.update().where(
                models.Node.id == node_id).values(reservation=host))
    finally:
        engine.dispose()


def test_a_node_shows_its_reservation(api_fixture_factory, backend):
    fixture = api_fixture_factory(backend=backend)
    app = webtest.TestApp(fixture.app)
    admin = nm_context.get_admin_context()
    free = builders.create_node(admin, 'free')
    held = builders.create_node(admin, 'held')
    _reserve(fixture.database.url, held.id, 'conductor-1.example.com')

    def show(node, fields=''):
        return app.get('/baremetal/v1/nodes/%s%s' % (node.uuid, fields),
                       headers=HEADERS).json

    assert show(free)['reservation'] is None
    assert show(held)['reservation'] == 'conductor-1.example.com'
    selected = show(held, '?fields=uuid,reservation')
    selected.pop('links')
    assert selected == {'uuid': held.uuid,
                        'reservation': 'conductor-1.example.com'}
    listed = {node['name']: node['reservation'] for node in app.get(
        '/baremetal/v1/nodes/detail', headers=HEADERS).json['nodes']}
    assert listed == {'free': None, 'held': 'conductor-1.example.com'}
