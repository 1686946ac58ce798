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

"""One API root (``/compute`` or ``/baremetal``) as a WSGI application.

``APIRoot`` negotiates the microversion, runs the pecan controllers and
turns every error, ours or pecan's, into the root's own error format, so
handlers only raise domain exceptions. ``BodySizeLimiter`` bounds what
is read of a request's body.
"""

from oslo_log import log as logging
from oslo_middleware import sizelimit
import webob
import webob.exc

from nova_mini.api import faults
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini import exception

LOG = logging.getLogger(__name__)


class BodySizeLimiter(sizelimit.RequestBodySizeLimiter):
    """oslo.middleware's limit on request bodies, ``[oslo_middleware]
    max_request_body_size``, with another limit for the few requests that
    carry a large document (a node's provision request and its config
    drive, as Ironic's ``[api] max_json_body_size_provision``).

    Either way the body is bounded as oslo.middleware bounds it: a
    Content-Length over the limit is 413 before anything is read; a body
    without one (chunked) is read through oslo.middleware's LimitingReader,
    which raises 413 once the limit is passed.

    :param application: the app.
    :param conf: the configuration (a ConfigOpts).
    :param larger: ``((method, path regex, limit), ...)``: a request whose
        method and path below the root (``PATH_INFO``) fully match has the
        limit ``limit(conf)`` in bytes instead of the global one.
    """

    def __init__(self, application, conf, larger=()):
        super().__init__(application, conf)
        self.larger = tuple(larger)

    def limit(self, environ):
        """The body limit of a request, in bytes."""
        method = environ.get('REQUEST_METHOD')
        path = environ.get('PATH_INFO', '')
        for rule_method, rule_path, limit in self.larger:
            if method == rule_method and rule_path.fullmatch(path):
                return limit(self.oslo_conf)
        return self._conf_get('max_request_body_size')

    # NOTE: plain WSGI, not webob's wsgify (oslo.middleware's): the
    # answer goes out as the application gives it, instead of being
    # rebuilt as a webob response and served again (4 % of the CPU of a
    # small write). An HTTPException is served as wsgify serves it.
    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        max_size = self.limit(environ)
        try:
            if (req.content_length is not None
                    and req.content_length > max_size):
                LOG.info('Request body of %(size)d bytes refused: over the '
                         'limit of %(limit)d bytes of %(method)s %(path)s.',
                         {'size': req.content_length, 'limit': max_size,
                          'method': req.method,
                          'path': environ.get('PATH_INFO', '')})
                raise webob.exc.HTTPRequestEntityTooLarge()
            if req.content_length is None:
                req.body_file = sizelimit.LimitingReader(req.body_file,
                                                         max_size)
            return self.application(environ, start_response)
        except webob.exc.HTTPException as exc:
            return exc(environ, start_response)


class APIRoot(object):
    """WSGI app of one API root.

    :param controller: the pecan root controller of this API root.
    :param versioned_api: a microversion.VersionedAPI.
    :param error_response: ``f(status, message) -> webob.Response``.
    :param unversioned_paths: paths (below the root) answered without
        microversion negotiation, e.g. the version list at ``/``.
    :param body_limits: the requests with another body limit than
        ``[oslo_middleware] max_request_body_size``, see BodySizeLimiter.
    """

    def __init__(self, controller, versioned_api, error_response,
                 unversioned_paths=('', '/'), body_limits=()):
        # The size limit sits inside, so that its 413 is rendered in this
        # root's error format like every other error.
        self.app = BodySizeLimiter(
            wsgi.Pecan(controller, request_cls=wsgi.APIRequest,
                       guess_content_type_from_ext=False,
                       force_canonical=False),
            conf.CONF, larger=body_limits)
        self.versioned_api = versioned_api
        self.error_response = error_response
        self.unversioned_paths = frozenset(unversioned_paths)

    def __call__(self, environ, start_response):
        req = webob.Request(environ)
        version = None
        try:
            if req.path_info in self.unversioned_paths:
                environ[wsgi.API_VERSION_KEY] = self.versioned_api.min_version
            else:
                version = self.versioned_api.negotiate(req.headers)
                environ[wsgi.API_VERSION_KEY] = version
            response = req.get_response(self.app)
            if response.status_int >= 400:
                # Handlers raise their errors; error *responses* are the
                # own answers of pecan (no route, wrong method) or of the
                # size limit (413), HTML or JSON depending on Accept.
                response = self._error(response.status_int,
                                       faults.default_message(
                                           response.status_int),
                                       response)
        except UnicodeDecodeError:
            # The path or query string is not UTF-8 (webob decodes them
            # when first read, in the middleware or a handler).
            response = self.error_response(400, faults.default_message(400))
        except exception.APIVersionNotSupported as exc:
            response = self.error_response(406, exc.format_message())
            for name, value in self.versioned_api.refusal_headers(
                    exc.kwargs['version']):
                response.headers[name] = value
        except exception.NovaMiniException as exc:
            status = faults.status_of(exc)
            if status == 500:
                LOG.exception('Unexpected error in %s %s',
                              req.method, req.path)
                response = self.error_response(500, faults.UNEXPECTED_ERROR)
            else:
                response = (faults.unavailable(exc, self.error_response)
                            or self.error_response(status,
                                                   exc.format_message()))
        except Exception as exc:
            response = faults.unavailable(exc, self.error_response)
            if response is None:
                LOG.exception('Unexpected error in %s %s',
                              req.method, req.path)
                response = self.error_response(500, faults.UNEXPECTED_ERROR)
        if version is not None:
            for name, value in self.versioned_api.response_headers(version):
                response.headers[name] = value
        return response(environ, start_response)

    def _error(self, status, message, original):
        response = self.error_response(status, message)
        if 'Allow' in original.headers:
            response.headers['Allow'] = original.headers['Allow']
        return response
