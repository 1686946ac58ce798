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

"""Deploy templates of the bare-metal API (Ironic's deploy templates, API
1.55): a named list of deploy steps applied to a node whose instance asks
for the trait of the same name.

Revision ID: 0017_baremetal_deploy_templates
Revises: 0016_baremetal_allocations
Create Date: 2026-11-27
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0017_baremetal_deploy_templates'
down_revision = '0016_baremetal_allocations'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'deploy_templates',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('steps', db_types.JsonEncodedList, nullable=False),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_deploytemplates0uuid'),
        sa.UniqueConstraint('name', name='uniq_deploytemplates0name'),
    )
