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

"""nova-mini-api: the /compute and /baremetal APIs on [api] bind_port.

Its master process keeps the service's host in the bare-metal conductors
registry while it runs (nova_mini.conductor_heartbeat): registered once
it listens (before systemd hears it is ready), offline once it stopped.
"""

import sys

from nova_mini.api import app
from nova_mini.cmd import common
from nova_mini import conductor_heartbeat
from nova_mini import conf
from nova_mini import config
from nova_mini.db import api as db_api
from nova_mini import service

CONF = conf.CONF


class APIServer(service.WSGIServer):
    """The WSGI server, with the conductor heartbeat of its host."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.heartbeat = conductor_heartbeat.Heartbeat(
            CONF.database.connection, CONF.host,
            CONF.conductor.heartbeat_interval)

    def _when_ready(self, arbiter):
        refused = None
        try:
            self.heartbeat.start()
        except Exception as exc:
            refused = exc
        if refused is not None:
            # Out of the except block: logged there, oslo.log would add
            # the exception's text again to the line.
            service.fail('Could not register conductor %s: %s', CONF.host,
                         refused)
        super()._when_ready(arbiter)

    def _on_exit(self, arbiter):
        self.heartbeat.stop()
        super()._on_exit(arbiter)


def main(argv=None):
    config.parse_args(argv or sys.argv)
    config.log_options()
    common.require_database(CONF)
    # Before the workers fork: each opens its own connections on first use.
    db_api.configure(CONF)
    APIServer(
        'nova-mini-api', app.build_app,
        host=CONF.api.bind_host, port=CONF.api.bind_port,
        workers=service.worker_count(CONF.api.workers),
        threads=CONF.api.threads_per_worker,
        graceful_timeout=CONF.api.graceful_shutdown_timeout,
        max_header_line=CONF.wsgi.max_header_line).run()
