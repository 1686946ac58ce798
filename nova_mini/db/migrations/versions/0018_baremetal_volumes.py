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

"""Volume connectors and volume targets of bare-metal nodes (Ironic's
volume resources, API 1.32).

Revision ID: 0018_baremetal_volumes
Revises: 0017_baremetal_deploy_templates
Create Date: 2026-11-27
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0018_baremetal_volumes'
down_revision = '0017_baremetal_deploy_templates'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'volume_connectors',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('type', sa.String(32), nullable=False),
        sa.Column('connector_id', sa.String(255), nullable=False),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_volumeconnectors0uuid'),
        sa.UniqueConstraint('type', 'connector_id',
                            name='uniq_volumeconnectors0type0connector_id'),
    )
    op.create_index('volume_connectors_node_id_idx', 'volume_connectors',
                    ['node_id'])
    op.create_table(
        'volume_targets',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('volume_type', sa.String(64), nullable=False),
        sa.Column('properties', db_types.JsonEncodedDict, nullable=True),
        sa.Column('boot_index', sa.Integer, nullable=False),
        sa.Column('volume_id', sa.String(36), nullable=False),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_volumetargets0uuid'),
        sa.UniqueConstraint('node_id', 'boot_index',
                            name='uniq_volumetargets0node_id0boot_index'),
    )
