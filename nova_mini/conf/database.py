"""The [database] group: oslo.db's options with nova_mini's defaults.

The options themselves belong to oslo.db; this module sets the default
connection (a SQLite file under ``state_path``) and lists them for the
sample config.
"""

from oslo_db import options as db_options

_DEFAULT_CONNECTION = 'sqlite:///$state_path/nova_mini.sqlite'


def register_opts(conf):
    db_options.set_defaults(conf, connection=_DEFAULT_CONNECTION)


def list_opts():
    # oslo.db lists its own options under the 'database' group.
    return dict(db_options.list_opts())
