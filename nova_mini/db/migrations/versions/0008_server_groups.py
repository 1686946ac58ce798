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

"""Server groups (the compute API's ``os-server-groups``): a group with
its placement policy and rules, and its member servers.

A server belongs to at most one group and leaves it when it is deleted
(the membership row goes with the instance row); deleting a group deletes
its memberships.

Revision ID: 0008_server_groups
Revises: 0007_instance_list_indexes
Create Date: 2026-11-24
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0008_server_groups'
down_revision = '0007_instance_list_indexes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'server_groups',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=False),
        sa.Column('policy', sa.String(255), nullable=False),
        sa.Column('rules', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_server_groups0uuid'),
    )
    op.create_index('server_groups_project_id_idx', 'server_groups',
                    ['project_id', 'id'])
    op.create_table(
        'server_group_members',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('instance_uuid', sa.String(36),
                  sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
                  primary_key=True, nullable=False),
        sa.Column('group_id', sa.Integer,
                  sa.ForeignKey('server_groups.id', ondelete='CASCADE'),
                  nullable=False),
    )
    op.create_index('server_group_members_group_id_idx',
                    'server_group_members', ['group_id'])
