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

"""Key pairs, instance actions and their events, and what servers keep of
their key pair, task, power state and lock.

A key pair belongs to a user (one name per user). A server keeps the name
and the public key of the key pair it was booted with (the key pair may be
deleted later, the server still has its key). Instance actions outlive
their server (Nova lists the actions of a deleted server from 2.21), so
they name it by uuid, with no foreign key.

Revision ID: 0012_keypairs_instance_actions
Revises: 0011_baremetal_chassis_ports
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

revision = '0012_keypairs_instance_actions'
down_revision = '0011_baremetal_chassis_ports'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        'key_pairs',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('name', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=False),
        sa.Column('fingerprint', sa.String(255), nullable=False),
        sa.Column('public_key', sa.Text, nullable=False),
        sa.Column('type', sa.String(16), nullable=False,
                  server_default='ssh'),
        sa.UniqueConstraint('user_id', 'name',
                            name='uniq_key_pairs0user_id0name'),
    )
    op.create_table(
        'instance_actions',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('action', sa.String(255), nullable=False),
        sa.Column('instance_uuid', sa.String(36), nullable=False),
        sa.Column('request_id', sa.String(255), nullable=False),
        sa.Column('user_id', sa.String(255), nullable=True),
        sa.Column('project_id', sa.String(255), nullable=True),
        sa.Column('start_time', sa.DateTime, nullable=True),
        sa.Column('finish_time', sa.DateTime, nullable=True),
        sa.Column('message', sa.String(255), nullable=True),
    )
    op.create_index('instance_actions_instance_uuid_idx',
                    'instance_actions', ['instance_uuid', 'created_at'])
    op.create_table(
        'instance_actions_events',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('action_id', sa.Integer,
                  sa.ForeignKey('instance_actions.id', ondelete='CASCADE'),
                  nullable=False),
        sa.Column('event', sa.String(255), nullable=False),
        sa.Column('start_time', sa.DateTime, nullable=True),
        sa.Column('finish_time', sa.DateTime, nullable=True),
        sa.Column('result', sa.String(255), nullable=True),
        sa.Column('traceback', sa.Text, nullable=True),
        sa.Column('host', sa.String(255), nullable=True),
        sa.Column('details', sa.Text, nullable=True),
    )
    op.create_index('instance_actions_events_action_id_idx',
                    'instance_actions_events', ['action_id'])
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('key_name', sa.String(255),
                                   nullable=True))
        batch.add_column(sa.Column('key_data', sa.Text, nullable=True))
        batch.add_column(sa.Column('task_state', sa.String(255),
                                   nullable=True))
        batch.add_column(sa.Column('power_state', sa.Integer,
                                   nullable=True))
        batch.add_column(sa.Column('locked_by', sa.String(255),
                                   nullable=True))
        batch.add_column(sa.Column('locked_reason', sa.Text,
                                   nullable=True))
