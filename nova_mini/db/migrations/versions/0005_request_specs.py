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

"""The RequestSpec of each instance, kept for as long as the instance.

Revision ID: 0005_request_specs
Revises: 0004_node_capacity
Create Date: 2026-11-23
"""

from alembic import op
import sqlalchemy as sa

revision = '0005_request_specs'
down_revision = '0004_node_capacity'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'request_specs',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('instance_uuid', sa.String(36),
                  sa.ForeignKey('instances.uuid', ondelete='CASCADE'),
                  nullable=False),
        # The serialized RequestSpec, without its per-request fields.
        sa.Column('spec', sa.Text, nullable=False),
        sa.UniqueConstraint('instance_uuid',
                            name='uniq_request_specs0instance_uuid'),
    )
