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

"""Server lists in SQL: the host name and flavor id as columns, and the
indexes that page a project's servers newest first.

The compute API filters and sorts server lists by ``hostname`` (derived
from the name) and by the flavor id (kept inside the serialized flavor
snapshot): both become columns, filled here for existing servers and
kept in step by the Instance object. The indexes serve the default order
of a project's list (created_at, id), a name prefix, and the search for
builds gone overdue.

Revision ID: 0007_instance_list_indexes
Revises: 0006_instance_data
Create Date: 2026-11-24
"""

import re

from alembic import op
from oslo_serialization import jsonutils
import sqlalchemy as sa

revision = '0007_instance_list_indexes'
down_revision = '0006_instance_data'
branch_labels = None
depends_on = None

_BATCH = 1000
_SEPARATORS = re.compile(r'[ ._]')
_NOT_HOSTNAME = re.compile(r'[^\w-]+')


def _hostname(name, uuid):
    # NOTE: a frozen copy of objects.compute.instance.hostname_of's rule:
    # migrations must not change when the application code does.
    name = (name or '').encode('latin-1', 'ignore').decode('latin-1')[:63]
    name = _NOT_HOSTNAME.sub('', _SEPARATORS.sub('-', name))
    return name.lower().strip('-') or 'Server-%s' % uuid


def _flavorid(text):
    try:
        return jsonutils.loads(text)['nova_object.data']['flavorid']
    except (TypeError, ValueError, KeyError):
        return None


def upgrade():
    op.add_column('instances', sa.Column('hostname', sa.String(255),
                                         nullable=True))
    op.add_column('instances', sa.Column('flavorid', sa.String(255),
                                         nullable=True))
    instances = sa.table('instances', sa.column('id', sa.Integer),
                         sa.column('uuid', sa.String),
                         sa.column('name', sa.String),
                         sa.column('flavor', sa.Text),
                         sa.column('hostname', sa.String),
                         sa.column('flavorid', sa.String))
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.select(instances.c.id, instances.c.uuid, instances.c.name,
                      instances.c.flavor).where(
                instances.c.id > last).order_by(instances.c.id).limit(
                _BATCH)).all()
        if not rows:
            break
        for row_id, uuid, name, flavor in rows:
            connection.execute(instances.update().where(
                instances.c.id == row_id).values(
                    hostname=_hostname(name, uuid),
                    flavorid=_flavorid(flavor)))
        last = rows[-1][0]
    # (project_id, created_at, id) serves what instances_project_id_idx
    # did, and the project's list newest first.
    op.drop_index('instances_project_id_idx', table_name='instances')
    op.create_index('instances_project_id_created_at_idx', 'instances',
                    ['project_id', 'created_at', 'id'])
    op.create_index('instances_created_at_idx', 'instances',
                    ['created_at', 'id'])
    # text_pattern_ops: PostgreSQL reads an anchored regular expression
    # (name ~ '^web-1') as a range of this index, whatever the collation.
    op.create_index('instances_project_id_name_idx', 'instances',
                    ['project_id', 'name'],
                    postgresql_ops={'name': 'text_pattern_ops'})
    op.create_index('instances_vm_state_created_at_idx', 'instances',
                    ['vm_state', 'created_at'])
