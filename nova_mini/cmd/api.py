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

"""nova-mini-api: the /compute and /baremetal APIs on [api] bind_port."""

import sys

from nova_mini.api import app
from nova_mini.cmd import common
from nova_mini import conf
from nova_mini import config
from nova_mini import service

CONF = conf.CONF


def main(argv=None):
    config.parse_args(argv or sys.argv)
    config.log_options()
    common.require_database(CONF)
    service.WSGIServer(
        'nova-mini-api', app.build_app,
        host=CONF.api.bind_host, port=CONF.api.bind_port,
        workers=service.worker_count(CONF.api.workers),
        threads=CONF.api.threads_per_worker,
        graceful_timeout=CONF.api.graceful_shutdown_timeout).run()
