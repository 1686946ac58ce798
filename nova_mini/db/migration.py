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

"""Schema migrations: alembic, driven by nova-mini-manage db sync."""

import os

from alembic import command as alembic_command
from alembic import config as alembic_config
from alembic import migration as alembic_migration
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini import exception

_MIGRATIONS = os.path.join(os.path.dirname(__file__), 'migrations')


def _alembic_config(connection):
    config = alembic_config.Config()
    config.set_main_option('script_location', _MIGRATIONS)
    config.attributes['connection'] = connection
    return config


def db_sync(engine=None, revision='head'):
    """Upgrade the schema to ``revision``.

    :param engine: the engine to upgrade (default: the facade's).
    :param revision: an alembic revision (default: the newest).
    """
    engine = engine or db_api.get_engine()
    with engine.begin() as connection:
        alembic_command.upgrade(_alembic_config(connection), revision)


def db_version(engine=None):
    """Return the revision the database is at.

    :param engine: the engine to read (default: the facade's).
    :returns: the alembic revision, or None for an empty database.
    """
    engine = engine or db_api.get_engine()
    with engine.connect() as connection:
        return alembic_migration.MigrationContext.configure(
            connection).get_current_revision()


def head_revision():
    """Return the newest alembic revision of the code."""
    from alembic import script
    return script.ScriptDirectory.from_config(
        _alembic_config(None)).get_current_head()


def check_ready(url):
    """Check that the database at ``url`` answers and is at head.

    Uses a throwaway engine so a daemon can check before it forks workers
    without leaving connections to be shared across processes.

    :param url: the SQLAlchemy URL.
    :raises nova_mini.exception.DatabaseNotReady: it does not answer, or
        its schema is at another revision.
    """
    engine = None
    safe_url = url
    try:
        safe_url = sa.engine.make_url(url).render_as_string(
            hide_password=True)
        # NOTE: create_engine imports the DB driver, which may be missing
        # (e.g. psycopg for postgresql:// URLs): one clear line too.
        engine = sa.create_engine(url)
        with engine.connect() as connection:
            current = alembic_migration.MigrationContext.configure(
                connection).get_current_revision()
    except Exception as exc:
        reason = str(getattr(exc, 'orig', None) or exc).strip().splitlines()
        raise exception.DatabaseNotReady(
            url=safe_url, reason=reason[0] if reason else repr(exc))
    finally:
        if engine is not None:
            engine.dispose()
    head = head_revision()
    if current != head:
        raise exception.DatabaseNotReady(
            url=safe_url,
            reason='schema is at %s, code expects %s; run '
                   '"nova-mini-manage db sync"' % (current, head))
