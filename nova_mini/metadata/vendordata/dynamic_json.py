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

"""DynamicJSON: one key of vendor_data2.json per REST target.

Each target of ``[api] vendordata_dynamic_targets`` (``name@url``) gets a
JSON POST describing the instance (the body Nova sends, see
``request_body``) with a Keystone token of the ``[vendordata_dynamic_auth]``
credentials, and its JSON object reply becomes key ``name``. Targets are
called in parallel on a thread pool of the provider, so a request waits
for the slowest target, not for their sum. Replies are cached per
(target, instance, request body) under the HTTP caching rules of
``http_cache``; because the request body is part of the key, an instance
that changes what is sent (rebuilt with another image, new metadata or
user data, renamed) never gets an entry made for what it was, and the old
entries age out of the cache. Deleted instances never reach a provider:
the metadata service answers 404 first. Requests that miss the same entry
at once make one call between them: in a worker they share its outcome,
and when the workers share the cache in memcached, the worker that calls
holds the entry's lock there while the others wait for what it stores.
A worker keeps the fresh entries it read from memcached until they go
stale, so that a cache hit is no round trip to it.

A target that fails (timeout, connection or TLS error, a status that is not
2xx, a reply that is not a JSON object) is left out with a warning naming
it, or fails the request when ``[api] vendordata_dynamic_failure_fatal``.
So is one whose call outlasts ``vendordata_dynamic_connect_timeout +
vendordata_dynamic_read_timeout`` in all, whose reply is larger than
``[api] vendordata_dynamic_max_size`` (sent or decompressed), or nested
too deep (``bounded_http``).
"""

from concurrent import futures
import hashlib
import http.client
import json
import ssl
import threading
import time

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging
import requests
import urllib3

from nova_mini.conf import vendordata_dynamic_auth
from nova_mini import exception
from nova_mini.metadata.vendordata import bounded_http
from nova_mini.metadata.vendordata import cache_store
from nova_mini.metadata.vendordata import http_cache
from nova_mini.metadata.vendordata import targets as targets_mod

LOG = logging.getLogger(__name__)

AUTH_GROUP = vendordata_dynamic_auth.vendordata_dynamic_auth_group.name

# NOTE: Nova's User-Agent, which targets written for Nova may expect.
HEADERS = {'Content-Type': 'application/json',
           'Accept': 'application/json',
           'User-Agent': 'openstack-nova-vendordata'}

# Threads per target when [metadata] threads_per_worker is not known: one
# per request a worker can serve at once, so targets never queue.
_DEFAULT_THREADS = 8


# What reading a reply may raise when the target breaks off or the deadline
# shuts its socket down.
_READ_ERRORS = (requests.RequestException, urllib3.exceptions.HTTPError,
                http.client.HTTPException, OSError)


class TargetError(Exception):
    """A target failed; the message is the reason, for the log."""


def request_body(instance):
    """What a target is told about the instance: Nova's body, key for key.

    ``user-data`` is the base64 text as the API received it (or None);
    ``boot-roles`` the roles of the user who booted it, comma-joined as
    Nova sends them.
    """
    return {'project-id': instance.project_id,
            'instance-id': instance.uuid,
            'image-id': instance.image_ref,
            'user-data': instance.user_data,
            'hostname': instance.hostname,
            'metadata': dict(instance.metadata or {}),
            'boot-roles': ','.join(instance.boot_roles or [])}


def _tls_verify(conf):
    """requests' ``verify`` for https targets, checked at start."""
    if not conf.api.vendordata_dynamic_ssl_verify:
        LOG.warning('[api] vendordata_dynamic_ssl_verify is false: the TLS '
                    'certificates of vendordata targets are not verified, '
                    'so anyone on the path can impersonate a target and '
                    'read the token sent to it.')
        return False
    certfile = conf.api.vendordata_dynamic_ssl_certfile
    if not certfile:
        return True
    try:
        ssl.create_default_context(cafile=certfile)
    except (OSError, ssl.SSLError) as exc:
        raise exception.VendorDataConfigError(
            reason='[api] vendordata_dynamic_ssl_certfile %s: %s'
                   % (certfile, getattr(exc, 'strerror', None) or exc))
    return certfile


def _session(conf):
    """The keystoneauth1 session, with the service's credentials if any."""
    try:
        auth = ks_loading.load_auth_from_conf_options(conf, AUTH_GROUP)
        session = ks_loading.load_session_from_conf_options(
            conf, AUTH_GROUP, auth=auth)
    except ks_exceptions.ClientException as exc:
        raise exception.VendorDataConfigError(
            reason='[%s]: %s' % (AUTH_GROUP, exc))
    if auth is None:
        LOG.warning('[%s] has no auth_type: dynamic vendordata targets are '
                    'called without a token.', AUTH_GROUP)
    return session


class DynamicJSON:
    """The vendordata provider of ``[api] vendordata_dynamic_targets``."""

    def __init__(self, conf):
        self.targets = targets_mod.parse_targets(
            conf.api.vendordata_dynamic_targets)
        self.keys = frozenset(target.name for target in self.targets)
        if not self.targets:
            LOG.warning('DynamicJSON is enabled but [api] '
                        'vendordata_dynamic_targets is empty.')
        self.fatal = conf.api.vendordata_dynamic_failure_fatal
        # Nova's meaning, for each socket operation...
        self.timeout = (conf.api.vendordata_dynamic_connect_timeout,
                        conf.api.vendordata_dynamic_read_timeout)
        # ...and their sum for the whole call, which the socket timeouts
        # alone do not bound (a target may send a byte at a time).
        self.deadline = sum(self.timeout)
        self.max_size = conf.api.vendordata_dynamic_max_size
        # How long one call may hold the lock of its cache entry, the lock
        # shared by the workers when the cache is memcached.
        self._lock_ttl = self.deadline + 1
        self.verify = _tls_verify(conf)
        self.session = _session(conf)
        bounded_http.mount(self.session)
        self.max_age = conf.api.vendordata_dynamic_cache_max_age
        self.store = (cache_store.JSONStore.from_conf(conf)
                      if self.max_age and self.targets else None)
        # The fresh entries this worker has read from a cache kept outside
        # it (memcached): served again without a round trip until they go
        # stale, which they do at the same time as the shared copy (a
        # shared entry is only replaced once stale). Only what the shared
        # cache held is kept: a worker whose memcached is down calls its
        # targets as before. The entries are read-only (shared by threads).
        self._near = (cache_store.LRUDict(
            conf.api.vendordata_dynamic_cache_size)
            if self.store is not None and not self.store.local else None)
        # The calls being made, by cache key: concurrent requests for a
        # missing or stale entry share one call (its Future); with a shared
        # cache, the thread making it also takes the entry's lock in
        # memcached, so that other workers wait for its answer too.
        self._flights = {}
        self._flights_lock = threading.Lock()
        threads = getattr(getattr(conf, 'metadata', None),
                          'threads_per_worker', None) or _DEFAULT_THREADS
        # Created now, its threads on first use: a daemon that forks its
        # workers after loading the providers forks no threads.
        self._pool = futures.ThreadPoolExecutor(
            max_workers=max(1, len(self.targets)) * threads,
            thread_name_prefix='vendordata')

    def close(self):
        """Stop the thread pool that calls the targets."""
        self._pool.shutdown(wait=False)

    def get(self, instance):
        """Return the keys this provider adds to vendor_data2.json: one per
        target, its answer (cached or fresh; the misses are called at once).

        :param instance: the Instance.
        :returns: ``{target name: value}``, without the targets that failed.
        :raises nova_mini.exception.VendorDataTargetFailed: a target failed
            and ``[api] vendordata_dynamic_failure_fatal`` is set.
        """
        body = json.dumps(request_body(instance), sort_keys=True).encode()
        outcomes = {}
        misses = []
        for target in self.targets:
            key = self._cache_key(target, instance, body)
            entry = self._cached(key)
            if http_cache.is_fresh(entry, time.time()):
                outcomes[target.name] = entry['value']
            else:
                misses.append((target, key, entry))
        # The first miss runs here, the others on the pool, at once.
        pending = {target.name: self._pool.submit(self._refresh, target,
                                                  key, entry, body)
                   for target, key, entry in misses[1:]}
        for target, key, entry in misses[:1]:
            outcomes[target.name] = self._outcome(
                target, instance, self._refresh, target, key, entry, body)
        for target, _key, _entry in misses[1:]:
            outcomes[target.name] = self._outcome(
                target, instance, pending[target.name].result)
        return {target.name: outcomes[target.name]
                for target in self.targets
                if outcomes[target.name] is not None}

    def _outcome(self, target, instance, call, *args):
        """The target's value, or None (logged) when it failed."""
        try:
            return call(*args)
        except TargetError as exc:
            LOG.warning('Vendordata target %s (%s) failed for instance %s: '
                        '%s', target.name, target.url, instance.uuid, exc)
            if self.fatal:
                raise exception.VendorDataTargetFailed(target=target.name,
                                                       reason=str(exc))
            return None

    @staticmethod
    def _cache_key(target, instance, body):
        digest = hashlib.sha256(target.url.encode() + b'\n' + body)
        return 'vendordata:%s:%s:%s' % (target.name, instance.uuid,
                                        digest.hexdigest())

    def _cached(self, key):
        if self.store is None:
            return None
        if self._near is not None:
            entry = self._near.get(key)
            if http_cache.is_fresh(entry, time.time()):
                return entry
            if entry is not None:
                self._near.pop(key, None)
        entry = self.store.get(key)
        if not (isinstance(entry, dict)
                and isinstance(entry.get('value'), dict)
                and isinstance(entry.get('headers'), dict)
                and isinstance(entry.get('fresh_until'), (int, float))):
            return None
        if self._near is not None and http_cache.is_fresh(entry, time.time()):
            self._near[key] = entry
        return entry

    def _refresh(self, target, key, entry, body):
        """The target's value: called, or revalidated, and stored.

        Requests of this worker that miss the entry while a call is made
        for it get that call's outcome, its value or its failure, instead
        of calling after it one by one (a failed call or a ``no-store``
        answer leaves nothing in the cache for them to find).
        """
        if self.store is None:
            return self._call(target, body, None)[0]
        with self._flights_lock:
            flight = self._flights.get(key)
            leading = flight is None
            if leading:
                flight = self._flights[key] = futures.Future()
        if not leading:
            return flight.result()
        try:
            value = self._refresh_shared(target, key, entry, body)
        except BaseException as exc:
            flight.set_exception(exc)
            raise
        else:
            flight.set_result(value)
            return value
        finally:
            with self._flights_lock:
                del self._flights[key]

    def _refresh_shared(self, target, key, entry, body):
        """``_refresh`` of the one request of this worker that calls."""
        # A call that ended since this request read the cache stored it.
        value = self._fresh_value(key)
        if value is not None:
            return value
        shared = self.store.lock(key, self._lock_ttl)
        if shared is None:
            return self._call_and_store(target, key, entry, body)
        # Another worker may be calling the target for this entry: wait
        # for what it stores rather than call too, at most as long as its
        # call may last (the lock expires then if its holder died).
        try:
            value, held = shared.acquire_unless(
                lambda: self._fresh_value(key), self._lock_ttl + 1)
        except Exception as exc:    # the cache must never fail a request
            LOG.warning('Vendordata cache: the shared lock of %s failed, '
                        'calling without it: %s', key, exc)
            value, held = None, False
        if value is not None:
            return value
        try:
            return self._call_and_store(target, key, entry, body)
        finally:
            if held:
                self._release(shared)

    @staticmethod
    def _release(shared):
        try:
            shared.release()
        except Exception as exc:    # it expires on its own
            LOG.warning('Vendordata cache: releasing the shared lock %s '
                        'failed: %s', shared.key, exc)

    def _fresh_value(self, key):
        """The cached value of ``key`` if still fresh, else None."""
        latest = self._cached(key)
        if http_cache.is_fresh(latest, time.time()):
            return latest['value']
        return None

    def _call_and_store(self, target, key, entry, body):
        """Call (or revalidate) the target and store the outcome."""
        entry = self._cached(key) or entry
        value, new_entry = self._call(target, body, entry)
        if new_entry is not None:
            self.store.set(key, new_entry)
        elif entry is not None:
            self.store.delete(key)
        if self._near is not None:
            # What the shared cache now holds is read from it next time.
            self._near.pop(key, None)
        return value

    def _call(self, target, body, entry):
        """POST to the target: ``(value, entry to store or None)``."""
        headers = dict(HEADERS, **http_cache.conditional_headers(entry))
        with bounded_http.Deadline(self.deadline) as deadline:
            try:
                return self._exchange(target, body, headers, entry)
            except TargetError:
                if deadline.expired:
                    raise self._late()
                raise
            except _READ_ERRORS as exc:
                if deadline.expired:
                    raise self._late()
                raise TargetError('the reply could not be read: %s'
                                  % (str(exc) or type(exc).__name__))

    def _late(self):
        return TargetError('no complete reply within %g seconds'
                           % self.deadline)

    def _exchange(self, target, body, headers, entry):
        try:
            reply = self.session.request(
                target.url, 'POST', data=body, headers=headers,
                timeout=self.timeout, verify=self.verify, raise_exc=False,
                redirect=False, log=False, stream=True)
        except ks_exceptions.ClientException as exc:
            raise TargetError(str(exc) or type(exc).__name__)
        with reply:
            if reply.status_code == 304 and entry is not None:
                return entry['value'], http_cache.revalidated_entry(
                    entry, reply.headers, time.time(), self.max_age)
            if not 200 <= reply.status_code < 300:
                raise TargetError('HTTP %d %s' % (reply.status_code,
                                                  reply.reason or ''))
            try:
                content = bounded_http.read_body(reply, self.max_size)
            except bounded_http.ReplyError as exc:
                raise TargetError(str(exc))
        now = time.time()
        if reply.status_code == 204 or not content.strip():
            value = {}
        else:
            try:
                value = bounded_http.parse_json(content)
            except bounded_http.ReplyError as exc:
                raise TargetError(str(exc))
            if not isinstance(value, dict):
                raise TargetError('the reply is a JSON %s, not an object'
                                  % type(value).__name__)
        return value, http_cache.make_entry(value, reply.headers, now,
                                            self.max_age)
