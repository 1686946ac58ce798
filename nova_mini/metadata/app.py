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

"""The metadata service's WSGI application: the OpenStack metadata format.

Routes (a trailing slash or repeated slashes change nothing):

* ``/``: lists ``openstack``, the one format served (Nova also lists the
  EC2 versions there; nova_mini serves no EC2 format);
* ``/openstack``: the versions (``versions.listed()``);
* ``/openstack/{version}``: the files of that version for the instance;
* ``/openstack/{version}/{file}``: a file.

The two listings are the same for every caller and need no identity; the
rest is about one instance, named by the identity headers
(``identity.RequestIdentity``), read from the database on every request.
Errors are webob's plain-text pages, as Nova's metadata API sends them.
"""

import posixpath

from oslo_log import log as logging
from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import opts as middleware_opts
from oslo_middleware import request_id
from oslo_serialization import jsonutils
import webob
import webob.dec
import webob.exc

from nova_mini import conf
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import retry
from nova_mini import exception
from nova_mini.metadata import cache
from nova_mini.metadata import identity
from nova_mini.metadata import instance_files
from nova_mini.metadata import vendordata
from nova_mini.metadata import versions
from nova_mini import objects

CONF = conf.CONF
LOG = logging.getLogger(__name__)

TEXT = 'text/plain'
JSON = 'application/json'
# NOTE: Nova labels user data text/plain too, whatever it holds.
USER_DATA_TYPE = 'text/plain'

# HTTP status of a vendordata target that failed when failures are fatal:
# an upstream server did not answer properly, which is what 502 says.
TARGET_FAILED_STATUS = 502

UNKNOWN_ERROR = ('An unknown error has occurred. Please try your request '
                 'again.')

# A database that is down or too busy: 503, and when to ask again.
DATABASE_UNAVAILABLE_RETRY_AFTER = 5
DATABASE_UNAVAILABLE = ('The metadata service cannot reach its database. '
                        'Retry the request in %d seconds.'
                        % DATABASE_UNAVAILABLE_RETRY_AFTER)


# Where the address of the peer (the TCP connection's other end) is kept,
# before HTTPProxyToWSGI replaces REMOTE_ADDR with a forwarded one.
PEER_ADDRESS = 'nova_mini.peer_address'


def _keep_peer_address(app):
    def wrapped(environ, start_response):
        environ[PEER_ADDRESS] = environ.get('REMOTE_ADDR')
        return app(environ, start_response)
    return wrapped


def client_address(req):
    """Return who sent ``req``, for the log.

    The peer, unless ``[oslo_middleware] enable_proxy_headers_parsing``
    says the service is behind a proxy (as in Nova, whose metadata
    pipeline has the same middleware): then the address the proxy forwards
    (``X-Forwarded-For`` or ``Forwarded``), followed by the peer. Without
    that option, a forwarded address is whatever the caller wrote, so it is
    not logged at all.
    """
    peer = req.environ.get(PEER_ADDRESS, req.remote_addr)
    client = req.remote_addr
    if client == peer:
        return peer or 'an unknown address'
    return '%s (forwarded by %s)' % (client, peer)


def _database_unavailable(exc):
    return isinstance(exc, exception.DatabaseBusy) or retry.is_unreachable(exc)


def _text(lines):
    return webob.Response(text='\n'.join(lines), content_type=TEXT)


def _content_type(name):
    return USER_DATA_TYPE if name == versions.USER_DATA else JSON


def _path_tokens(req):
    """The path's segments; None when it is not UTF-8 (no file's name)."""
    try:
        path_info = req.path_info
    except UnicodeDecodeError:
        return None
    path = posixpath.normpath('/' + path_info)
    return [token for token in path.split('/') if token]


# The longest instance id looked up: uuids have 36 characters.
MAX_INSTANCE_ID_LENGTH = 255


def _may_be_instance_id(instance_id):
    """Whether ``instance_id`` could name an instance at all: printable
    ASCII of a sensible length. The database is not asked about anything
    else (PostgreSQL refuses a NUL in a string outright).
    """
    return (len(instance_id) <= MAX_INSTANCE_ID_LENGTH
            and instance_id.isascii() and instance_id.isprintable())


class MetadataApplication(object):
    """Serves the instances' metadata.

    :param conf: the options (``[metadata]``, ``default_availability_zone``).
    :param request_identity: an ``identity.RequestIdentity``.
    :param vendor_data: what ``vendordata.load(conf)`` returns.
    :param document_cache: a ``cache.DocumentCache``.
    """

    def __init__(self, conf, request_identity, vendor_data, document_cache):
        self.conf = conf
        self.identity = request_identity
        self.vendor_data = vendor_data
        self.cache = document_cache
        # The same rendering as the config drive's (configdrive.tree).
        self.files = instance_files.InstanceFiles(conf, vendor_data,
                                                  document_cache)

    @classmethod
    def from_conf(cls, conf):
        """Build the application of the configuration's identity rules,
        vendordata providers and document cache.
        """
        return cls(conf, identity.RequestIdentity.from_conf(conf),
                   vendordata.load(conf), cache.DocumentCache.from_conf(conf))

    @webob.dec.wsgify
    def __call__(self, req):
        if req.method not in ('GET', 'HEAD'):
            return webob.exc.HTTPMethodNotAllowed(
                headers=[('Allow', 'GET, HEAD')])
        tokens = _path_tokens(req)
        if tokens is None:
            return webob.exc.HTTPNotFound()
        if not tokens:
            return _text(['openstack'])
        if tokens[0] != 'openstack':
            return webob.exc.HTTPNotFound()
        if len(tokens) == 1:
            return _text(versions.listed())
        try:
            instance = self._instance(req)
            return self._serve(instance, tokens[1:])
        except exception.MetadataRequestInvalid as exc:
            return webob.exc.HTTPBadRequest(explanation=exc.format_message())
        except exception.MetadataSignatureInvalid as exc:
            return webob.exc.HTTPForbidden(explanation=exc.format_message())
        except exception.NotFound:
            # The same page for a missing file, an unknown instance and
            # someone else's: an outsider learns nothing.
            return webob.exc.HTTPNotFound()
        except exception.VendorDataTargetFailed as exc:
            target = exc.kwargs.get('target')
            LOG.error('%s (instance %s)', exc.format_message(),
                      req.headers.get(identity.INSTANCE_ID))
            # The reason stays in the log: it may name internal URLs.
            return webob.Response(
                status=TARGET_FAILED_STATUS, content_type=JSON,
                body=jsonutils.dump_as_bytes({'error': {
                    'code': TARGET_FAILED_STATUS,
                    'message': 'Vendordata target %s failed.' % target,
                    'target': target}}))
        except Exception as exc:  # the database, else re-raised
            if not _database_unavailable(exc):
                raise
            LOG.warning('Metadata request for instance %s: the database '
                        'cannot be reached: %s',
                        req.headers.get(identity.INSTANCE_ID), exc)
            return webob.exc.HTTPServiceUnavailable(
                explanation=DATABASE_UNAVAILABLE,
                headers=[('Retry-After',
                          str(DATABASE_UNAVAILABLE_RETRY_AFTER))])

    def _instance(self, req):
        """The instance the request is for.

        :raises: InstanceNotFound for an unknown one or one of another
            project than the request names.
        """
        remote_address = client_address(req)
        instance_id, tenant_id = self.identity.claim(req.headers,
                                                     remote_address)
        if not _may_be_instance_id(instance_id):
            LOG.info('Metadata request for instance id %.80r..., not an '
                     'instance id, from %s', instance_id, remote_address)
            raise exception.InstanceNotFound(instance_id=instance_id)
        try:
            instance = objects.Instance.get_by_uuid(
                nm_context.get_admin_context(), instance_id)
        except exception.InstanceNotFound:
            LOG.info('Metadata request for unknown instance %s from %s',
                     instance_id, remote_address)
            raise
        except Exception as exc:
            if _database_unavailable(exc):
                raise
            LOG.exception('Failed to get metadata for instance %s',
                          instance_id)
            raise webob.exc.HTTPInternalServerError(explanation=UNKNOWN_ERROR)
        if instance.project_id != tenant_id:
            LOG.warning('Metadata request for instance %s names project %s, '
                        'not the instance\'s', instance_id, tenant_id)
            raise exception.InstanceNotFound(instance_id=instance_id)
        return instance

    def _serve(self, instance, tokens):
        version = versions.resolve(tokens[0])
        if version is None or len(tokens) > 2:
            raise exception.ResourceNotFound()
        if len(tokens) == 1:
            return _text(versions.files(version,
                                        instance.user_data is not None))
        name = tokens[1]
        if not versions.serves(version, name):
            raise exception.ResourceNotFound()
        return webob.Response(body=self.files.read(instance, version, name),
                              content_type=_content_type(name))


def build_app(conf=CONF):
    """Build the metadata WSGI application (in each worker process).

    :param conf: the configuration.
    :returns: the WSGI application, behind the request-id and
        proxy-header middleware (the latter a no-op unless ``[oslo_middleware]
        enable_proxy_headers_parsing``).
    :raises nova_mini.exception.MetadataConfigError: a configuration it
        cannot serve with (nova-mini-metadata checks before it forks its
        workers).
    :raises nova_mini.exception.VendorDataConfigError: likewise, for the
        vendordata providers.
    """
    db_api.configure(conf)
    for group, opts in middleware_opts.list_opts_http_proxy_to_wsgi():
        conf.register_opts(opts, group=group)
    app = request_id.RequestId(MetadataApplication.from_conf(conf))
    return _keep_peer_address(http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf))
