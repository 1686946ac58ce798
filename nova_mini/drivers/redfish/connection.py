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

"""Clients of the nodes' BMCs: one cached ``sushy.Sushy`` per BMC.

A client is cached per (address, root prefix, username, password,
TLS verification, authentication type); the password enters the key only
as an HMAC under a key drawn at start, so neither the cache nor a log
holds it. A cached client keeps its Redfish session (``auth_type``
``session`` or ``auto``), so a conductor does not log in on every
operation. The least recently used client goes beyond
``[redfish] connection_cache_size``; a client whose BMC refused its
credentials or could not be reached is dropped at once.

:func:`call` runs an operation with the node's client, again after a
connection error or a server error (5xx), up to
``[redfish] connection_attempts`` times, waiting
``connection_retry_interval`` seconds, then twice as long each time (at
most ``MAX_RETRY_INTERVAL``). A connection error that persists raises
RedfishConnectionError; refused credentials RedfishError at once (trying
them again would only lock the account); a server error that persists is
raised as sushy's, for the caller to name its operation.

An operation of several steps (a deploy: power off, media, boot device,
power on) goes through one :class:`SystemHandle`: the ComputerSystem is
fetched once and its steps reuse it; only the power waits read it again
(a change the BMC makes has to be seen), and what a step changed itself
is read again only by a step that needs it.
"""

import collections
import hashlib
import hmac
import os
import threading
import time

from oslo_log import log as logging
import sushy

from nova_mini import conf
from nova_mini.drivers.redfish import errors

LOG = logging.getLogger(__name__)

MAX_RETRY_INTERVAL = 30

AUTH_CLASSES = {
    'basic': sushy.auth.BasicAuth,
    'session': sushy.auth.SessionAuth,
    'auto': sushy.auth.SessionOrBasicAuth,
}

_HMAC_KEY = os.urandom(32)
_lock = threading.Lock()
_clients = collections.OrderedDict()
# key -> the lock of the thread making that client
_making = {}


def _cache_key(info):
    digest = hmac.new(_HMAC_KEY, (info.password or '').encode('utf-8'),
                      hashlib.sha256).hexdigest()
    return info.cache_key_parts() + (digest,)


def _new_client(info):
    auth = AUTH_CLASSES[info.auth_type](username=info.username,
                                        password=info.password)
    kwargs = {'verify': info.verify_ca, 'auth': auth,
              'connect_timeout': conf.CONF.redfish.connect_timeout,
              'read_timeout': conf.CONF.redfish.read_timeout,
              # sushy tries once, then a failed GET once more at once:
              # the waits and the further attempts are call()'s.
              'server_side_retries': 1, 'server_side_retries_delay': 0}
    if info.root_prefix:
        kwargs['root_prefix'] = info.root_prefix
    return sushy.Sushy(info.address, **kwargs)


def _close(client):
    """Log out and close the client's HTTP connections now.

    (sushy does it only when the garbage collector finalizes the client.)
    """
    try:
        client._auth.close()
        client._conn.close()
    except Exception as exc:
        LOG.debug('Ignoring an error closing a Redfish client: %s', exc)


def get_client(info):
    """The cached client of ``info``'s BMC, made (and logged in) if new.

    Threads asking at once for a client not cached yet wait for the one
    that makes it: one login per BMC, not one per thread.
    """
    key = _cache_key(info)
    size = conf.CONF.redfish.connection_cache_size
    if not size:
        return _new_client(info)
    with _lock:
        client = _clients.get(key)
        if client is not None:
            _clients.move_to_end(key)
            return client
        making = _making.setdefault(key, threading.Lock())
    with making:
        with _lock:
            client = _clients.get(key)
            if client is not None:
                return client
        LOG.debug('No cached Redfish client for %(address)s (node '
                  '%(node)s): opening one', {'address': info.address,
                                             'node': info.node_uuid})
        try:
            client = _new_client(info)
        except BaseException:
            with _lock:
                _making.pop(key, None)
            raise
        with _lock:
            _making.pop(key, None)
            _clients[key] = client
            while len(_clients) > size:
                _clients.popitem(last=False)
    return client


def forget(info):
    """Drop the cached client of ``info``'s BMC, if any."""
    with _lock:
        _clients.pop(_cache_key(info), None)


def cached_clients():
    """How many clients the cache holds."""
    with _lock:
        return len(_clients)


def clear_cache():
    with _lock:
        _clients.clear()


def _retry_wait(attempt):
    interval = conf.CONF.redfish.connection_retry_interval
    return min(interval * 2 ** (attempt - 1), MAX_RETRY_INTERVAL)


def call(info, operation):
    """``operation(client)`` with the client of ``info``'s BMC, retried.

    :raises: RedfishConnectionError when the BMC stays unreachable.
    :raises: RedfishError when it refuses the credentials.
    :raises: sushy.exceptions.ServerSideError when it keeps answering
        5xx, and operation's own errors.
    """
    attempts = conf.CONF.redfish.connection_attempts
    for attempt in range(1, attempts + 1):
        client = None
        try:
            client = get_client(info)
            return operation(client)
        except sushy.exceptions.ConnectionError as exc:
            forget(info)
            LOG.warning('For node %(node)s, got a connection error from '
                        'Redfish at address "%(address)s" using auth type '
                        '"%(auth_type)s" (attempt %(attempt)d of '
                        '%(attempts)d). Error: %(error)s',
                        {'node': info.node_uuid, 'address': info.address,
                         'auth_type': info.auth_type, 'attempt': attempt,
                         'attempts': attempts, 'error': exc})
            if attempt == attempts:
                LOG.error('Failed to connect to Redfish at %(address)s for '
                          'node %(node)s.', {'address': info.address,
                                             'node': info.node_uuid})
                raise errors.RedfishConnectionError(node=info.node_uuid,
                                                    error=exc)
        except sushy.exceptions.AccessError as exc:
            forget(info)
            LOG.warning('For node %(node)s, the BMC at %(address)s refused '
                        'the credentials (auth type %(auth_type)s); the '
                        'client is dropped. Error: %(error)s',
                        {'node': info.node_uuid, 'address': info.address,
                         'auth_type': info.auth_type, 'error': exc})
            raise errors.RedfishError(error=exc)
        except sushy.exceptions.ServerSideError as exc:
            LOG.warning('For node %(node)s, the BMC at %(address)s answered '
                        'a server error (attempt %(attempt)d of '
                        '%(attempts)d): %(error)s',
                        {'node': info.node_uuid, 'address': info.address,
                         'attempt': attempt, 'attempts': attempts,
                         'error': exc})
            if attempt == attempts:
                raise
        except AttributeError as exc:
            # sushy's way to fail when a session could not be renewed.
            forget(info)
            raise errors.RedfishError(error=exc)
        finally:
            if (client is not None
                    and not conf.CONF.redfish.connection_cache_size):
                _close(client)
        time.sleep(_retry_wait(attempt))


def _get_system(client, info):
    try:
        return client.get_system(info.system_id)
    except sushy.exceptions.ResourceNotFoundError as exc:
        LOG.error('The Redfish System "%(system)s" was not found for '
                  'node %(node)s. Error %(error)s',
                  {'system': info.system_id or '<default>',
                   'node': info.node_uuid, 'error': exc})
        raise errors.RedfishError(error=exc)
    except sushy.exceptions.UnknownDefaultError as exc:
        raise errors.RedfishError(error=exc)


class SystemHandle(object):
    """The node's ComputerSystem for the steps of one operation.

    :meth:`call` runs a step with the System fetched at the first step
    (one GET), again only when ``fresh`` is asked, when sushy marked it
    stale, or when the client changed (a retry after a connection error
    opens a new one). ``cache`` holds what the steps list once for the
    whole operation (virtual_media: the devices); it is emptied with the
    System when the client changes. One thread at a time.
    """

    def __init__(self, info):
        self.info = info
        self.cache = {}
        self._client = None
        self._system = None

    def call(self, operation, fresh=False):
        """``operation(system)``, retried as :func:`call`.

        :param fresh: read the System from the BMC first (a change the
            BMC makes on its own, such as a power state, is to be seen).
        :raises: RedfishError when the BMC has no such system, or several
            and no redfish_system_id names one; and those of :func:`call`.
        """
        def _with_system(client):
            if client is not self._client:
                self._client = client
                self._system = None
                self.cache.clear()
            if self._system is None:
                self._system = _get_system(client, self.info)
            elif fresh:
                # One GET: a forced refresh would read again every
                # sub-resource the System has handed out (its virtual
                # media, each device).
                self._system.invalidate()
                self._system.refresh(force=False)
            else:
                # Read again only when sushy marked it stale.
                self._system.refresh(force=False)
            return operation(self._system)

        return call(self.info, _with_system)


def call_system(info, operation):
    """``operation(system)`` with the node's ComputerSystem (fetched for
    this call alone), retried.

    :raises: RedfishError when the BMC has no such system, or several and
        no redfish_system_id names one; and those of :func:`call`.
    """
    return SystemHandle(info).call(operation)
