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

"""The WSGI application of the sample vendordata service.

    POST /              the vendordata of the instance described in the
                        body (JSON), for callers with an allowed role
    GET  /healthcheck   200 "OK", without authentication (load balancers,
                        the test harness)

keystonemiddleware's ``auth_token`` validates the caller's token and sets
the identity headers (``X-Identity-Status``, ``X-Roles``, ``X-User-Name``
...); ``VendordataApp`` trusts only those, so it can also be composed
without the middleware, as its tests do, as long as something sets them.

Errors are JSON in the shape auth_token uses for its own 401s:
``{"error": {"code": 403, "title": "Forbidden", "message": "..."}}``.

Answers carry ``Cache-Control: max-age=[vendordata_sample] cache_max_age``
and a strong ``ETag`` (a digest of the body). A request whose
``If-None-Match`` names the current ETag gets 304 and no body. HTTP
reserves 304 for GET and HEAD; vendordata targets answer it to the POST
because that POST is a read (a lookup keyed by its body), which is how the
metadata service revalidates what it cached.
"""

import hashlib
import json
import time

import jsonschema
from keystonemiddleware import auth_token
from oslo_log import log as logging
from oslo_middleware import request_id
import webob
import webob.dec

from nova_mini.api import json_body
from nova_mini_vendordata_sample import conf as sample_conf
from nova_mini_vendordata_sample import document

LOG = logging.getLogger(__name__)

HEALTHCHECK = '/healthcheck'

# Identity headers a client must never be able to set itself.
_IDENTITY_HEADERS = ('HTTP_X_IDENTITY_STATUS', 'HTTP_X_ROLES', 'HTTP_X_ROLE',
                     'HTTP_X_USER_ID', 'HTTP_X_USER_NAME', 'HTTP_X_USER',
                     'HTTP_X_PROJECT_ID', 'HTTP_X_PROJECT_NAME',
                     'HTTP_X_TENANT_ID', 'HTTP_X_TENANT',
                     'HTTP_X_SERVICE_ROLES')


def json_error(status, message, **headers):
    """A JSON error response (auth_token's shape)."""
    response = webob.Response(status=status, headers=headers,
                              charset='UTF-8')
    response.content_type = 'application/json'
    response.json_body = {'error': {'code': response.status_code,
                                    'title': response.status.split(' ', 1)[1],
                                    'message': message}}
    return response


def roles_of(environ):
    """The caller's role names (lower case), from auth_token's X-Roles."""
    header = environ.get('HTTP_X_ROLES', '')
    return {role.strip().lower() for role in header.split(',')
            if role.strip()}


def etag_of(body):
    return hashlib.sha256(body).hexdigest()[:32]


class VendordataApp(object):
    """POST / of the sample: identity, roles, body, document, caching."""

    def __init__(self, conf):
        self.conf = conf
        self.options = conf.vendordata_sample
        self.validator = jsonschema.Draft4Validator(document.REQUEST_SCHEMA)

    @webob.dec.wsgify
    def __call__(self, req):
        if req.environ.get('HTTP_X_IDENTITY_STATUS') != 'Confirmed':
            return json_error(401, 'The request you have made requires '
                                   'authentication.')
        allowed = {role.lower() for role in self.options.allowed_roles}
        if not roles_of(req.environ) & allowed:
            return json_error(403, 'Reading vendordata requires one of the '
                                   'roles: %s.' % ', '.join(
                                       sorted(self.options.allowed_roles)))
        if req.path_info not in ('', '/'):
            return json_error(404, 'The resource could not be found.')
        if req.method != 'POST':
            return json_error(405, 'Only POST is supported.', Allow='POST')
        instance, error = self._instance(req)
        if error is not None:
            return error

        if self.options.response_delay:
            time.sleep(self.options.response_delay)
        body = json.dumps(document.describe(self.conf, instance),
                          sort_keys=True, separators=(',', ':')).encode()
        etag = etag_of(body)
        if etag in req.if_none_match:
            response = webob.Response(status=304)
        else:
            response = webob.Response(body=body, charset='UTF-8',
                                      content_type='application/json')
        response.etag = etag
        response.cache_control = 'max-age=%d' % self.options.cache_max_age
        LOG.info('Vendordata of instance %s (project %s) for %s: %d',
                 instance['instance-id'], instance['project-id'],
                 req.environ.get('HTTP_X_USER_NAME', '?'),
                 response.status_code)
        return response

    def _instance(self, req):
        """(the validated body, None) or (None, an error response)."""
        limit = self.options.max_request_body
        if req.content_length is not None and req.content_length > limit:
            return None, json_error(413, 'The request body is larger than '
                                         '%d bytes.' % limit)
        raw = req.body_file.read(limit + 1)
        if len(raw) > limit:
            return None, json_error(413, 'The request body is larger than '
                                         '%d bytes.' % limit)
        try:
            instance = json_body.loads(raw)
        except json_body.RefusedJSON as exc:
            return None, json_error(400, str(exc))
        except json_body.InvalidJSON:
            return None, json_error(400, 'The request body is not JSON.')
        if not isinstance(instance, dict):
            return None, json_error(400, 'The request body must be a JSON '
                                         'object describing an instance.')
        error = jsonschema.exceptions.best_match(
            self.validator.iter_errors(instance))
        if error is not None:
            where = '/'.join(str(p) for p in error.absolute_path)
            return None, json_error(400, 'Invalid request body%s: %s' % (
                ' at %s' % where if where else '', error.message))
        return instance, None


class NoAuth(object):
    """``auth_strategy = noauth``: every caller counts as an authenticated
    user holding the allowed roles. For tests and benchmarks only.
    """

    def __init__(self, app, roles):
        self.app = app
        self.roles = ','.join(roles)

    def __call__(self, environ, start_response):
        for name in _IDENTITY_HEADERS:
            environ.pop(name, None)
        environ.update({'HTTP_X_IDENTITY_STATUS': 'Confirmed',
                        'HTTP_X_USER_NAME': 'noauth',
                        'HTTP_X_ROLES': self.roles})
        return self.app(environ, start_response)


class HealthcheckFirst(object):
    """Answer GET /healthcheck before authentication; the rest goes on."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if (environ.get('PATH_INFO') == HEALTHCHECK
                and environ.get('REQUEST_METHOD') in ('GET', 'HEAD')):
            response = webob.Response(text='OK', content_type='text/plain')
            return response(environ, start_response)
        return self.app(environ, start_response)


def build_app(conf):
    """The whole service: request ids, health check, authentication,
    ``VendordataApp``.
    """
    app = VendordataApp(conf)
    if conf.vendordata_sample.auth_strategy == sample_conf.NOAUTH:
        app = NoAuth(app, conf.vendordata_sample.allowed_roles)
    else:
        app = auth_token.AuthProtocol(app, {'oslo_config_config': conf})
    return request_id.RequestId(HealthcheckFirst(app))
