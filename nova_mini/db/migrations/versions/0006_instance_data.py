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

"""What servers keep from their boot request: metadata, tags, user data,
description, access addresses, the config drive flag, launch index and
boot roles; and when their build finished.

Revision ID: 0006_instance_data
Revises: 0005_request_specs
Create Date: 2026-11-24
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0006_instance_data'
down_revision = '0005_request_specs'
branch_labels = None
depends_on = None


def upgrade():
    for column in (
            sa.Column('user_data', sa.Text, nullable=True),
            sa.Column('description', sa.Text, nullable=True),
            sa.Column('access_ip_v4', sa.String(45), nullable=True),
            sa.Column('access_ip_v6', sa.String(45), nullable=True),
            sa.Column('config_drive', sa.Boolean, nullable=False,
                      server_default=sa.false()),
            sa.Column('launch_index', sa.Integer, nullable=False,
                      server_default='0'),
            sa.Column('boot_roles', db_types.JsonEncodedList, nullable=True),
            sa.Column('launched_at', sa.DateTime, nullable=True)):
        op.add_column('instances', column)
    # Until now nothing changed an active instance after its build, so
    # its updated_at is when the build finished.
    op.execute("UPDATE instances SET launched_at = updated_at "
               "WHERE vm_state = 'active'")

    op.create_table(
        'instance_metadata',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('instance_uuid', sa.String(36),
                  sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('key', sa.String(255), nullable=False),
        sa.Column('value', sa.String(255), nullable=False),
        sa.UniqueConstraint('instance_uuid', 'key',
                            name='uniq_instance_metadata0instance_uuid0key'),
    )
    op.create_table(
        'instance_tags',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('instance_uuid', sa.String(36),
                  sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
                  primary_key=True, nullable=False),
        sa.Column('tag', sa.String(60), primary_key=True, nullable=False),
    )
    op.create_index('instance_tags_tag_idx', 'instance_tags', ['tag'])
