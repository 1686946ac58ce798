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

"""When a node's last inspection started and finished (Ironic's
inspection_started_at and inspection_finished_at, API 1.6).

Revision ID: 0020_node_inspection_times
Revises: 0019_baremetal_conductors
Create Date: 2026-11-27
"""

from alembic import op
import sqlalchemy as sa

revision = '0020_node_inspection_times'
down_revision = '0019_baremetal_conductors'
branch_labels = None
depends_on = None


def upgrade():
    # Plain ADD COLUMN (nullable): no table rebuild on SQLite, which would
    # drop the scheduler's expression index on nodes.
    for name in ('inspection_started_at', 'inspection_finished_at'):
        op.add_column('nodes', sa.Column(name, sa.DateTime, nullable=True))
