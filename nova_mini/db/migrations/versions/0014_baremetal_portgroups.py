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

"""Port groups of bare-metal nodes (Ironic's portgroups, API 1.23 to
1.26), and the port group of a port.

Revision ID: 0014_baremetal_portgroups
Revises: 0013_restore_free_class_index
Create Date: 2026-11-25
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0014_baremetal_portgroups'
down_revision = '0013_restore_free_class_index'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'portgroups',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('address', sa.String(18), nullable=True),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.Column('internal_info', db_types.JsonEncodedDict, nullable=True),
        sa.Column('standalone_ports_supported', sa.Boolean, nullable=False),
        sa.Column('mode', sa.String(255), nullable=True),
        sa.Column('properties', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_portgroups0uuid'),
        sa.UniqueConstraint('address', name='uniq_portgroups0address'),
        sa.UniqueConstraint('name', name='uniq_portgroups0name'),
    )
    op.create_index('portgroups_node_id_idx', 'portgroups', ['node_id'])
    with op.batch_alter_table('ports') as batch:
        batch.add_column(sa.Column(
            'portgroup_id', sa.Integer,
            sa.ForeignKey('portgroups.id', name='ports_portgroup_id_fkey'),
            nullable=True))
    op.create_index('ports_portgroup_id_idx', 'ports', ['portgroup_id'])
