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

"""The scheduler's ranking of the free nodes: partial indexes on
(memory_mb, id) and on (resource class, memory_mb, id) of the nodes that
are available, not in maintenance and without an instance, so that on a
full fleet the best free nodes (of the class asked for) are read without
stepping over the deployed ones or those of other classes.

Revision ID: 0009_free_nodes_index
Revises: 0008_server_groups
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

revision = '0009_free_nodes_index'
down_revision = '0008_server_groups'
branch_labels = None
depends_on = None

# NOTE: a frozen copy of db.models.FREE_NODE: migrations must not change
# when the application code does.
_FREE = {
    'sqlite': "provision_state = 'available' AND maintenance IS 0 "
              "AND instance_uuid IS NULL",
    'postgresql': "provision_state = 'available' AND maintenance IS false "
                  "AND instance_uuid IS NULL",
}
# ... and of db.models.CLASS_KEY.
_CLASS_KEY = ("upper(replace(replace(replace(resource_class, '-', '_'), "
              "'.', '_'), ' ', '_'))")


def upgrade():
    # MySQL and MariaDB have no partial index (MariaDB no index on an
    # expression either): the scheduler reads nodes_memory_mb_idx there.
    if op.get_bind().dialect.name not in _FREE:
        return
    op.create_index('nodes_free_memory_mb_idx', 'nodes', ['memory_mb', 'id'],
                    sqlite_where=sa.text(_FREE['sqlite']),
                    postgresql_where=sa.text(_FREE['postgresql']))
    op.create_index('nodes_free_class_memory_mb_idx', 'nodes',
                    [sa.text(_CLASS_KEY), 'memory_mb', 'id'],
                    sqlite_where=sa.text(_FREE['sqlite']),
                    postgresql_where=sa.text(_FREE['postgresql']))
