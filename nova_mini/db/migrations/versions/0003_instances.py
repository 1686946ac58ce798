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

"""Instances (servers), with their flavor snapshot and fault.

Revision ID: 0003_instances
Revises: 0002_nodes
Create Date: 2026-12-06
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0003_instances'
down_revision = '0002_nodes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'instances',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('project_id', sa.String(255), nullable=True),
        sa.Column('user_id', sa.String(255), nullable=True),
        # The serialized Flavor object of the instance (its own copy).
        sa.Column('flavor', sa.Text, nullable=False),
        sa.Column('image_ref', sa.String(255), nullable=True),
        sa.Column('vm_state', sa.String(16), nullable=False),
        sa.Column('node_uuid', sa.String(36), nullable=True),
        sa.Column('fault', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_instances0uuid'),
    )
    op.create_index('instances_project_id_idx', 'instances', ['project_id'])
