"""RabbitMQ: use the one on 127.0.0.1:5672 if it answers AMQP, otherwise
start Debian's rabbitmq-server and wait (bounded) until it does.
"""

import contextlib
import logging
import os
import shutil
import subprocess

import kombu

from nova_mini.tests.functional.harness import util

LOG = logging.getLogger(__name__)

# Debian's rabbitmq-server needs ~25 s before it accepts connections.
START_TIMEOUT = 120


def _sbin(command):
    return (shutil.which(command)
            or shutil.which(command, path='/usr/sbin:/usr/local/sbin:/sbin'))


def _rabbitmqctl(*args):
    command = _sbin('rabbitmqctl')
    if not command:
        raise RuntimeError('rabbitmqctl is not installed')
    subprocess.run([command] + list(args), check=True, capture_output=True,
                   timeout=60)


class RabbitMQ(object):

    def __init__(self, host=util.LOCALHOST, port=5672, user='guest',
                 password='guest'):
        self.host = host
        self.port = port
        self.user = user
        self.password = password
        self.started_here = False

    @property
    def transport_url(self):
        return 'rabbit://%s:%s@%s:%d/' % (self.user, self.password,
                                          self.host, self.port)

    @contextlib.contextmanager
    def virtual_hosts(self, *names):
        """Make virtual hosts ``names`` (with our user's permissions) for
        the block; yields their transport URLs. Queues are named after
        topics alone, so a test that must not meet other runs' daemons on
        the broker uses a virtual host of its own.
        """
        made = []
        try:
            for name in names:
                _rabbitmqctl('add_vhost', name)
                made.append(name)
                _rabbitmqctl('set_permissions', '-p', name, self.user,
                             '.*', '.*', '.*')
            yield [self.transport_url + name for name in names]
        finally:
            for name in made:
                _rabbitmqctl('delete_vhost', name)

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
