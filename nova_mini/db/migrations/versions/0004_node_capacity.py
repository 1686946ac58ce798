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

"""Node capacity as columns: cpus, memory_mb and local_gb.

The scheduler compares a request's VCPU, MEMORY_MB and DISK_GB with a
node's size in SQL and ranks candidates by memory there, which a JSON
document cannot serve. The columns copy ``properties`` (whole numbers, 0
where absent or not a number) and are kept in step by the Node object.

Revision ID: 0004_node_capacity
Revises: 0003_instances
Create Date: 2026-11-23
"""

from alembic import op
from oslo_serialization import jsonutils
import sqlalchemy as sa

revision = '0004_node_capacity'
down_revision = '0003_instances'
branch_labels = None
depends_on = None

COLUMNS = ('cpus', 'memory_mb', 'local_gb')
# The largest value an INTEGER column holds everywhere.
_MAX = 2 ** 31 - 1
_BATCH = 1000


def _amount(value):
    # NOTE: a frozen copy of objects.baremetal.node.capacity_of's rule: migrations
    # must not change when the application code does.
    if isinstance(value, bool):
        return int(value)
    try:
        amount = int(value)
    except (TypeError, ValueError):
        return 0
    return min(max(amount, 0), _MAX)


def upgrade():
    for name in COLUMNS:
        op.add_column('nodes', sa.Column(name, sa.Integer, nullable=False,
                                         server_default='0'))
    nodes = sa.table('nodes', sa.column('id', sa.Integer),
                     sa.column('properties', sa.Text),
                     *[sa.column(name, sa.Integer) for name in COLUMNS])
    connection = op.get_bind()
    last = 0
    while True:
        rows = connection.execute(
            sa.select(nodes.c.id, nodes.c.properties).where(
                nodes.c.id > last).order_by(nodes.c.id).limit(_BATCH)).all()
        if not rows:
            break
        for node_id, text in rows:
            try:
                properties = jsonutils.loads(text) if text else {}
            except ValueError:
                properties = {}
            if not isinstance(properties, dict):
                properties = {}
            values = {name: _amount(properties.get(name))
                      for name in COLUMNS}
            if any(values.values()):
                connection.execute(nodes.update().where(
                    nodes.c.id == node_id).values(**values))
        last = rows[-1][0]
    # The scheduler reads nodes best first by memory (RAMWeigher), ties by
    # id: an index range, either direction.
    op.create_index('nodes_memory_mb_idx', 'nodes', ['memory_mb', 'id'])
