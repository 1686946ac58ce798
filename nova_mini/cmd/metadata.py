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

"""nova-mini-metadata: instance metadata on [metadata] bind_port."""

import sys

from nova_mini.cmd import common
from nova_mini import conf
from nova_mini import config
from nova_mini import exception
from nova_mini.metadata import app
from nova_mini.metadata import identity
from nova_mini.metadata import vendordata
from nova_mini import service

CONF = conf.CONF


def require_metadata_config(conf):
    """End the program with one line if the workers could not serve with
    this configuration: checked here, in the master, because a worker that
    fails to build its app is only restarted by gunicorn, again and again.
    """
    problem = None
    try:
        identity.check_config(conf)
        # Loaded to check the providers' configuration; each worker loads
        # its own after the fork (no connection or thread crosses it).
        vendordata.load(conf).close()
    except (exception.MetadataConfigError,
            exception.VendorDataConfigError) as exc:
        problem = exc.format_message()
    if problem:
        service.fail('%s', problem)


def main(argv=None):
    config.parse_args(argv or sys.argv)
    config.log_options()
    common.require_database(CONF)
    require_metadata_config(CONF)
    service.WSGIServer(
        'nova-mini-metadata', app.build_app,
        host=CONF.metadata.bind_host, port=CONF.metadata.bind_port,
        workers=service.worker_count(CONF.metadata.workers),
        threads=CONF.metadata.threads_per_worker,
        graceful_timeout=CONF.metadata.graceful_shutdown_timeout,
        max_header_line=CONF.wsgi.max_header_line).run()
