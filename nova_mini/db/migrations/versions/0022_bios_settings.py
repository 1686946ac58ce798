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

"""The BIOS settings of nodes (Ironic's bios_settings, API 1.40), as the
fake BIOS interface's clean steps store them (manual cleaning, 1.15).

A table of its own rather than a JSON column of nodes: a setting has its
own creation and update times, and one setting is read by name.

Revision ID: 0022_bios_settings
Revises: 0021_node_raid_config
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0022_bios_settings'
down_revision = '0021_node_raid_config'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'bios_settings',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        # The primary key (node_id, name): one setting of a name per node,
        # and a node's settings read from the key alone.
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True, nullable=False),
        sa.Column('name', sa.String(255), primary_key=True, nullable=False),
        sa.Column('value', sa.Text, nullable=True),
    )
