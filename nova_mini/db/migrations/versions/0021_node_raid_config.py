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

"""A node's RAID configurations: the one asked for (Ironic's
target_raid_config, set with PUT .../states/raid) and the one built by
cleaning (raid_config), both API 1.12.

Revision ID: 0021_node_raid_config
Revises: 0020_node_inspection_times
Create Date: 2026-11-27
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0021_node_raid_config'
down_revision = '0020_node_inspection_times'
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMN (nullable): a batch rebuild of nodes on SQLite
    # would drop the scheduler's expression index.
    for name in ('target_raid_config', 'raid_config'):
        op.add_column('nodes', sa.Column(name, db_types.JsonEncodedDict,
                                         nullable=True))
