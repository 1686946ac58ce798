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

"""The interfaces each conductor enables, as Ironic's
conductor_hardware_interfaces: one row per (conductor, hardware type,
interface type, implementation), ``default`` on the one nodes get. A
service writes them when it registers; ``GET /v1/drivers/{name}`` reads
those of the alive conductors.

Revision ID: 0027_conductor_hw_interfaces
Revises: 0026_node_reservation
Create Date: 2026-11-29
"""

from alembic import op
import sqlalchemy as sa

revision = '0027_conductor_hw_interfaces'
down_revision = '0026_node_reservation'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'conductor_hardware_interfaces',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('conductor_id', sa.Integer,
                  sa.ForeignKey('conductors.id',
                                name='conductor_hardware_interfaces_ibfk_1'),
                  nullable=False),
        sa.Column('hardware_type', sa.String(255), nullable=False),
        sa.Column('interface_type', sa.String(16), nullable=False),
        sa.Column('interface_name', sa.String(255), nullable=False),
        sa.Column('default', sa.Boolean, nullable=False,
                  server_default=sa.false()),
        sa.UniqueConstraint('conductor_id', 'hardware_type',
                            'interface_type', 'interface_name',
                            name='uniq_conductorhardwareinterfaces0'),
    )
