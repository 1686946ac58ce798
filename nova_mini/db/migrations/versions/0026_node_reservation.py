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

"""A node's reservation, as Ironic's: the host of the nova-mini-conductor
working on it (NULL while none is).

A conductor takes a node with one conditional UPDATE (``WHERE
reservation IS NULL``) and gives it back when its work ends; the index
serves the conductors' look-ups of their own reservations (at start) and
of those of dead conductors (takeover). Existing nodes are unreserved.

Revision ID: 0026_node_reservation
Revises: 0025_node_instance_info_longtext
Create Date: 2026-11-29
"""

from alembic import op
import sqlalchemy as sa

revision = '0026_node_reservation'
down_revision = '0025_node_instance_info_longtext'
branch_labels = None
depends_on = None


def upgrade():
    op.add_column('nodes', sa.Column('reservation', sa.String(255),
                                     nullable=True))
    op.create_index('nodes_reservation_idx', 'nodes', ['reservation'])
