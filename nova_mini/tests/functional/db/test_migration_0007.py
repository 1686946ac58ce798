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

"""Migration 0007 fills the server list columns of existing servers: the
host name derived from the name, and the flavor id of the snapshot.
"""

from oslo_serialization import jsonutils
import pytest
import sqlalchemy as sa

from nova_mini.db import migration
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.tests.fixtures import database as db_fixture


def _flavor(flavorid):
    return jsonutils.dumps({'nova_object.name': 'Flavor',
                            'nova_object.data': {'flavorid': flavorid}})


@pytest.mark.parametrize('backend', [
    pytest.param('sqlite'),
    pytest.param('postgresql', marks=pytest.mark.postgresql)])
def test_hostname_and_flavorid_are_backfilled(backend):
    fixture = db_fixture.DatabaseFixture(backend, sync=False)
    fixture.setUp()
    try:
        engine = fixture.engine
        migration.db_sync(engine, '0006_instance_data')
        instances = sa.table(
            'instances', sa.column('id'), sa.column('uuid'),
            sa.column('name'), sa.column('flavor'), sa.column('vm_state'))
        names = ['Web Server_1.example', '!!!', None, 'Ünïcode ☃']
        with engine.begin() as connection:
            connection.execute(instances.insert(), [
                {'id': i, 'uuid': 'uuid-%d' % i, 'name': name,
                 'flavor': _flavor('bm-%d' % i) if i != 4 else 'not json',
                 'vm_state': 'active'}
                for i, name in enumerate(names, 1)])
        migration.db_sync(engine)
        with engine.connect() as connection:
            rows = connection.execute(sa.text(
                'SELECT hostname, flavorid FROM instances '
                'ORDER BY id')).all()
        # The rule of today's objects, frozen in the migration.
        assert [tuple(row) for row in rows] == [
            (instance_obj.hostname_of(name, 'uuid-%d' % i),
             'bm-%d' % i if i != 4 else None)
            for i, name in enumerate(names, 1)]
        assert rows[0][0] == 'web-server-1-example'
        assert rows[1][0] == 'Server-uuid-2'
    finally:
        fixture.cleanUp()
