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

"""``PrivateRabbitMQ``: a RabbitMQ node of a test's own (its name, AMQP
and distribution ports, Erlang cookie, mnesia and log directories all in
a temporary directory), for tests that stop and start the broker without
disturbing the machine's shared one. Test-only: nothing deployed runs a
broker of its own.
"""

import os
import shutil
import tempfile
import time
import uuid

from nova_mini_deploy import rabbitmq
from nova_mini_deploy import util

# Debian's scripts behind /usr/sbin's wrapper, which would switch to the
# rabbitmq user and read /etc/rabbitmq: a private node runs them directly.
_DEBIAN_BIN = '/usr/lib/rabbitmq/bin'


def _private_script(name):
    path = os.path.join(_DEBIAN_BIN, name)
    if os.access(path, os.X_OK):
        return path
    found = rabbitmq.sbin(name)
    if not found:
        raise util.ServiceError('%s is not installed (apt-get install '
                                'rabbitmq-server)' % name)
    return found


class PrivateRabbitMQ(rabbitmq.RabbitMQ):
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

    def __init__(self, base_dir=None, start_timeout=rabbitmq.START_TIMEOUT):
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

    def _ctl(self, *args):
        # The shared node's listings (queue_messages...) on this node.
        return self.ctl(*args)

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
            raise util.ServiceError('RabbitMQ node %s runs already'
                                    % self.node_name)
        if util.port_open(self.host, self.port):
            raise util.ServiceError('port %d is taken: cannot start '
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
        except util.ServiceError as exc:
            self.stop()
            raise util.ServiceError('%s%s' % (exc,
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
            time.sleep(down_for)     # the outage asked for
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
        raise util.ServiceError('a private node has only its default '
                                'virtual host "/"')

    add_virtual_host = delete_virtual_host = _default_only
    virtual_hosts = _default_only
