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

"""A node's instance_info as LONGTEXT on MariaDB/MySQL, as Ironic's.

It holds the config drive of a deploy (gzip + base64 of an ISO image,
past 64 KiB as soon as the user data is): MySQL's TEXT refused it with
"Data too long for column 'instance_info'". SQLite's and PostgreSQL's TEXT
have no such limit, and stay.

Revision ID: 0025_node_instance_info_longtext
Revises: 0024_instances_building_index
Create Date: 2026-11-29
"""

from alembic import op
import sqlalchemy as sa
from sqlalchemy.dialects import mysql

revision = '0025_node_instance_info_longtext'
down_revision = '0024_instances_building_index'
branch_labels = None
depends_on = None


def upgrade():
    if op.get_bind().dialect.name != 'mysql':
        return
    op.alter_column('nodes', 'instance_info', existing_type=sa.Text(),
                    type_=mysql.LONGTEXT(), existing_nullable=True)
