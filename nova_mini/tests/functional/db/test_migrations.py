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

"""The alembic migrations build exactly the models' schema, on SQLite,
PostgreSQL and MariaDB."""

import os
import subprocess
import sys

from alembic import autogenerate
from alembic import migration as alembic_migration
import pytest
import sqlalchemy as sa

from nova_mini.db import migration
from nova_mini.db import models
from nova_mini import exception
from nova_mini.tests.fixtures import database as db_fixture


def _include_object(dialect):
    def include(obj, name, type_, reflected, compare_to):
        # alembic's own bookkeeping table is not part of the models.
        if type_ == 'table' and name == 'alembic_version':
            return False
        # An index the models make on some dialects only (ddl_if), which
        # alembic's comparison does not know of.
        ddl_if = getattr(obj, '_ddl_if', None)
        if (type_ == 'index' and not reflected and ddl_if is not None
                and ddl_if.dialect is not None):
            return dialect in ddl_if.dialect
        return True
    return include


def _compare_server_default(context, inspected_column, metadata_column,
                            inspected_default, metadata_default,
                            rendered_metadata_default):
    # MySQL stores a boolean's false() default as 0 (a TINYINT).
    if (context.dialect.name == 'mysql'
            and isinstance(metadata_column.type, sa.Boolean)
            and inspected_default in ("'0'", '0')
            and rendered_metadata_default in ('false', "'false'", '0')):
        return False
    return None


def _diff(engine):
    with engine.connect() as connection:
        context = alembic_migration.MigrationContext.configure(
            connection, opts={
                'compare_type': True,
                'compare_server_default': _compare_server_default,
                'include_object': _include_object(engine.dialect.name)})
        return autogenerate.compare_metadata(context, models.Base.metadata)


def test_db_sync_from_empty_builds_the_models_schema(empty_database):
    engine = empty_database.engine
    assert sa.inspect(engine).get_table_names() == []
    assert migration.db_version(engine) is None

    migration.db_sync(engine)

    assert migration.db_version(engine) == migration.head_revision()
    assert _diff(engine) == []
    tables = set(sa.inspect(engine).get_table_names())
    assert tables == set(models.Base.metadata.tables) | {'alembic_version'}


def test_foreign_keys_cascade(empty_database):
    # compare_metadata does not compare ON DELETE; the object layer and
    # the no-orphans guarantee rely on it.
    migration.db_sync(empty_database.engine)
    inspector = sa.inspect(empty_database.engine)
    for table in ('flavor_extra_specs', 'flavor_projects'):
        (foreign_key,) = inspector.get_foreign_keys(table)
        assert foreign_key['referred_table'] == 'flavors'
        assert foreign_key['constrained_columns'] == ['flavor_id']
        assert foreign_key['options'].get('ondelete') == 'CASCADE'
    (foreign_key,) = inspector.get_foreign_keys('node_traits')
    assert foreign_key['referred_table'] == 'nodes'
    assert foreign_key['constrained_columns'] == ['node_id']
    assert foreign_key['options'].get('ondelete') == 'CASCADE'
    assert inspector.get_pk_constraint('node_traits')[
        'constrained_columns'] == ['node_id', 'trait']
    assert ['trait', 'node_id'] in [
        index['column_names']
        for index in inspector.get_indexes('node_traits')]
    for table in ('request_specs', 'instance_metadata', 'instance_tags'):
        (foreign_key,) = inspector.get_foreign_keys(table)
        assert foreign_key['referred_table'] == 'instances'
        assert foreign_key['referred_columns'] == ['uuid']
        assert foreign_key['constrained_columns'] == ['instance_uuid']
        assert foreign_key['options'].get('ondelete') == 'CASCADE'
    # A server leaves its group when it is deleted; a group's deletion
    # deletes its memberships.
    foreign_keys = {foreign_key['referred_table']: foreign_key for
                    foreign_key in inspector.get_foreign_keys(
                        'server_group_members')}
    assert set(foreign_keys) == {'instances', 'server_groups'}
    assert foreign_keys['instances']['constrained_columns'] == [
        'instance_uuid']
    assert foreign_keys['server_groups']['constrained_columns'] == [
        'group_id']
    for foreign_key in foreign_keys.values():
        assert foreign_key['options'].get('ondelete') == 'CASCADE'


def test_db_sync_again_changes_nothing(empty_database):
    engine = empty_database.engine
    migration.db_sync(engine)
    assert migration.db_version(engine) == migration.head_revision()
    assert _diff(engine) == []


def test_head_is_the_only_head():
    from alembic import script
    directory = script.ScriptDirectory.from_config(
        migration._alembic_config(None))
    assert len(directory.get_heads()) == 1
    assert migration.head_revision() == directory.get_current_head()


def test_check_ready(empty_database):
    migration.db_sync(empty_database.engine)
    migration.check_ready(empty_database.url)


@pytest.mark.parametrize('backend', [
    pytest.param('sqlite'),
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mariadb', marks=pytest.mark.mariadb)])
def test_manage_db_sync_and_version(backend, tmp_path):
    fixture = db_fixture.DatabaseFixture(backend, sync=False)
    fixture.setUp()
    try:
        config = tmp_path / 'nova_mini.conf'
        config.write_text('[database]\nconnection = %s\n' % fixture.url)
        manage = os.path.join(os.path.dirname(sys.executable),
                              'nova-mini-manage')

        def run(*args):
            return subprocess.run(
                [manage, '--config-file', str(config)] + list(args),
                capture_output=True, text=True, timeout=120)

        with pytest.raises(exception.DatabaseNotReady):
            migration.check_ready(fixture.url)
        assert migration.db_version(fixture.engine) is None
        result = run('db', 'sync')
        assert result.returncode == 0, result.stderr
        result = run('db', 'version')
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip() == migration.head_revision()
        migration.check_ready(fixture.url)
        assert _diff(fixture.engine) == []
    finally:
        fixture.cleanUp()


@pytest.mark.parametrize('backend', [
    pytest.param('sqlite'),
    pytest.param('postgresql', marks=pytest.mark.postgresql)])
def test_node_capacity_is_backfilled(backend):
    """0004 copies the size of existing nodes out of ``properties``."""
    fixture = db_fixture.DatabaseFixture(backend, sync=False)
    fixture.setUp()
    try:
        engine = fixture.engine
        migration.db_sync(engine, '0003_instances')
        nodes = sa.table('nodes', sa.column('id'), sa.column('uuid'),
                         sa.column('driver'), sa.column('maintenance'),
                         sa.column('properties'))
        documents = ['{"cpus": 8, "memory_mb": "16384", "local_gb": 100}',
                     '{"memory_mb": "lots"}', None, '[1]']
        with engine.begin() as connection:
            connection.execute(nodes.insert(), [
                {'id': i, 'uuid': 'node-%d' % i, 'driver': 'fake-hardware',
                 'maintenance': False, 'properties': text}
                for i, text in enumerate(documents, 1)])
        migration.db_sync(engine)
        with engine.connect() as connection:
            rows = connection.execute(sa.text(
                'SELECT cpus, memory_mb, local_gb FROM nodes '
                'ORDER BY id')).all()
        assert [tuple(row) for row in rows] == [
            (8, 16384, 100), (0, 0, 0), (0, 0, 0), (0, 0, 0)]
        assert _diff(engine) == []
    finally:
        fixture.cleanUp()
