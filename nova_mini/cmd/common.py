"""Start-up checks shared by the console scripts."""

from nova_mini.db import migration
from nova_mini import exception
from nova_mini import rpc
from nova_mini import service


def require_database(conf):
    try:
        migration.check_ready(conf.database.connection)
    except exception.DatabaseNotReady as exc:
        service.fail('%s', exc.format_message())


def require_broker(conf):
    try:
        rpc.check_broker(conf)
    except exception.MessagingUnreachable as exc:
        service.fail('%s', exc.format_message())
