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

"""Bare-metal nodes and their traits.

Revision ID: 0002_nodes
Revises: 0001_flavors
Create Date: 2026-11-29
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0002_nodes'
down_revision = '0001_flavors'
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade():
    op.create_table(
        'nodes',
        *_timestamps(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=True),
        sa.Column('driver', sa.String(255), nullable=False),
        sa.Column('driver_info', db_types.JsonEncodedDict, nullable=True),
        sa.Column('resource_class', sa.String(80), nullable=True),
        sa.Column('properties', db_types.JsonEncodedDict, nullable=True),
        sa.Column('provision_state', sa.String(15), nullable=True),
        sa.Column('target_provision_state', sa.String(15), nullable=True),
        sa.Column('provision_updated_at', sa.DateTime, nullable=True),
        sa.Column('power_state', sa.String(15), nullable=True),
        sa.Column('target_power_state', sa.String(15), nullable=True),
        sa.Column('maintenance', sa.Boolean, nullable=False),
        sa.Column('maintenance_reason', sa.Text, nullable=True),
        sa.Column('instance_uuid', sa.String(36), nullable=True),
        sa.Column('instance_info', db_types.JsonEncodedDict, nullable=True),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.Column('last_error', sa.Text, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_nodes0uuid'),
        sa.UniqueConstraint('name', name='uniq_nodes0name'),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_nodes0instance_uuid'),
    )
    op.create_index('nodes_provision_state_idx', 'nodes',
                    ['provision_state'])
    op.create_index('nodes_resource_class_idx', 'nodes', ['resource_class'])
    op.create_table(
        'node_traits',
        *_timestamps(),
        # The primary key (node_id, trait) also serves the per-node
        # lookups of the trait filters (EXISTS ... WHERE node_id = ...).
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  primary_key=True, nullable=False),
        sa.Column('trait', sa.String(255), primary_key=True,
                  nullable=False),
    )
    # (trait, node_id): the nodes having a trait, from the index alone.
    op.create_index('node_traits_idx', 'node_traits', ['trait', 'node_id'])
