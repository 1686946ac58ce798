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

"""Migration 0026 gives the nodes their ``reservation`` (NULL for the
existing ones), indexed, and the column takes a conductor's host name.
"""

import pytest
import sqlalchemy as sa

from nova_mini.db import migration
from nova_mini.tests.fixtures import database as db_fixture


@pytest.mark.parametrize('backend', [
    pytest.param('sqlite'),
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mariadb', marks=pytest.mark.mariadb)])
def test_existing_nodes_are_unreserved(backend):
    fixture = db_fixture.DatabaseFixture(backend, sync=False)
    fixture.setUp()
    try:
        engine = fixture.engine
        migration.db_sync(engine, '0025_node_instance_info_longtext')
        assert 'reservation' not in {
            column['name'] for column in
            sa.inspect(engine).get_columns('nodes')}
        nodes = sa.table('nodes', sa.column('id'), sa.column('uuid'),
                         sa.column('driver'), sa.column('maintenance'))
        with engine.begin() as connection:
            connection.execute(nodes.insert(), [
                {'id': i, 'uuid': 'node-%d' % i, 'driver': 'fake-hardware',
                 'maintenance': False} for i in (1, 2)])
        migration.db_sync(engine)

        inspector = sa.inspect(engine)
        (column,) = [column for column in inspector.get_columns('nodes')
                     if column['name'] == 'reservation']
        assert column['nullable'] is True
        assert column['type'].length == 255
        assert ['reservation'] in [index['column_names'] for index in
                                   inspector.get_indexes('nodes')]
        host = 'conductor-' + 'x' * 245
        with engine.begin() as connection:
            assert connection.execute(sa.text(
                'SELECT id, reservation FROM nodes ORDER BY id')).all() == [
                    (1, None), (2, None)]
            connection.execute(sa.text(
                'UPDATE nodes SET reservation = :host WHERE id = 2'),
                {'host': host})
        with engine.connect() as connection:
            assert connection.execute(sa.text(
                'SELECT id FROM nodes WHERE reservation = :host'),
                {'host': host}).scalars().all() == [2]
    finally:
        fixture.cleanUp()
