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

"""RabbitMQ: use the one on 127.0.0.1:5672 if it answers AMQP, otherwise
start Debian's rabbitmq-server and wait (bounded) until it does; virtual
hosts made and deleted with rabbitmqctl.

``PrivateRabbitMQ`` is a node of a test's own (its name, AMQP and
distribution ports, Erlang cookie, mnesia and log directories all in a
temporary directory), for tests that stop and start the broker without
disturbing the machine's shared one.
"""

import contextlib
import logging
import os
import shutil
import subprocess
import tempfile
import time
from urllib import parse
import uuid

import kombu

from nova_mini.tests.harness import util

LOG = logging.getLogger(__name__)

# Debian's rabbitmq-server needs ~25 s before it accepts connections.
START_TIMEOUT = 120


def _sbin(command):
    return (shutil.which(command)
            or shutil.which(command, path='/usr/sbin:/usr/local/sbin:/sbin'))


def _rabbitmqctl(*args):
    """Run ``rabbitmqctl -q args``; its standard output."""
    command = _sbin('rabbitmqctl')
    if not command:
        raise util.HarnessError('rabbitmqctl is not installed')
    argv = [command, '-q'] + list(args)
    what = ' '.join(argv[2:])
    try:
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise util.HarnessError('rabbitmqctl %s: still running after 60s'
                                % what)
    if proc.returncode != 0:
        raise util.HarnessError('rabbitmqctl %s: exit status %d\n%s' % (
            what, proc.returncode, (proc.stdout + proc.stderr)[-2000:]))
    return proc.stdout


class RabbitMQ(object):

    def __init__(self, host=util.LOCALHOST, port=5672, user='guest',
                 password='guest'):
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.started_here = False

    def url(self, virtual_host=None):
        """The transport URL of ``virtual_host`` (None or "/": the default
        virtual host).
        """
        path = ('' if virtual_host in (None, '/')
                else parse.quote(virtual_host, safe=''))
        return 'rabbit://%s:%s@%s:%d/%s' % (self.user, self.password,
                                            self.host, self.port, path)

    @property
    def transport_url(self):
        return self.url()

    # NOTE: oslo.messaging's rabbit driver names a topic's queue after the
    # topic alone ("scheduler"), whatever the control exchange, so every
    # scheduler on a virtual host consumes the same queue. Only a virtual
    # host of its own keeps a stack's (or a test's) RPC apart.

    def virtual_host_names(self):
        return set(_rabbitmqctl('list_vhosts', '--no-table-headers',
                                'name').splitlines())

    def add_virtual_host(self, name):
        """Make virtual host ``name`` unless it exists, and give our user
        every permission on it; whether it was made here.
        """
        made = name not in self.virtual_host_names()
        if made:
            _rabbitmqctl('add_vhost', name)
        try:
            self._grant(name)
        except util.HarnessError:
            if made:
                self.delete_virtual_host(name)
            raise
        return made

    def delete_virtual_host(self, name):
        """Delete virtual host ``name``; one already gone is fine."""
        try:
            _rabbitmqctl('delete_vhost', name)
        except util.HarnessError:
            if name in self.virtual_host_names():
                raise

    def _grant(self, name, user=None):
        _rabbitmqctl('set_permissions', '-p', name, user or self.user,
                     '.*', '.*', '.*')

    def user_names(self):
        lines = _rabbitmqctl('list_users', '--no-table-headers').splitlines()
        return {line.split('\t')[0] for line in lines if line}

    def add_user(self, name, password, virtual_host):
        """Make user ``name`` (or set its password if it exists) with
        every permission on ``virtual_host``; whether it was made here.
        """
        made = name not in self.user_names()
        # The password on standard input keeps it off the command line.
        command = ['add_user', name] if made else ['change_password', name]
        argv = [_sbin('rabbitmqctl') or 'rabbitmqctl', '-q'] + command
        proc = subprocess.run(argv, input=password + '\n',
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise util.HarnessError('rabbitmqctl %s: exit status %d\n%s' % (
                ' '.join(command), proc.returncode,
                (proc.stdout + proc.stderr)[-2000:]))
        self._grant(virtual_host, name)
        return made

    def delete_user(self, name):
        """Delete user ``name``; one already gone is fine."""
        try:
            _rabbitmqctl('delete_user', name)
        except util.HarnessError:
            if name in self.user_names():
                raise

    def queues(self, virtual_host):
        """``{queue name: number of consumers}`` of ``virtual_host``."""
        lines = _rabbitmqctl('list_queues', '--no-table-headers', '-p',
                             virtual_host, 'name', 'consumers').splitlines()
        return {name: int(count) for name, count in
                (line.rsplit('\t', 1) for line in lines if line)}

    @contextlib.contextmanager
    def virtual_hosts(self, *names):
        """Make virtual hosts ``names`` (with our user's permissions) for
        the block; yields their transport URLs.
        """
        made = []
        try:
            for name in names:
                _rabbitmqctl('add_vhost', name)
                made.append(name)
                self._grant(name)
            yield [self.url(name) for name in names]
        finally:
            for name in made:
                self.delete_virtual_host(name)

    def accepts_amqp(self, timeout=3):
        """Whether an AMQP login with our credentials succeeds."""
        if not util.port_open(self.host, self.port):
            return False
        url = 'amqp://%s:%s@%s:%d//' % (self.user, self.password,
                                        self.host, self.port)
        try:
            with kombu.Connection(url, connect_timeout=timeout) as conn:
                conn.connect()
            return True
        except Exception:
            return False

    def ensure(self, timeout=START_TIMEOUT):
        """Make sure RabbitMQ answers; start it if needed."""
        if self.accepts_amqp():
            return self
        if not util.port_open(self.host, self.port):
            server = _sbin('rabbitmq-server')
            if not server:
                raise util.HarnessError(
                    'RabbitMQ does not answer on %s:%d and rabbitmq-server '
                    'is not installed (apt-get install rabbitmq-server)'
                    % (self.host, self.port))
            if os.geteuid() != 0:
                raise util.HarnessError(
                    'RabbitMQ does not answer on %s:%d; start it (as root: '
                    'rabbitmq-server -detached)' % (self.host, self.port))
            LOG.info('starting rabbitmq-server (takes ~25 s)')
            # -detached returns at once; it may also say a node already
            # runs (one being started by someone else), which is fine too.
            try:
                util.run([server, '-detached'], timeout=60,
                         what='rabbitmq-server -detached')
            except util.HarnessError as exc:
                LOG.warning('%s', exc)
            self.started_here = True
        util.wait_until(self.accepts_amqp, timeout,
                        'RabbitMQ on %s:%d accepting AMQP logins'
                        % (self.host, self.port), interval=1)
        return self

    def stop(self):
        """Stop RabbitMQ if this harness started it."""
        if not self.started_here:
            return
        ctl = _sbin('rabbitmqctl')
        if ctl:
            try:
                util.run([ctl, 'stop'], timeout=90, what='rabbitmqctl stop')
            except util.HarnessError as exc:
                LOG.warning('%s', exc)
        self.started_here = False


# Debian's scripts behind /usr/sbin's wrapper, which would switch to the
# rabbitmq user and read /etc/rabbitmq: a private node runs them directly.
_DEBIAN_BIN = '/usr/lib/rabbitmq/bin'


def _private_script(name):
    path = os.path.join(_DEBIAN_BIN, name)
    if os.access(path, os.X_OK):
        return path
    found = _sbin(name)
    if not found:
        raise util.HarnessError('%s is not installed (apt-get install '
                                'rabbitmq-server)' % name)
    return found


class PrivateRabbitMQ(RabbitMQ):
    """A RabbitMQ node of its own, which ``stop``, ``start`` and
    ``restart`` do not disturb any other node on the machine with.

    Everything it keeps is under ``base_dir`` (a new temporary directory
    by default, removed by ``cleanup``): the Erlang cookie (``HOME``), the
    mnesia database, the logs and an empty environment file, so Debian's
    /etc/rabbitmq (which names the shared node) is not read. The node
    listens on 127.0.0.1 only, on free AMQP and distribution ports; its
    default virtual host "/" and user guest are the test's.

    :param base_dir: the directory to keep its state in (None: a new
        temporary one).
    :param start_timeout: the seconds ``start`` waits for AMQP logins.
    """

    def __init__(self, base_dir=None, start_timeout=START_TIMEOUT):
        super(PrivateRabbitMQ, self).__init__(port=util.free_port())
        self.owns_dir = base_dir is None
        self.base_dir = base_dir or tempfile.mkdtemp(prefix='nm-rabbit-')
        self.dist_port = util.free_port()
        self.node_name = 'nm-%s@localhost' % uuid.uuid4().hex[:10]
        self.start_timeout = start_timeout
        self.log_path = os.path.join(self.base_dir, 'rabbitmq-server.log')
        self.process = None
        self._prepare()

    def _prepare(self):
        for sub in ('home', 'mnesia', 'log'):
            os.makedirs(os.path.join(self.base_dir, sub), exist_ok=True)
        cookie = os.path.join(self.base_dir, 'home', '.erlang.cookie')
        if not os.path.exists(cookie):
            fd = os.open(cookie, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o400)
            with os.fdopen(fd, 'w') as f:
                f.write(uuid.uuid4().hex.upper())
        for name, text in (('rabbitmq-env.conf', ''),
                           ('enabled_plugins', '[].\n'),
                           ('rabbitmq.conf',
                            'listeners.tcp.default = %s:%d\n'
                            'loopback_users = none\n'
                            % (util.LOCALHOST, self.port))):
            with open(os.path.join(self.base_dir, name), 'w') as f:
                f.write(text)

    @property
    def env(self):
        """The environment of its rabbitmq-server and rabbitmqctl."""
        join = os.path.join
        return util.clean_env(
            HOME=join(self.base_dir, 'home'),
            RABBITMQ_CONF_ENV_FILE=join(self.base_dir, 'rabbitmq-env.conf'),
            RABBITMQ_CONFIG_FILE=join(self.base_dir, 'rabbitmq.conf'),
            RABBITMQ_ENABLED_PLUGINS_FILE=join(self.base_dir,
                                               'enabled_plugins'),
            RABBITMQ_NODENAME=self.node_name,
            RABBITMQ_NODE_IP_ADDRESS=util.LOCALHOST,
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(self.dist_port),
            RABBITMQ_MNESIA_BASE=join(self.base_dir, 'mnesia'),
            RABBITMQ_LOG_BASE=join(self.base_dir, 'log'),
            RABBITMQ_PID_FILE=join(self.base_dir, 'rabbitmq.pid'),
            ERL_EPMD_ADDRESS=util.LOCALHOST,
            ERL_FLAGS='-kernel inet_dist_use_interface {127,0,0,1}')

    @property
    def running(self):
        return self.process is not None and self.process.running

    def ctl(self, *args, timeout=60):
        """Run ``rabbitmqctl -n NODE -q args`` on this node; its output."""
        argv = [_private_script('rabbitmqctl'), '-n', self.node_name,
                '-q'] + [str(a) for a in args]
        proc = util.run(argv, timeout=timeout, env=self.env,
                        cwd=self.base_dir,
                        what='rabbitmqctl -n %s %s' % (self.node_name,
                                                       ' '.join(args)))
        return proc.stdout.decode('utf-8', 'replace')

    def ensure(self, timeout=None):
        """Start the node unless it runs."""
        if not self.running:
            self.start(timeout)
        return self

    def start(self, timeout=None):
        """Start the node and wait (bounded) until it accepts AMQP logins.

        :param timeout: the seconds to wait (None: ``start_timeout``).
        :returns: the seconds it took.
        """
        if self.running:
            raise util.HarnessError('RabbitMQ node %s runs already'
                                    % self.node_name)
        if util.port_open(self.host, self.port):
            raise util.HarnessError('port %d is taken: cannot start '
                                    'RabbitMQ node %s'
                                    % (self.port, self.node_name))
        began = time.monotonic()
        self.process = util.Process(
            self.node_name, [_private_script('rabbitmq-server')],
            self.log_path, env=self.env, cwd=self.base_dir)
        self.process.start()
        self.started_here = True
        timeout = self.start_timeout if timeout is None else timeout
        try:
            util.wait_until(self.accepts_amqp, timeout,
                            'RabbitMQ node %s accepting AMQP on %s:%d'
                            % (self.node_name, self.host, self.port),
                            interval=0.5, abort=self.process._exited)
        except util.HarnessError as exc:
            self.stop()
            raise util.HarnessError('%s%s' % (exc,
                                              util._log_hint(self.log_path)))
        return time.monotonic() - began

    def stop(self, timeout=60):
        """Stop the node (SIGTERM: a clean shutdown; killed after
        ``timeout`` seconds) and wait until its AMQP port is closed.

        :returns: the exit status (None if it was not running).
        """
        if self.process is None:
            return None
        code = self.process.stop(timeout)
        self.process = None
        self.started_here = False
        util.wait_until(lambda: not util.port_open(self.host, self.port),
                        10, 'AMQP port %d closed' % self.port)
        return code

    def restart(self, down_for=0, timeout=None):
        """Stop the node, leave it down ``down_for`` seconds, start it.

        :returns: the seconds the start took.
        """
        self.stop()
        if down_for:
            time.sleep(down_for)
        return self.start(timeout)

    def cleanup(self):
        """Stop the node and remove its directory if made here."""
        try:
            self.stop()
        finally:
            if self.owns_dir:
                shutil.rmtree(self.base_dir, ignore_errors=True)

    # The default virtual host is the node's own: the shared node's
    # rabbitmqctl-based helpers do not apply.

    def virtual_host_names(self):
        return set(self.ctl('list_vhosts', '--no-table-headers',
                            'name').splitlines())

    def queues(self, virtual_host='/'):
        lines = self.ctl('list_queues', '--no-table-headers', '-p',
                         virtual_host, 'name', 'consumers').splitlines()
        return {name: int(count) for name, count in
                (line.rsplit('\t', 1) for line in lines if line)}

    def _default_only(self, *args, **kwargs):
        raise util.HarnessError('a private node has only its default '
                                'virtual host "/"')

    add_virtual_host = delete_virtual_host = _default_only
    virtual_hosts = _default_only
