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

"""nova-mini-scheduler: the scheduler RPC server on topic "scheduler"."""

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
    server.start()
    LOG.info('nova-mini-scheduler consuming topic %s as %s',
             rpcapi.TOPIC, CONF.host)
    service.sd_notify('READY=1')
    while not stopping.wait(1):
        pass
    service.sd_notify('STOPPING=1')
    # stop() ends consumption; wait() lets calls in progress finish.
    server.stop()
    server.wait()
    rpc.cleanup()
    LOG.info('nova-mini-scheduler stopped')
