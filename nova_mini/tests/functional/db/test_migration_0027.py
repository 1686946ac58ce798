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

"""Migration 0027 adds the conductors' hardware interfaces (empty: the
existing conductors register theirs when they start again), one row per
(conductor, hardware type, interface type, implementation).
"""

from oslo_db import exception as db_exc
import pytest
import sqlalchemy as sa

from nova_mini.db import migration
from nova_mini.tests.fixtures import database as db_fixture


@pytest.mark.parametrize('backend', [
    pytest.param('sqlite'),
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mariadb', marks=pytest.mark.mariadb)])
def test_conductor_hardware_interfaces(backend):
    fixture = db_fixture.DatabaseFixture(backend, sync=False)
    fixture.setUp()
    try:
        engine = fixture.engine
        migration.db_sync(engine, '0026_node_reservation')
        assert 'conductor_hardware_interfaces' not in \
            sa.inspect(engine).get_table_names()
        conductors = sa.table('conductors', sa.column('id'),
                              sa.column('hostname'),
                              sa.column('conductor_group'),
                              sa.column('online'))
        with engine.begin() as connection:
            connection.execute(conductors.insert(), [
                {'id': 1, 'hostname': 'c1', 'conductor_group': '',
                 'online': True}])
        migration.db_sync(engine)

        rows = sa.table('conductor_hardware_interfaces',
                        sa.column('conductor_id'),
                        sa.column('hardware_type'),
                        sa.column('interface_type'),
                        sa.column('interface_name'), sa.column('default'))
        row = {'conductor_id': 1, 'hardware_type': 'redfish',
               'interface_type': 'boot',
               'interface_name': 'redfish-virtual-media', 'default': True}
        with engine.begin() as connection:
            assert connection.execute(
                sa.select(sa.func.count()).select_from(rows)).scalar() == 0
            connection.execute(rows.insert(), [row])
        with pytest.raises(db_exc.DBDuplicateEntry):
            with engine.begin() as connection:
                connection.execute(rows.insert(), [row])
        with engine.connect() as connection:
            assert connection.execute(
                sa.select(rows.c.interface_name, rows.c.default)).all() == \
                [('redfish-virtual-media', True)]
    finally:
        fixture.cleanUp()
