"""nova-mini-metadata: instance metadata on [metadata] bind_port."""

import sys

from nova_mini.cmd import common
from nova_mini import conf
from nova_mini import config
from nova_mini.metadata import app
from nova_mini import service

CONF = conf.CONF


def main(argv=None):
    config.parse_args(argv or sys.argv)
    common.require_database(CONF)
    service.WSGIServer(
        'nova-mini-metadata', app.build_app,
        host=CONF.metadata.bind_host, port=CONF.metadata.bind_port,
        workers=service.worker_count(CONF.metadata.workers),
        threads=CONF.metadata.threads_per_worker,
        graceful_timeout=CONF.metadata.graceful_shutdown_timeout).run()
