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

"""Chassis and ports of bare-metal nodes (Ironic's), and the node columns
of the versions up to 1.65 that nodes lacked: the chassis, console state,
driver_internal_info, the hardware interfaces (1.20 to 1.40),
conductor_group (1.46), automated_clean (1.47), protected (1.48),
description (1.51) and retired (1.61).

Revision ID: 0011_baremetal_chassis_ports
Revises: 0010_node_owner_lessee
Create Date: 2026-11-25
"""

from alembic import op
from oslo_db.sqlalchemy import types as db_types
import sqlalchemy as sa

revision = '0011_baremetal_chassis_ports'
down_revision = '0010_node_owner_lessee'
branch_labels = None
depends_on = None

# Frozen copy: the interface columns of this revision.
_INTERFACES = ('bios', 'boot', 'console', 'deploy', 'inspect', 'management',
               'network', 'power', 'raid', 'rescue', 'storage', 'vendor')


def upgrade():
    op.create_table(
        'chassis',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('description', sa.String(255), nullable=True),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_chassis0uuid'),
    )
    with op.batch_alter_table('nodes') as batch:
        batch.add_column(sa.Column(
            'chassis_id', sa.Integer,
            sa.ForeignKey('chassis.id', name='nodes_chassis_id_fkey'),
            nullable=True))
        batch.add_column(sa.Column('console_enabled', sa.Boolean,
                                   nullable=False, server_default=sa.false()))
        batch.add_column(sa.Column('driver_internal_info',
                                   db_types.JsonEncodedDict, nullable=True))
        for name in _INTERFACES:
            batch.add_column(sa.Column('%s_interface' % name, sa.String(255),
                                       nullable=True))
        batch.add_column(sa.Column('conductor_group', sa.String(255),
                                   nullable=True))
        batch.add_column(sa.Column('automated_clean', sa.Boolean,
                                   nullable=True))
        batch.add_column(sa.Column('protected', sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('protected_reason', sa.Text,
                                   nullable=True))
        batch.add_column(sa.Column('description', sa.Text, nullable=True))
        batch.add_column(sa.Column('retired', sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column('retired_reason', sa.Text, nullable=True))
    op.create_index('nodes_chassis_id_idx', 'nodes', ['chassis_id'])
    op.create_table(
        'ports',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('uuid', sa.String(36), nullable=False),
        sa.Column('address', sa.String(18), nullable=False),
        sa.Column('node_id', sa.Integer,
                  sa.ForeignKey('nodes.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('extra', db_types.JsonEncodedDict, nullable=True),
        sa.Column('local_link_connection', db_types.JsonEncodedDict,
                  nullable=True),
        sa.Column('pxe_enabled', sa.Boolean, nullable=False),
        sa.Column('physical_network', sa.String(64), nullable=True),
        sa.Column('internal_info', db_types.JsonEncodedDict, nullable=True),
        sa.UniqueConstraint('uuid', name='uniq_ports0uuid'),
        sa.UniqueConstraint('address', name='uniq_ports0address'),
    )
    op.create_index('ports_node_id_idx', 'ports', ['node_id'])
