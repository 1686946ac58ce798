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

"""What every daemon shares: systemd notification, the WSGI server, and
turning start-up failures into one clear log line."""

import os
import signal
import socket
import sys
import time

from gunicorn.app import base as gunicorn_base
from gunicorn import arbiter as gunicorn_arbiter
from gunicorn import util as gunicorn_util
from gunicorn.workers import gthread
from oslo_log import log as logging

from nova_mini import connection_balance
from nova_mini import syn_filter

LOG = logging.getLogger(__name__)

# The signals that stop a gunicorn worker.
_STOP_SIGNALS = frozenset({signal.SIGTERM, signal.SIGINT, signal.SIGQUIT})


def sd_notify(message):
    """Send ``message`` (e.g. ``READY=1``) to systemd, if it listens.

    systemd passes the socket in $NOTIFY_SOCKET; a leading '@' names an
    abstract socket. Without the variable this does nothing.

    :param message: the notification, ``NAME=value``.
    :returns: whether it was sent.
    """
    address = os.environ.get('NOTIFY_SOCKET')
    if not address:
        return False
    if address.startswith('@'):
        address = '\0' + address[1:]
    # NOTE: like systemd's sd_notify(), a notify socket that is gone (its
    # supervisor exited) must not stop the daemon: warn and go on.
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(message.encode('utf-8'))
    except OSError as exc:
        # A supervisor that has gone away by the time we stop is normal;
        # one that cannot hear READY=1 is worth a warning.
        log = LOG.debug if message.startswith('STOPPING') else LOG.warning
        log('Could not notify %s of %s: %s',
            os.environ['NOTIFY_SOCKET'], message, exc)
        return False
    return True


def fail(message, *args):
    """Log one error line and exit non-zero (no traceback).

    :param message: the log message, a %-format.
    :param args: its arguments.
    :raises SystemExit: always, with status 1.
    """
    LOG.error(message, *args)
    sys.exit(1)


class _Arbiter(gunicorn_arbiter.Arbiter):
    """gunicorn's master, with workers that never lose a stop signal.

    NOTE: a new worker keeps the master's signal handlers from fork until
    it installs its own; those handlers only queue the signal in the
    worker's copy of the master, so a SIGTERM sent then (a daemon stopped
    while a worker is booting) is lost and the worker serves on until the
    master kills it after graceful_timeout. The stop signals are blocked
    across fork instead: in the master they stay pending for the instant
    of the fork; the worker unblocks them once its own handlers are in
    place (``_unblock_stop_signals``), and one sent meanwhile is delivered
    then.
    """

    def spawn_worker(self):
        # The new worker's slot in the shared connection counts, chosen
        # here (the master knows which workers live) and copied by fork.
        used = {getattr(w, 'load_slot', None) for w in self.WORKERS.values()}
        self.app.next_load_slot = self.app.connection_load.free_slot(used)
        signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS)
        try:
            return super().spawn_worker()
        finally:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)

    def stop(self, graceful=True):
        # NOTE: the listening sockets die with the last process holding
        # them, and a client queued in them then is reset. From here on
        # no new client joins the queue (syn_filter), so the workers'
        # last accept (ThreadWorker._close_listeners) empties it. Not when
        # the sockets outlive this master: passed by systemd, or handed
        # to a new master (USR2), which must go on accepting.
        if self.reexec_pid == self.master_pid == 0 and not self.systemd:
            for listener in self.LISTENERS:
                syn_filter.drop_syns(listener.sock)
        super().stop(graceful)


def _unblock_stop_signals(worker):
    signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOP_SIGNALS)


class ThreadWorker(gthread.ThreadWorker):
    """gunicorn's threaded worker, refusing new connections as soon as it
    stops.

    NOTE: a stopping gthread worker stops accepting but keeps its copy of
    the listening socket open until its requests in flight are done, so
    the kernel still completes the handshake of new clients, who send
    their request, wait up to graceful_timeout and then get a reset: they
    cannot tell whether it was served. Here the worker accepts what is
    already queued (those clients get their answer) and closes its
    listening sockets at once; once the master's and every worker's copy
    is closed, new clients are refused and may retry elsewhere.

    NOTE: new clients go to the least loaded worker: see
    nova_mini.connection_balance (gunicorn leaves that to whichever worker
    wakes first).
    """

    def __init__(self, *args, **kwargs):
        self._yielder = None
        self._notified = None
        super().__init__(*args, **kwargs)
        # Runs in the master, before the fork.
        self.load_slot = getattr(self.app, 'next_load_slot', None)

    def notify(self):
        # NOTE: gthread's loop calls this on every wake-up, that is about
        # once per request under load, and each call is a utime(2) of the
        # worker's heartbeat file (2 % of a worker's CPU on the extra-spec
        # write). The master only needs one within its timeout (gunicorn
        # asks for one every self.timeout seconds, half of it): at most
        # one per NOTIFY_INTERVAL here.
        now = time.monotonic()
        if (self._notified is None
                or now - self._notified >= min(NOTIFY_INTERVAL,
                                               self.timeout / 2.0)):
            self._notified = now
            super().notify()

    @property
    def nr_conns(self):
        return self._nr_conns

    @nr_conns.setter
    def nr_conns(self, value):
        # gthread counts its open connections here; the other workers see
        # the count.
        self._nr_conns = value
        if self._yielder is not None:
            self._yielder.load.publish(self._yielder.slot, value)

    def init_process(self):
        if self.load_slot is not None:
            load = self.app.connection_load
            load.claim(self.load_slot, os.getpid())
            self._yielder = connection_balance.Yielder(load, self.load_slot)
        super().init_process()

    def accept(self, listener):
        if (self.alive and self._yielder is not None
                and self._yielder.should_yield(self.nr_conns)):
            # The client stays queued: a less loaded worker, also woken
            # for it, takes it meanwhile, or this one at its next look.
            time.sleep(connection_balance.YIELD_STEP)
            return
        super().accept(listener)

    def set_accept_enabled(self, enabled):
        super().set_accept_enabled(enabled)
        if not enabled and not self.alive:
            self._close_listeners()

    def _close_listeners(self):
        for listener in self.sockets:
            if listener.sock is None:
                continue
            # accept() takes one queued client, if any (the listener is
            # non-blocking): until a call takes none.
            taken = -1
            while taken != self.nr_conns:
                taken = self.nr_conns
                self.accept(listener)
            listener.close()


# Seconds between a worker's heartbeats to the master, at most.
NOTIFY_INTERVAL = 1.0

# gunicorn's own, kept for the tests (and to undo).
GUNICORN_HTTP_DATE = gunicorn_util.http_date
# (second, its Date header text): replaced whole, never changed in place.
_date_of_second = (None, None)


def http_date(timestamp=None):
    """gunicorn's ``util.http_date``, formatted once per second.

    gunicorn writes a Date header on every answer with
    ``email.utils.formatdate`` (1.5 % of an API worker's CPU on a small
    write); the header has one-second resolution, so the text of the
    current second is kept and shared by the worker's threads.

    :param timestamp: as gunicorn's: None for now (cached), else
        formatted as gunicorn formats it.
    :returns: e.g. ``Sun, 29 Nov 2026 08:40:00 GMT``.
    """
    global _date_of_second
    if timestamp is not None:
        return GUNICORN_HTTP_DATE(timestamp)
    now = int(time.time())
    second, text = _date_of_second
    if second != now:
        text = GUNICORN_HTTP_DATE(now)
        _date_of_second = (now, text)
    return text


gunicorn_util.http_date = http_date

# Nova's [wsgi] max_header_line default: room for a large token.
MAX_HEADER_LINE = 16384
# gunicorn's most: long query strings (lists of traits or fields) fit.
MAX_REQUEST_LINE = 8190
MAX_HEADER_FIELDS = 100


class WSGIServer(gunicorn_base.BaseApplication):
    """gunicorn, embedded: a master process and ``workers`` processes of
    ``threads`` threads each. SIGTERM stops accepting, lets requests in
    flight finish (up to ``graceful_timeout``) and exits 0.

    :param app_factory: called once in each worker to build the WSGI app,
        so no database connection is shared across fork.
    :param max_header_line: the longest header read, in bytes (longer:
        431); request lines are limited to MAX_REQUEST_LINE (414).
    """

    def __init__(self, name, app_factory, host, port, workers, threads,
                 graceful_timeout, max_header_line=MAX_HEADER_LINE):
        self.name = name
        self.app_factory = app_factory
        # Room for every worker and for the replacements of dead ones
        # that may run beside them for a moment.
        self.connection_load = connection_balance.ConnectionLoad(
            2 * workers + 2)
        self.next_load_slot = None
        self.settings = {
            'bind': ['[%s]:%d' % (host, port) if ':' in host
                     else '%s:%d' % (host, port)],
            'workers': workers,
            'worker_class': ThreadWorker,
            'threads': threads,
            'graceful_timeout': graceful_timeout,
            'keepalive': 75,
            # Refused (431, 414) before any of our code runs; explicit,
            # not left to gunicorn's defaults (8190 bytes a header).
            'limit_request_field_size': max_header_line,
            'limit_request_fields': MAX_HEADER_FIELDS,
            'limit_request_line': MAX_REQUEST_LINE,
            'proc_name': name,
            'accesslog': None,
            'errorlog': '-',
            'loglevel': 'warning',
            'control_socket_disable': True,
            'when_ready': self._when_ready,
            'on_exit': self._on_exit,
            'post_worker_init': _unblock_stop_signals,
        }
        super().__init__()

    def run(self):
        """Run the master until it is stopped (SIGTERM)."""
        try:
            _Arbiter(self).run()
        except RuntimeError as exc:
            fail('%s', exc)

    def load_config(self):
        for key, value in self.settings.items():
            if key in self.cfg.settings:
                self.cfg.set(key, value)

    def load(self):
        """Return the WSGI application, built in the worker calling it."""
        return self.app_factory()

    def _when_ready(self, arbiter):
        LOG.info('%s listening on %s with %d workers of %d threads',
                 self.name, ', '.join(self.settings['bind']),
                 self.settings['workers'], self.settings['threads'])
        sd_notify('READY=1')

    def _on_exit(self, arbiter):
        sd_notify('STOPPING=1')
        LOG.info('%s stopped', self.name)


def worker_count(configured):
    """Return the number of worker processes to start.

    :param configured: the configured count (0 or None: one per CPU).
    :returns: a positive integer.
    """
    return configured or os.cpu_count() or 1
