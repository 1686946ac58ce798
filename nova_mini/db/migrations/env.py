"""Alembic environment: always runs on a connection handed in by
nova_mini.db.migration, never on a URL from alembic.ini."""

from alembic import context

from nova_mini.db import models

config = context.config
target_metadata = models.Base.metadata


def run_migrations_online():
    connection = config.attributes['connection']
    context.configure(connection=connection, target_metadata=target_metadata,
                      render_as_batch=connection.dialect.name == 'sqlite')
    with context.begin_transaction():
        context.run_migrations()


run_migrations_online()
