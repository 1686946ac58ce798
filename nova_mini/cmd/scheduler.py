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

"""nova-mini-scheduler: the scheduler RPC server on topic "scheduler".

On SIGTERM (or SIGINT) it stops taking requests, lets the builds it has
started finish, then exits 0; builds still running after ``[filter_scheduler]
graceful_shutdown_timeout`` seconds are left to the deadline every
scheduler's clean-up enforces, and it exits 1.
"""

import logging as py_logging
import os
import signal
import sys
import threading

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini.cmd import common
from nova_mini import conf
from nova_mini import config
from nova_mini.db import api as db_api
from nova_mini import rpc
from nova_mini.scheduler import cleanup
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini import service

CONF = conf.CONF
LOG = logging.getLogger(__name__)


def main(argv=None):
    config.parse_args(argv or sys.argv)
    config.log_options()
    common.require_database(CONF)
    common.require_broker(CONF)
    db_api.configure(CONF)

    stopping = threading.Event()

    def _stop(signum, _frame):
        LOG.info('Received signal %d, stopping', signum)
        stopping.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)

    target = messaging.Target(topic=rpcapi.TOPIC, server=CONF.host)
    server = rpc.get_server(CONF, target,
                            [manager.SchedulerManager(CONF.host)])
    periodic = cleanup.PeriodicCleanup(
        CONF.filter_scheduler.cleanup_interval, rpc.response_timeout(CONF))
    server.start()
    periodic.start()
    LOG.info('nova-mini-scheduler consuming topic %s as %s',
             rpcapi.TOPIC, CONF.host)
    service.sd_notify('READY=1')
    while not stopping.wait(1):
        pass
    service.sd_notify('STOPPING=1')
    bound = CONF.filter_scheduler.graceful_shutdown_timeout
    LOG.info('Taking no more requests; waiting %s for the builds in '
             'progress', '%ds' % bound if bound else 'without a bound')
    # stop() ends consumption; messages delivered but not yet taken (not
    # acknowledged) go back to the queue, for the other schedulers, when
    # the connection closes.
    server.stop()
    periodic.stop(bound or None)
    if not _wait(server, bound or None):
        LOG.error('Builds still running after %ds; exiting anyway (they '
                  'end in ERROR at their deadline)', bound)
        # NOTE: a plain exit would join the RPC server's worker threads,
        # which are the ones still running.
        py_logging.shutdown()
        os._exit(1)
    rpc.cleanup()
    LOG.info('nova-mini-scheduler stopped')


def _wait(server, timeout):
    """Wait for the RPC server's calls in progress to finish; whether
    they did within ``timeout`` seconds (None: no bound).
    """
    waiter = threading.Thread(target=server.wait, name='drain',
                              daemon=True)
    waiter.start()
    waiter.join(timeout)
    return not waiter.is_alive()
