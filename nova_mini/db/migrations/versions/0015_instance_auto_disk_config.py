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

"""A server's disk configuration (``OS-DCF:diskConfig``): whether its
node's root partition fills the node's disk (AUTO) or keeps the flavor's
size (MANUAL, the default and what every existing server had).

Revision ID: 0015_instance_auto_disk_config
Revises: 0014_baremetal_portgroups
Create Date: 2026-11-25
"""

from alembic import op
import sqlalchemy as sa

revision = '0015_instance_auto_disk_config'
down_revision = '0014_baremetal_portgroups'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('instances') as batch:
        batch.add_column(sa.Column('auto_disk_config', sa.Boolean,
                                   nullable=False,
                                   server_default=sa.false()))
