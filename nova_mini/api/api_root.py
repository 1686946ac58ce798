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
handlers only raise domain exceptions.
"""

from oslo_log import log as logging
from oslo_middleware import sizelimit
import webob

from nova_mini.api import faults
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini import exception

LOG = logging.getLogger(__name__)


class APIRoot(object):
    """WSGI app of one API root.

    :param controller: the pecan root controller of this API root.
    :param versioned_api: a microversion.VersionedAPI.
    :param error_response: ``f(status, message) -> webob.Response``.
    :param unversioned_paths: paths (below the root) answered without
        microversion negotiation, e.g. the version list at ``/``.
    """

    def __init__(self, controller, versioned_api, error_response,
                 unversioned_paths=('', '/')):
        # The size limit sits inside, so that its 413 is rendered in this
        # root's error format like every other error.
        self.app = sizelimit.RequestBodySizeLimiter(
            wsgi.Pecan(controller, request_cls=wsgi.APIRequest,
                       guess_content_type_from_ext=False,
                       force_canonical=False),
            conf.CONF)
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
