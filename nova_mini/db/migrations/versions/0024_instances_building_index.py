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

"""The builds of a project as one index range: (vm_state, project_id,
created_at) in place of (vm_state, created_at).

Every server list first looks for its project's builds gone overdue
(``vm_state = 'building' AND project_id = ? AND created_at < ?``). On
SQLite, without statistics, (vm_state, created_at) and (project_id,
created_at, id) weigh the same for it, and which one the planner takes
follows their order in the schema. The table rebuilds of 0015 and 0023
recreate the indexes in an order that varies from one ``db sync`` to the
next: most databases got the project's index, and read every server of
the project (8.5 ms at 10k servers, linear in them). With both equalities
in one index there is no tie; the check of every project's builds reads
the building servers, as before.

Revision ID: 0024_instances_building_index
Revises: 0023_quotas
Create Date: 2026-11-29
"""

from alembic import op

revision = '0024_instances_building_index'
down_revision = '0023_quotas'
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index('instances_vm_state_created_at_idx', table_name='instances')
    op.create_index('instances_vm_state_project_id_created_at_idx',
                    'instances', ['vm_state', 'project_id', 'created_at'])
