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

"""oslo.messaging plumbing: transport, serializer, clients and servers.

Contexts travel as dicts and objects as versioned primitives, so every
daemon speaks the same wire format.
"""

import kombu
import kombu.exceptions
import oslo_messaging as messaging
from oslo_messaging.rpc import dispatcher

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects import base as objects_base

_TRANSPORT = None

# oslo.messaging's own default, for a process whose configuration lacks
# its options (register_opts not called, as in a test of one module).
DEFAULT_RESPONSE_TIMEOUT = 60

# The longest pause between two attempts to reconnect to a lost broker
# (oslo.messaging's own default is 30 s): a daemon is back on a returned
# broker within about this many seconds.
RECONNECT_INTERVAL_MAX = 10

# The seconds a client is told to wait (Retry-After) when a request could
# not be handed to a scheduler: about a broker restart plus a daemon's
# reconnection.
BROKER_RETRY_AFTER = 10

# What a send raises when no broker took the message within its retries:
# oslo.messaging's delivery failure (a pooled connection that gave up),
# kombu's or a socket's error (a new connection that could not be made).
SEND_FAILURES = (messaging.MessageDeliveryFailure,
                 kombu.exceptions.KombuError, OSError)

# Sent with a cast that must reach a queue: the broker returns it when no
# queue is bound to its topic (no consumer ever declared one, or the broker
# restarted and lost it), and the send raises MessageUndeliverable instead
# of the message being dropped.
AT_LEAST_ONCE = messaging.TransportOptions(at_least_once=True)


def register_opts(conf):
    """Register oslo.messaging's options now.

    oslo.messaging would only register them when the transport is made;
    registered at start-up, they are parsed and checked there.

    :param conf: the ConfigOpts to register them on.
    """
    from oslo_messaging import opts as messaging_opts
    messaging.set_transport_defaults(control_exchange='nova_mini')
    for group, opts in messaging_opts.list_opts():
        if group in (None, 'DEFAULT', 'oslo_messaging_rabbit',
                     'oslo_messaging_notifications'):
            conf.register_opts(opts, group=None if group == 'DEFAULT'
                               else group)
    conf.set_default('rabbit_interval_max', RECONNECT_INTERVAL_MAX,
                     group='oslo_messaging_rabbit')


def response_timeout(conf):
    """Return ``[DEFAULT] rpc_response_timeout``: the seconds an RPC call
    may take, and so the time a server build may take (its cast to a
    scheduler and the scheduler's work) before the server is failed.

    :param conf: a ConfigOpts, with or without oslo.messaging's options.
    :returns: seconds, oslo.messaging's default when the option is not
        registered.
    """
    return getattr(conf, 'rpc_response_timeout', DEFAULT_RESPONSE_TIMEOUT)


class RequestContextSerializer(messaging.Serializer):
    """Serialize RequestContexts as dicts and objects as primitives."""

    def __init__(self, base=None):
        self._base = base or objects_base.NovaMiniObjectSerializer()

    def serialize_entity(self, ctxt, entity):
        return self._base.serialize_entity(ctxt, entity)

    def deserialize_entity(self, ctxt, entity):
        return self._base.deserialize_entity(ctxt, entity)

    def serialize_context(self, ctxt):
        return ctxt.to_dict()

    def deserialize_context(self, ctxt):
        return nm_context.RequestContext.from_dict(ctxt)


def get_transport(conf):
    """Return the process's RPC transport, made on first use.

    Domain exceptions raised by a server are re-raised as themselves in
    the caller.

    :param conf: the ConfigOpts with ``transport_url``.
    :returns: an oslo.messaging RPC transport.
    """
    global _TRANSPORT
    if _TRANSPORT is None:
        # Domain exceptions raised by a server are re-raised as themselves
        # in the caller (NoValidHost, ...).
        _TRANSPORT = messaging.get_rpc_transport(
            conf, allowed_remote_exmods=[exception.__name__,
                                         exception_baremetal.__name__])
    return _TRANSPORT


def cleanup():
    """Close the process's RPC transport, if one was made."""
    global _TRANSPORT
    if _TRANSPORT is not None:
        _TRANSPORT.cleanup()
        _TRANSPORT = None


def get_client(conf, target, version_cap=None):
    """Return an RPC client that sends contexts and objects.

    :param conf: the ConfigOpts with ``transport_url``.
    :param target: the oslo.messaging Target called.
    :param version_cap: the highest API version sent (None: any).
    :returns: an oslo.messaging RPCClient.
    """
    return messaging.get_rpc_client(
        get_transport(conf), target, version_cap=version_cap,
        serializer=RequestContextSerializer())


def get_server(conf, target, endpoints):
    """Return an RPC server dispatching to ``endpoints`` on threads.

    :param conf: the ConfigOpts with ``transport_url``.
    :param target: the oslo.messaging Target listened on.
    :param endpoints: the objects whose public methods are called.
    :returns: an oslo.messaging RPC server, not yet started.
    """
    return messaging.get_rpc_server(
        get_transport(conf), target, endpoints, executor='threading',
        serializer=RequestContextSerializer(),
        access_policy=dispatcher.DefaultRPCAccessPolicy)


def get_notifier(conf, publisher_id):
    """Return a Notifier of ``[oslo_messaging_notifications]`` (its
    ``driver``, ``topics`` and ``transport_url``, else ``[DEFAULT]
    transport_url``) whose payloads are sent as JSON primitives.

    The caller owns its transport: ``notifier.transport.cleanup()`` when
    done.

    :param conf: the ConfigOpts.
    :param publisher_id: the notifications' publisher, ``service.host``.
    """
    transport = messaging.get_notification_transport(conf)
    return messaging.Notifier(
        transport, publisher_id=publisher_id,
        serializer=RequestContextSerializer(
            messaging.JsonPayloadSerializer()))


def check_broker(conf, timeout=5):
    """Check that a broker of ``transport_url`` answers.

    oslo.messaging retries a lost broker forever, which is right for a
    running daemon but not at start-up, where an operator wants to hear
    at once that the URL is wrong. Transports other than AMQP ones are
    not checked.

    :param conf: the ConfigOpts with ``transport_url``.
    :param timeout: the seconds a connection attempt to each host may
        take.
    :raises nova_mini.exception.MessagingUnreachable: no host answered.
    """
    url = messaging.TransportURL.parse(conf, conf.transport_url)
    if url.transport not in ('rabbit', 'amqp', 'kombu'):
        return
    last_error = None
    for host in url.hosts or [None]:
        amqp_url = 'amqp://%s:%s@%s:%s/%s' % (
            (host.username if host else None) or 'guest',
            (host.password if host else None) or 'guest',
            (host.hostname if host else None) or 'localhost',
            (host.port if host else None) or 5672,
            url.virtual_host or '')
        try:
            with kombu.Connection(amqp_url, connect_timeout=timeout) as conn:
                conn.ensure_connection(max_retries=1, timeout=timeout)
            return
        except Exception as exc:
            last_error = exc
    safe = '%s://%s/%s' % (url.transport, ','.join(
        '%s@%s:%s' % (h.username or '', h.hostname, h.port or 5672)
        for h in url.hosts), url.virtual_host or '')
    raise exception.MessagingUnreachable(url=safe, reason=last_error)
