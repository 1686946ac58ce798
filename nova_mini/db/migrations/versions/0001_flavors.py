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

"""Flavors, their extra specs and project access.

Revision ID: 0001_flavors
Revises:
Create Date: 2026-11-22
"""

from alembic import op
import sqlalchemy as sa

revision = '0001_flavors'
down_revision = None
branch_labels = None
depends_on = None


def _timestamps():
    return [sa.Column('created_at', sa.DateTime),
            sa.Column('updated_at', sa.DateTime)]


def upgrade():
    op.create_table(
        'flavors',
        *_timestamps(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('flavorid', sa.String(255), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('memory_mb', sa.Integer, nullable=False),
        sa.Column('vcpus', sa.Integer, nullable=False),
        sa.Column('root_gb', sa.Integer, nullable=False),
        sa.Column('ephemeral_gb', sa.Integer, nullable=False),
        sa.Column('swap', sa.Integer, nullable=False),
        sa.Column('rxtx_factor', sa.Float, nullable=False),
        sa.Column('vcpu_weight', sa.Integer, nullable=True),
        sa.Column('is_public', sa.Boolean, nullable=False),
        sa.Column('disabled', sa.Boolean, nullable=False),
        sa.Column('description', sa.Text, nullable=True),
        sa.UniqueConstraint('flavorid', name='uniq_flavors0flavorid'),
        sa.UniqueConstraint('name', name='uniq_flavors0name'),
    )
    op.create_table(
        'flavor_extra_specs',
        *_timestamps(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('flavor_id', sa.Integer,
                  sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('key', sa.String(255), nullable=False),
        sa.Column('value', sa.String(255), nullable=False),
        sa.UniqueConstraint('flavor_id', 'key',
                            name='uniq_flavor_extra_specs0flavor_id0key'),
    )
    op.create_table(
        'flavor_projects',
        *_timestamps(),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('flavor_id', sa.Integer,
                  sa.ForeignKey('flavors.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.UniqueConstraint('flavor_id', 'project_id',
                            name='uniq_flavor_projects0flavor_id0project_id'),
    )
    op.create_index('flavor_projects_project_id_idx', 'flavor_projects',
                    ['project_id'])
