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

"""The overdue-build check every server list starts with: which builds it
fails, and on SQLite the index it reads (migration 0024).
"""

import datetime

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects

# The clock is fixed (oslo's override) so the test does not depend on the
# day it runs: a literal ``NOW`` read against the real clock goes stale.
NOW = datetime.datetime(2026, 11, 29, 3, 0, 0)
OLD = NOW - datetime.timedelta(hours=2)


@pytest.fixture(autouse=True)
def _frozen_clock():
    timeutils.set_time_override(NOW)
    yield
    timeutils.clear_time_override()


def _servers(engine, rows):
    with engine.begin() as conn:
        conn.execute(models.Instance.__table__.insert(), [
            {'id': i, 'uuid': 'uuid-%d' % i, 'name': 'srv-%d' % i,
             'project_id': project, 'user_id': 'u', 'flavor': '{}',
             'vm_state': state, 'created_at': created, 'hostname': 'h',
             'launch_index': 0, 'config_drive': False,
             'auto_disk_config': False}
            for i, (project, state, created) in enumerate(rows, 1)])


def _states(engine):
    with engine.connect() as conn:
        return dict(conn.execute(sa.text(
            'SELECT uuid, vm_state FROM instances')).all())


def test_a_projects_overdue_builds_are_failed(db):
    _servers(db.engine, [
        ('demo', 'building', OLD),        # 1: overdue
        ('demo', 'building', NOW),        # 2: still within its time
        ('demo', 'active', OLD),          # 3: finished
        ('other', 'building', OLD),       # 4: overdue, another project
    ])
    admin = nm_context.get_admin_context()
    assert objects.InstanceList.expire_overdue_builds(
        admin, 'demo', 3600) == 1
    states = _states(db.engine)
    assert states['uuid-1'] == 'error'
    assert [states['uuid-%d' % i] for i in (2, 3, 4)] == [
        'building', 'active', 'building']
    # Every project's (the scheduler's clean-up): the other one's too.
    assert objects.InstanceList.expire_overdue_builds(
        admin, None, 3600) == 1
    assert _states(db.engine)['uuid-4'] == 'error'


def _plan(engine, project_id):
    """SQLite's plan of the overdue-build read of ``project_id``."""
    statements = []

    def capture(conn, cursor, statement, parameters, context, many):
        if statement.lstrip().startswith('SELECT instances.uuid'):
            statements.append((statement, parameters))

    sa.event.listen(engine, 'before_cursor_execute', capture)
    try:
        objects.InstanceList.expire_overdue_builds(
            nm_context.get_admin_context(), project_id, 3600)
    finally:
        sa.event.remove(engine, 'before_cursor_execute', capture)
    [(statement, parameters)] = statements
    with engine.connect() as conn:
        cursor = conn.connection.dbapi_connection.cursor()
        cursor.execute('EXPLAIN QUERY PLAN ' + statement, parameters)
        return [row[-1] for row in cursor]


def test_sqlite_reads_only_the_building_servers(db):
    if db.engine.dialect.name != 'sqlite':
        pytest.skip('a plan of SQLite (PostgreSQL and MariaDB plan by '
                    'statistics)')
    # Before 0024 the planner took (project_id, created_at, id) on the
    # migrated schema and read every server of the project.
    assert _plan(db.engine, 'demo') == [
        'SEARCH instances USING INDEX '
        'instances_vm_state_project_id_created_at_idx '
        '(vm_state=? AND project_id=? AND created_at<?)']
    [plan] = _plan(db.engine, None)
    assert plan.startswith('SEARCH instances USING INDEX '
                           'instances_vm_state_project_id_created_at_idx '
                           '(vm_state=?'), plan
