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

"""The project that owns a bare-metal node and the project it is leased
to (Ironic's ``owner`` and ``lessee``), each indexed: a project's node
list is the union of the nodes it owns and those it leases.

Revision ID: 0010_node_owner_lessee
Revises: 0009_free_nodes_index
Create Date: 2026-11-24
"""

from alembic import op
import sqlalchemy as sa

revision = '0010_node_owner_lessee'
down_revision = '0009_free_nodes_index'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column('owner', sa.String(255), nullable=True))
        batch.add_column(sa.Column('lessee', sa.String(255), nullable=True))
    op.create_index('nodes_owner_idx', 'nodes', ['owner'])
    op.create_index('nodes_lessee_idx', 'nodes', ['lessee'])
