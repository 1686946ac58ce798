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

With ``[scheduler] workers`` above 1, a parent process forks that many
schedulers (before any database or broker connection is made, so none is
shared), starts a new one when one dies, and on SIGTERM passes the signal
on, waits for them and exits 1 if any of them did. A scheduler whose
parent is gone (killed) stops as on SIGTERM.
"""

import logging as py_logging
import os
import signal
import sys

from oslo_log import log as logging
import oslo_messaging as messaging

from nova_mini.cmd import common
from nova_mini import conf
from nova_mini import config
from nova_mini.db import api as db_api
from nova_mini import exception
from nova_mini.metadata import vendordata
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
    require_vendordata_config(CONF)
    workers = CONF.scheduler.workers
    if workers > 1:
        sys.exit(_parent(workers))
    _serve()


def require_vendordata_config(conf):
    """End the program with one line if the vendordata providers, which
    the scheduler loads for config drives, refuse this configuration:
    checked before the workers are forked, as nova-mini-metadata does.
    """
    try:
        vendordata.load(conf).close()
    except exception.VendorDataConfigError as exc:
        service.fail('%s', exc.format_message())


def _serve(parent=None):
    """Run one scheduler until SIGTERM (or its ``parent`` pid is gone)."""
    db_api.configure(CONF)

    stopping = common.stop_event()

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
        if parent is not None and os.getppid() != parent:
            LOG.warning('The parent process %d is gone, stopping', parent)
            stopping.set()
    service.sd_notify('STOPPING=1')
    bound = CONF.filter_scheduler.graceful_shutdown_timeout
    LOG.info('Taking no more requests; waiting %s for the builds in '
             'progress', '%ds' % bound if bound else 'without a bound')
    # stop() ends consumption; messages delivered but not yet taken (not
    # acknowledged) go back to the queue, for the other schedulers, when
    # the connection closes.
    server.stop()
    periodic.stop(bound or None)
    if not common.wait_rpc_server(server, bound or None):
        LOG.error('Builds still running after %ds; exiting anyway (they '
                  'end in ERROR at their deadline)', bound)
        common.hard_exit(1)
    rpc.cleanup()
    LOG.info('nova-mini-scheduler stopped')


def _parent(count):
    """Fork ``count`` schedulers and watch them; return the exit status."""
    stopping = common.stop_event(
        'Received signal %d, stopping the schedulers')
    children = {}
    for _i in range(count):
        _fork(children)
    LOG.info('nova-mini-scheduler: %d schedulers (pids %s)', count,
             ', '.join(str(pid) for pid in sorted(children)))
    service.sd_notify('READY=1')
    status = 0
    while not stopping.wait(0.5):
        for pid, code in _reaped(children):
            LOG.error('Scheduler %d exited (status %s); starting another',
                      pid, code)
            _fork(children)
    service.sd_notify('STOPPING=1')
    for pid in children:
        _signal(pid, signal.SIGTERM)
    while children:
        pid, code = _wait_child()
        if pid is None:
            break
        if children.pop(pid, None) is not None and code:
            status = 1
    LOG.info('nova-mini-scheduler stopped')
    return status


def _fork(children):
    parent = os.getpid()
    pid = os.fork()
    if pid:
        children[pid] = True
        return
    # The child: the parent alone speaks to systemd.
    os.environ.pop('NOTIFY_SOCKET', None)
    code = 0
    try:
        _serve(parent=parent)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        LOG.exception('Scheduler %d failed', os.getpid())
        code = 1
    finally:
        py_logging.shutdown()
        os._exit(code)


def _reaped(children):
    """The children that have exited, as ``(pid, status)``."""
    gone = []
    while children:
        try:
            pid, raw = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            break
        if pid == 0:
            break
        if children.pop(pid, None) is not None:
            gone.append((pid, os.waitstatus_to_exitcode(raw)))
    return gone


def _wait_child():
    try:
        pid, raw = os.waitpid(-1, 0)
    except ChildProcessError:
        return None, 0
    return pid, os.waitstatus_to_exitcode(raw)


def _signal(pid, signum):
    try:
        os.kill(pid, signum)
    except ProcessLookupError:
        pass
