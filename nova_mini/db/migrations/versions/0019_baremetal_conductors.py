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


"""The services doing the bare-metal conductors' work (Ironic's conductors,
API 1.49): one row per host, refreshed while its service runs.

Revision ID: 0019_baremetal_conductors
Revises: 0018_baremetal_volumes
Create Date: 2026-11-27
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0019_baremetal_conductors'
down_revision = '0018_baremetal_volumes'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'conductors',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('hostname', sa.String(255), nullable=False),
        sa.Column('conductor_group', sa.String(255), nullable=False),
        sa.Column('online', sa.Boolean, nullable=False),
        sa.Column('drivers', db_types.JsonEncodedList, nullable=True),
        sa.UniqueConstraint('hostname', name='uniq_conductors0hostname'),
    )
