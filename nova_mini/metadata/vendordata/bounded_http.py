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

"""Calls to vendordata targets, bounded in time, size and depth.

A target is another service, and may misbehave (broken, overloaded or
hostile): whatever it does, one call must end in bounded time and memory,
and its reply must be safe to serve.

* Time: requests' timeouts apply to each socket operation, so a target that
  sends a byte just before each read timeout holds a call for ever.
  ``Deadline`` gives a call one overall bound: when it passes, the sockets
  the call uses are shut down, which ends any read or TLS handshake in
  progress at once. The sockets are found through the HTTP adapter that
  ``mount`` installs on the session, which tells the deadline of the
  calling thread about every connection it opens or reuses.
* Size: ``read_body`` reads the body in pieces and stops past a cap, on the
  bytes received and on the bytes they decompress to (a few KiB of gzip
  can decompress to gigabytes), decompressing no more than the cap allows.
* Depth: ``parse_json`` refuses JSON nested deeper than ``MAX_DEPTH``, and
  ``NaN``/``Infinity`` and numbers past a float (``1e999``), which would
  make vendor_data2.json invalid JSON.
"""

import socket
import threading
import zlib

from keystoneauth1 import session as ks_session
from urllib3 import connection as urllib3_connection
from urllib3 import connectionpool

from nova_mini.api import json_body

# Containers nested in one reply. vendor_data2.json nests the reply one
# level deeper, and it is serialized in the request's thread, under the
# frames of the WSGI stack: far enough from Python's recursion limit (1000)
# to never reach it, and far more than any configuration document needs.
MAX_DEPTH = 100

# Bytes read from the socket at a time.
_PIECE = 64 * 1024

_current = threading.local()


class ReplyError(Exception):
    """The reply cannot be used; the message is the reason, for the log."""


class Deadline:
    """One overall time bound for a call, in the calling thread.

    Used as a context manager around everything the call does (sending,
    reading the headers and the body): at ``seconds`` after entering, the
    sockets the call opened or reused are shut down, and ``expired`` is
    true.
    """

    def __init__(self, seconds):
        self.seconds = seconds
        self.expired = False
        self._sockets = []
        self._lock = threading.Lock()
        self._done = False
        self._timer = None

    def __enter__(self):
        _current.deadline = self
        self._timer = threading.Timer(self.seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()
        return self

    def __exit__(self, *exc_info):
        _current.deadline = None
        self._timer.cancel()
        with self._lock:
            # A timer that fires now must not touch a socket that is back
            # in the pool, maybe in another call's hands.
            self._done = True
            self._sockets = []

    def watch(self, sock):
        """Shut ``sock`` down when the deadline passes."""
        try:
            # NOTE: the socket is identified by its file descriptor and
            # its two ends, not by the object: a TLS handshake detaches the
            # descriptor from the object urllib3 holds during the handshake.
            identity = (sock.fileno(), sock.getsockname(),
                        sock.getpeername())
        except OSError:
            return          # closed already: nothing to wait on
        with self._lock:
            if self._done:
                return
            self._sockets.append(identity)
            if self.expired:
                _shut_down(*identity)

    def _expire(self):
        with self._lock:
            if self._done:
                return
            self.expired = True
            for identity in self._sockets:
                _shut_down(*identity)


def _shut_down(fileno, local, peer):
    """Shut down the socket of ``fileno`` if it is still the one between
    ``local`` and ``peer`` (the descriptor may have been closed, and its
    number reused, since).
    """
    try:
        sock = socket.socket(fileno=fileno)
    except OSError:
        return
    try:
        if sock.getsockname() == local and sock.getpeername() == peer:
            sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.detach()       # the descriptor is still its owner's


def _watch(sock):
    deadline = getattr(_current, 'deadline', None)
    if deadline is not None and sock is not None:
        deadline.watch(sock)


class _WatchedConnection:
    def _new_conn(self):
        sock = super()._new_conn()
        _watch(sock)
        return sock


class _HTTPConnection(_WatchedConnection,
                      urllib3_connection.HTTPConnection):
    pass


class _HTTPSConnection(_WatchedConnection,
                       urllib3_connection.HTTPSConnection):
    pass


class _WatchedPool:
    def _get_conn(self, timeout=None):
        conn = super()._get_conn(timeout)
        _watch(conn.sock)       # a kept-alive connection, reused
        return conn


class _HTTPPool(_WatchedPool, connectionpool.HTTPConnectionPool):
    ConnectionCls = _HTTPConnection


class _HTTPSPool(_WatchedPool, connectionpool.HTTPSConnectionPool):
    ConnectionCls = _HTTPSConnection


_POOLS = {'http': _HTTPPool, 'https': _HTTPSPool}


class DeadlineAdapter(ks_session.TCPKeepAliveAdapter):
    """keystoneauth's adapter (TCP keep-alive, TLS settings), whose
    connections are watched by the Deadline of the calling thread.
    """

    def init_poolmanager(self, *args, **kwargs):
        """Build the pool manager, with watched connection pools."""
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = dict(_POOLS)

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        """Build the manager of an HTTP proxy, with watched pools too."""
        manager = super().proxy_manager_for(proxy, **proxy_kwargs)
        manager.pool_classes_by_scheme = dict(_POOLS)
        return manager


def mount(session):
    """Install ``DeadlineAdapter`` on a keystoneauth1 session, keeping the
    TLS settings of the adapter it replaces.
    """
    previous = session.session.get_adapter('https://')
    adapter = DeadlineAdapter(
        tls_ciphers=getattr(previous, 'tls_ciphers', None),
        tls_min_version=getattr(previous, 'tls_min_version', None))
    for scheme in ('https://', 'http://'):
        session.session.mount(scheme, adapter)


def _decompressor(encoding):
    """A zlib decompressor for a Content-Encoding; None for identity."""
    encoding = (encoding or 'identity').strip().lower()
    if encoding == 'identity':
        return None
    if encoding in ('gzip', 'x-gzip'):
        return zlib.decompressobj(16 + zlib.MAX_WBITS)
    if encoding == 'deflate':
        # NOTE: "deflate" is meant to be zlib-wrapped, but some servers
        # send raw deflate; _Decoder falls back to it, as browsers do.
        return zlib.decompressobj()
    raise ReplyError('unsupported Content-Encoding %r' % encoding)


class _Decoder:
    """Decompresses at most ``limit + 1`` bytes in all."""

    def __init__(self, encoding, limit):
        self._zlib = _decompressor(encoding)
        self._raw_deflate = (encoding or '').strip().lower() == 'deflate'
        self._started = False
        self.limit = limit
        self.size = 0

    def feed(self, data):
        if self._zlib is None:
            self.size += len(data)
            return data
        try:
            return self._inflate(data)
        except zlib.error as exc:
            if self._started or not self._raw_deflate:
                raise ReplyError('the reply cannot be decompressed (%s)'
                                 % exc) from None
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            self._raw_deflate = False
            return self.feed(data)

    def _inflate(self, data):
        pieces = []
        while data and self.size <= self.limit:
            # Never more than what would take the body past its cap.
            piece = self._zlib.decompress(data, self.limit + 1 - self.size)
            self._started = True
            self.size += len(piece)
            pieces.append(piece)
            data = self._zlib.unconsumed_tail
        return b''.join(pieces)


def read_body(reply, max_size):
    """Return the body of a streamed requests reply, decompressed.

    :param reply: a ``requests.Response`` made with ``stream=True``.
    :param max_size: the most bytes of the body, received and decompressed.
    :returns: the body (bytes).
    :raises ReplyError: larger than ``max_size``, or an unknown or broken
        Content-Encoding.
    """
    too_large = ReplyError('the reply is larger than %d bytes' % max_size)
    decoder = _Decoder(reply.headers.get('Content-Encoding'), max_size)
    declared = reply.headers.get('Content-Length', '')
    if declared.strip().isdigit() and int(declared) > max_size:
        raise too_large     # no need to read it to know
    received = 0
    body = []
    for data in reply.raw.stream(_PIECE, decode_content=False):
        received += len(data)
        if received > max_size:
            raise too_large
        body.append(decoder.feed(data))
        if decoder.size > max_size:
            raise too_large
    return b''.join(body)


def _deeper_than(value, limit):
    """Return whether containers in ``value`` nest deeper than ``limit``."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False


def parse_json(body):
    """Return the JSON document of ``body`` (bytes).

    :raises ReplyError: not JSON (``NaN``, ``Infinity`` and numbers past a
        float are not), or nested deeper than ``MAX_DEPTH``.
    """
    try:
        value = json_body.finite_loads(body)
    except json_body.RefusedJSON as exc:
        raise ReplyError('the reply is not JSON (it %s)' % exc) from None
    except RecursionError:
        # The parser gave up long before MAX_DEPTH would have.
        raise ReplyError('the reply is nested deeper than %d levels'
                         % MAX_DEPTH) from None
    except ValueError as exc:
        raise ReplyError('the reply is not JSON (%s)' % exc) from None
    if _deeper_than(value, MAX_DEPTH):
        raise ReplyError('the reply is nested deeper than %d levels'
                         % MAX_DEPTH)
    return value
