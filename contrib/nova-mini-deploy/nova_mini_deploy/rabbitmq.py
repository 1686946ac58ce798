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
hosts and users made and deleted with rabbitmqctl.
"""

import contextlib
import logging
import re
import shutil
import subprocess
from urllib import parse

import kombu

from nova_mini_deploy import util

LOG = logging.getLogger(__name__)

# Debian's rabbitmq-server needs ~25 s before it accepts connections.
START_TIMEOUT = 120


def sbin(command):
    return (shutil.which(command)
            or shutil.which(command, path='/usr/sbin:/usr/local/sbin:/sbin'))


def _rabbitmqctl(*args, stdin=None):
    """Run ``rabbitmqctl -q args`` (as root: Debian's rabbitmqctl runs
    for root or the rabbitmq user only), ``stdin`` its input; its standard
    output.
    """
    command = sbin('rabbitmqctl')
    if not command:
        raise util.ServiceError('rabbitmqctl is not installed')
    what = ' '.join(args)
    try:
        proc = subprocess.run(util.as_root([command, '-q'] + list(args)),
                              input=stdin or '', capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise util.ServiceError('rabbitmqctl %s: still running after 60s'
                                % what)
    if proc.returncode != 0:
        raise util.ServiceError('rabbitmqctl %s: exit status %d\n%s' % (
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
        except util.ServiceError:
            if made:
                self.delete_virtual_host(name)
            raise
        return made

    def delete_virtual_host(self, name):
        """Delete virtual host ``name``; one already gone is fine."""
        try:
            _rabbitmqctl('delete_vhost', name)
        except util.ServiceError:
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
        _rabbitmqctl(*command, stdin=password + '\n')
        self._grant(virtual_host, name)
        return made

    def delete_user(self, name):
        """Delete user ``name``; one already gone is fine."""
        try:
            _rabbitmqctl('delete_user', name)
        except util.ServiceError:
            if name in self.user_names():
                raise

    def queues(self, virtual_host):
        """``{queue name: number of consumers}`` of ``virtual_host``."""
        lines = _rabbitmqctl('list_queues', '--no-table-headers', '-p',
                             virtual_host, 'name', 'consumers').splitlines()
        return {name: int(count) for name, count in
                (line.rsplit('\t', 1) for line in lines if line)}

    def _ctl(self, *args):
        """``rabbitmqctl -q args`` on this broker; its output."""
        return _rabbitmqctl(*args)

    def queue_messages(self, virtual_host):
        """``{queue name: (messages ready, messages delivered and not yet
        acknowledged)}`` of ``virtual_host``.
        """
        lines = self._ctl('list_queues', '--no-table-headers', '-p',
                          virtual_host, 'name', 'messages_ready',
                          'messages_unacknowledged').splitlines()
        return {name: (int(ready), int(unacked)) for name, ready, unacked in
                (line.rsplit('\t', 2) for line in lines if line)}

    def unacknowledged_by_client(self, virtual_host):
        """``{connection name: messages delivered to it and not yet
        acknowledged}`` of the clients of ``virtual_host`` that name their
        connection (oslo.messaging: ``<program>:<pid>:<uuid>``).
        """
        names = {}
        for line in self._ctl('list_connections', '--no-table-headers',
                              'name', 'vhost',
                              'client_properties').splitlines():
            if not line:
                continue
            connection, vhost, properties = line.split('\t', 2)
            found = re.search(r'\{"connection_name","([^"]*)"\}', properties)
            if vhost == virtual_host and found:
                names[connection] = found.group(1)
        counts = {}
        for line in self._ctl('list_channels', '--no-table-headers',
                              'name', 'vhost',
                              'messages_unacknowledged').splitlines():
            if not line:
                continue
            channel, vhost, unacked = line.rsplit('\t', 2)
            name = names.get(channel.rsplit(' (', 1)[0])
            if vhost == virtual_host and name:
                counts[name] = counts.get(name, 0) + int(unacked)
        return counts

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
            server = sbin('rabbitmq-server')
            if not server:
                raise util.ServiceError(
                    'RabbitMQ does not answer on %s:%d and rabbitmq-server '
                    'is not installed (apt-get install rabbitmq-server)'
                    % (self.host, self.port))
            LOG.info('starting rabbitmq-server (takes ~25 s)')
            # -detached returns at once; it may also say a node already
            # runs (one being started by someone else), which is fine too.
            # As root: the wrapper switches to the rabbitmq user.
            argv = util.as_root([server, '-detached'])
            try:
                util.run(argv, timeout=60, what='rabbitmq-server -detached')
            except util.ServiceError as exc:
                LOG.warning('%s', exc)
            self.started_here = True
        util.wait_until(self.accepts_amqp, timeout,
                        'RabbitMQ on %s:%d accepting AMQP logins'
                        % (self.host, self.port), interval=1)
        return self

    def stop(self):
        """Stop RabbitMQ if ``ensure`` started it."""
        if not self.started_here:
            return
        ctl = sbin('rabbitmqctl')
        if ctl:
            try:
                util.run(util.as_root([ctl, 'stop']), timeout=90,
                         what='rabbitmqctl stop')
            except util.ServiceError as exc:
                LOG.warning('%s', exc)
        self.started_here = False
