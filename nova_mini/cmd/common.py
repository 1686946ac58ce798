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

"""What the console scripts share.

The start-up checks end the program with one error line when the service
it needs is not usable; the check happens outside the ``except`` block so
that the log line carries no traceback. ``stop_event``,
``wait_rpc_server`` and ``hard_exit`` are the steps of a graceful stop on
SIGTERM.
"""

import logging as py_logging
import os
import signal
import threading

from oslo_log import log as logging

from nova_mini.db import migration
from nova_mini import exception
from nova_mini import rpc
from nova_mini import service

LOG = logging.getLogger(__name__)


def require_database(conf):
    problem = None
    try:
        migration.check_ready(conf.database.connection)
    except exception.DatabaseNotReady as exc:
        problem = exc.format_message()
    if problem:
        service.fail('%s', problem)


def require_broker(conf):
    problem = None
    try:
        rpc.check_broker(conf)
    except exception.MessagingUnreachable as exc:
        problem = exc.format_message()
    if problem:
        service.fail('%s', problem)


def stop_event(message='Received signal %d, stopping'):
    """An Event set (``message`` logged with the signal's number) on
    SIGTERM or SIGINT.
    """
    stopping = threading.Event()

    def _stop(signum, _frame):
        LOG.info(message, signum)
        stopping.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    return stopping


def wait_rpc_server(server, timeout):
    """Wait for the RPC server's calls in progress to finish; whether
    they did within ``timeout`` seconds (None: no bound).
    """
    waiter = threading.Thread(target=server.wait, name='drain',
                              daemon=True)
    waiter.start()
    waiter.join(timeout)
    return not waiter.is_alive()


def hard_exit(status):
    """Exit now with ``status``, the log flushed: a plain exit would join
    the threads still at work (the RPC server's, a conductor's workers).
    """
    py_logging.shutdown()
    os._exit(status)
