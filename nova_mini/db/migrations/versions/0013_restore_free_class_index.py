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

"""The free-node index on an expression (0009), again where it is missing.

On SQLite, 0011 rebuilt the nodes table (alembic's batch mode) and left
out ``nodes_free_class_memory_mb_idx``, which SQLite cannot reflect,
while the scheduler names it in its query (``INDEXED BY``): every boot
failed with "no such index". Created here when it is not there (a
database 0011 left alone keeps its own).

Revision ID: 0013_restore_free_class_index
Revises: 0012_keypairs_instance_actions
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

revision = '0013_restore_free_class_index'
down_revision = '0012_keypairs_instance_actions'
branch_labels = None
depends_on = None

NAME = 'nodes_free_class_memory_mb_idx'

# NOTE: frozen copies of 0009's expressions.
_FREE = {
    'sqlite': "provision_state = 'available' AND maintenance IS 0 "
              "AND instance_uuid IS NULL",
    'postgresql': "provision_state = 'available' AND maintenance IS false "
                  "AND instance_uuid IS NULL",
}
_CLASS_KEY = ("upper(replace(replace(replace(resource_class, '-', '_'), "
              "'.', '_'), ' ', '_'))")


def upgrade():
    bind = op.get_bind()
    if bind.dialect.name != 'sqlite':
        return
    present = bind.exec_driver_sql(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
        (NAME,)).first()
    if present:
        return
    op.create_index(NAME, 'nodes',
                    [sa.text(_CLASS_KEY), 'memory_mb', 'id'],
                    sqlite_where=sa.text(_FREE['sqlite']))
