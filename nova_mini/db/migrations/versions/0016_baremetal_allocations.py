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

"""Allocations of bare-metal nodes (Ironic's allocations, API 1.52 to
1.60).

Revision ID: 0016_baremetal_allocations
Revises: 0015_instance_auto_disk_config
Create Date: 2026-11-25
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0016_baremetal_allocations'
down_revision = '0015_instance_auto_disk_config'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'allocations',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('node_id', sa.Integer, nullable=True),
        sa.Column('state', sa.String(15), nullable=False),
        sa.Column('owner', sa.String(255), nullable=True),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('traits', db_types.JsonEncodedList, nullable=True),
        sa.Column('candidate_nodes', db_types.JsonEncodedList,
                  nullable=True),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_allocations0uuid'),
        sa.UniqueConstraint('name', name='uniq_allocations0name'),
    )
    op.create_index('allocations_node_id_idx', 'allocations', ['node_id'])
    op.create_index('allocations_owner_idx', 'allocations', ['owner'])
