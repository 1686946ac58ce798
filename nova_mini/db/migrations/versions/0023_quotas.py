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

"""Quotas of servers: the per-project limits an administrator sets
(``quotas``), the row each project's boots lock while they count
(``quota_locks``), and each server's vcpus and memory_mb (the cores and
ram it counts for), filled in from the flavor copy of the servers that
exist.

Revision ID: 0023_quotas
Revises: 0022_bios_settings
Create Date: 2026-11-28
"""

import json

from alembic import op
import sqlalchemy as sa

revision = '0023_quotas'
down_revision = '0022_bios_settings'
branch_labels = None
depends_on = None


def _flavor_sizes(text):
    # Frozen here: the serialized Flavor object as Instance stores it (an
    # oslo.versionedobjects primitive); a copy that cannot be read counts
    # for nothing rather than stopping the upgrade.
    try:
        data = json.loads(text)['nova_object.data']
        return int(data.get('vcpus') or 0), int(data.get('memory_mb') or 0)
    except (TypeError, ValueError, KeyError):
        return 0, 0


def upgrade():
    op.create_table(
        'quotas',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('id', sa.Integer, primary_key=True),
        sa.Column('project_id', sa.String(255), nullable=False),
        sa.Column('resource', sa.String(255), nullable=False),
        sa.Column('hard_limit', sa.Integer, nullable=False),
        sa.UniqueConstraint('project_id', 'resource',
                            name='uniq_quotas0project_id0resource'),
    )
    op.create_table(
        'quota_locks',
        sa.Column('created_at', sa.DateTime),
        sa.Column('updated_at', sa.DateTime),
        sa.Column('project_id', sa.String(255), primary_key=True),
    )
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('vcpus', sa.Integer, nullable=False,
                                   server_default='0'))
        batch.add_column(sa.Column('memory_mb', sa.Integer, nullable=False,
                                   server_default='0'))
    instances = sa.table('instances', sa.column('id', sa.Integer),
                         sa.column('flavor', sa.Text),
                         sa.column('vcpus', sa.Integer),
                         sa.column('memory_mb', sa.Integer))
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(instances.c.id, instances.c.flavor)).all()
    for row in rows:
        vcpus, memory_mb = _flavor_sizes(row.flavor)
        if vcpus or memory_mb:
            connection.execute(instances.update().where(
                instances.c.id == row.id).values(vcpus=vcpus,
                                                 memory_mb=memory_mb))
