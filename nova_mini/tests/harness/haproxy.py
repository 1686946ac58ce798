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

"""HAProxy (Debian's ``haproxy``) in front of several nova-mini-api and
nova-mini-metadata processes, as a deployment on several hosts runs it.

``HAProxy`` writes an ``haproxy.cfg`` with one frontend per service on a
free port of 127.0.0.1 and a backend of that service's processes, checked
over HTTP, and runs haproxy in the foreground (``-db``) under the
harness's Process. ``stats()`` reads the servers' state and counters
through its admin socket.

The backends' rules, and why (doc/source/admin/scaling-out.rst shows the
same file):

* ``option http-server-close``: one backend connection per request. A
  stopping gunicorn worker closes its listening socket, answers what it
  has accepted and closes its idle keep-alive connections; a request
  HAProxy sends on one just as it closes gets no answer, which could not
  be retried safely if it creates something.
* ``retries 3`` with ``option redispatch 1``: a connection that fails
  (refused: the process has stopped listening) is tried again on another
  server at once.
* ``retry-on conn-failure empty-response response-timeout``, with
  ``http-request disable-l7-retry`` for POST and PATCH: a request that
  never reached a process is always sent again; one that may have reached
  it (closed without an answer, no answer in time) only when it reads or
  replaces (GET, HEAD, PUT, DELETE), never when it creates something.
"""

import contextlib
import csv
import os
import shutil
import signal
import socket
import tempfile

from nova_mini_deploy import util

BINARY = 'haproxy'


def binary():
    """The haproxy executable; ServiceError if it is not installed."""
    found = shutil.which(BINARY) or (
        '/usr/sbin/haproxy' if os.access('/usr/sbin/haproxy', os.X_OK)
        else None)
    if not found:
        raise util.ServiceError('haproxy is not installed '
                                '(apt-get install haproxy)')
    return found


class Backend(object):
    """One balanced service.

    :param name: names the frontend and backend (``<name>`` and
        ``<name>_back``).
    :param servers: ``[(server name, port)]`` on 127.0.0.1.
    :param check_path: the path a health check GETs (200 expected).
    :param forwardfor: add X-Forwarded-For (not for the metadata service,
        which reads it as the instance's address).
    :param check: the servers' check timing (``default-server``): how
        soon a stopped server is taken out. A test may make it slow, so
        that requests meet the closed port and are retried.
    """

    CHECK = 'inter 1s fastinter 500ms fall 2 rise 2'

    def __init__(self, name, servers, check_path='/', forwardfor=False,
                 check=CHECK):
        self.name = name
        self.servers = list(servers)
        self.check_path = check_path
        self.forwardfor = forwardfor
        self.check = check
        self.port = None

    def lines(self):
        """The frontend and backend sections of this service."""
        frontend = ['frontend %s' % self.name,
                    '    bind %s:%d' % (util.LOCALHOST, self.port),
                    '    default_backend %s_back' % self.name]
        if self.forwardfor:
            frontend.append('    option forwardfor')
        backend = [
            'backend %s_back' % self.name,
            '    balance roundrobin',
            '    option http-server-close',
            '    option httpchk',
            '    http-check send meth GET uri %s' % self.check_path,
            '    http-check expect status 200',
            '    retries 3',
            '    option redispatch 1',
            '    retry-on conn-failure empty-response response-timeout',
            '    http-request disable-l7-retry if METH_POST || '
            '{ method PATCH }',
            '    default-server %s' % self.check,
        ]
        backend += ['    server %s %s:%d check' % (server, util.LOCALHOST, port)
                    for server, port in self.servers]
        return frontend + [''] + backend + ['']


class HAProxy(object):
    """An haproxy of its own directory.

    :param base_dir: holds haproxy.cfg and haproxy.log.
    :param backends: the Backends to balance; each gets a free port (its
        ``port``) unless it has one.
    """

    def __init__(self, base_dir, backends):
        self.base_dir = os.path.abspath(base_dir)
        self.backends = {b.name: b for b in backends}
        for backend in backends:
            backend.port = backend.port or util.free_port()
        self.conf_path = os.path.join(self.base_dir, 'haproxy.cfg')
        self.log_path = os.path.join(self.base_dir, 'haproxy.log')
        # AF_UNIX paths are short (108 bytes): the socket in a short dir.
        self._socket_dir = tempfile.mkdtemp(prefix='nm-hap-')
        self.socket_path = os.path.join(self._socket_dir, 'admin.sock')
        self.process = None

    def url(self, name):
        """``http://127.0.0.1:<port>`` of frontend ``name``."""
        return 'http://%s:%d' % (util.LOCALHOST, self.backends[name].port)

    def config_text(self):
        lines = [
            'global',
            '    log stdout format raw local0 info',
            '    maxconn 1024',
            '    stats socket %s mode 600 level admin' % self.socket_path,
            '',
            'defaults',
            '    mode http',
            '    log global',
            '    option httplog',
            '    option dontlognull',
            '    timeout connect 2s',
            '    timeout client 60s',
            '    timeout server 60s',
            '    timeout http-request 10s',
            '    timeout http-keep-alive 10s',
            '    timeout check 2s',
            '',
        ]
        for backend in self.backends.values():
            lines += backend.lines()
        return '\n'.join(lines)

    def write_config(self):
        os.makedirs(self.base_dir, exist_ok=True)
        with open(self.conf_path, 'w') as f:
            f.write(self.config_text())
        util.run([binary(), '-c', '-q', '-f', self.conf_path],
                 what='haproxy -c %s' % self.conf_path, timeout=30)
        return self.conf_path

    def start(self, timeout=30):
        """Write the config, run haproxy and wait until every frontend
        accepts connections and every server's check passed.
        """
        self.write_config()
        self.process = util.Process(
            'haproxy', [binary(), '-db', '-f', self.conf_path],
            self.log_path)
        self.process.start()
        try:
            for backend in self.backends.values():
                util.wait_until(
                    lambda: util.port_open(util.LOCALHOST, backend.port),
                    timeout, 'haproxy frontend %s' % backend.name,
                    abort=self.process._exited)
            self.wait_for_servers('UP', timeout=timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self, timeout=10):
        """Stop haproxy: SIGUSR1, its soft stop (it stops listening and
        exits 0 once its connections are done); its exit status.
        """
        code = (self.process.stop(timeout, signum=signal.SIGUSR1)
                if self.process else None)
        shutil.rmtree(self._socket_dir, ignore_errors=True)
        return code

    def command(self, line):
        """Send one command to the admin socket; its answer."""
        with contextlib.closing(socket.socket(socket.AF_UNIX)) as sock:
            sock.settimeout(5)
            sock.connect(self.socket_path)
            sock.sendall(line.encode() + b'\n')
            chunks = []
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                chunks.append(chunk)
        return b''.join(chunks).decode('utf-8', 'replace')

    def stats(self):
        """``{(proxy, server): row}`` of ``show stat``; a row is a dict
        of the CSV's columns (``status``, ``wretr`` retries, ``wredis``
        redispatches, ``hrsp_2xx``/``hrsp_5xx`` ...), servers and the
        ``FRONTEND``/``BACKEND`` lines alike.
        """
        text = self.command('show stat').lstrip('# ')
        rows = csv.DictReader(line for line in text.splitlines() if line)
        return {(row['pxname'], row['svname']): row for row in rows}

    def server_states(self, name):
        """``{server: status}`` of backend ``name`` (UP, DOWN, ...)."""
        proxy = name + '_back'
        return {server: row['status']
                for (px, server), row in self.stats().items()
                if px == proxy and server not in ('FRONTEND', 'BACKEND')}

    def wait_for_servers(self, status, names=None, timeout=30):
        """Wait until every server (or those of ``names``, ``[(backend,
        server)]``) shows ``status``.
        """
        def settled():
            for backend in self.backends.values():
                states = self.server_states(backend.name)
                for server, state in states.items():
                    wanted = names is None or (backend.name, server) in names
                    if wanted and not state.startswith(status):
                        return False
            return True

        util.wait_until(settled, timeout, 'haproxy servers %s' % status,
                        abort=self.process._exited)
