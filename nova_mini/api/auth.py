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

"""Authentication middleware and the request context built from it.

With ``[api] auth_strategy = keystone`` keystonemiddleware's auth_token
validates tokens and sets the X-User-Id/X-Project-Id/X-Roles headers (and
OpenStack-System-Scope for a system-scoped token); with ``noauth2``
(development only) ``NoAuth2`` sets the same headers from an
``X-Auth-Token: user:project`` header. Either way the context is built
from those headers in one place,
``nova_mini.api.request_context.context_from_environ``.
"""

from concurrent import futures
import copy
import re
import threading
from urllib import parse

from keystonemiddleware import auth_token
from oslo_log import log as logging
import webob

LOG = logging.getLogger(__name__)

_IDENTITY_HEADERS = ('HTTP_X_USER_ID', 'HTTP_X_USER_NAME', 'HTTP_X_USER',
                     'HTTP_X_PROJECT_ID', 'HTTP_X_PROJECT_NAME',
                     'HTTP_X_TENANT_ID', 'HTTP_X_TENANT', 'HTTP_X_ROLES',
                     'HTTP_X_ROLE', 'HTTP_X_IDENTITY_STATUS',
                     'HTTP_X_SERVICE_ROLES', 'HTTP_X_IS_ADMIN_PROJECT',
                     'HTTP_X_SYSTEM_SCOPE', 'HTTP_OPENSTACK_SYSTEM_SCOPE',
                     'HTTP_X_DOMAIN_ID',
                     'HTTP_X_USER_DOMAIN_ID', 'HTTP_X_PROJECT_DOMAIN_ID')


# NoAuth2's admin is system scoped on the paths of the bare-metal API.
_SYSTEM_SCOPED_PREFIXES = ('/baremetal/', )


# The longest user or project id noauth2 takes: the width of the columns
# that keep them (Keystone's own ids are 64 characters at most).
_MAX_ID_LENGTH = 255


def _plausible_id(value):
    return 0 < len(value) <= _MAX_ID_LENGTH and value.isprintable()


def _unauthorized(environ, start_response):
    # keystonemiddleware's answer to a token it cannot use.
    response = webob.Response(status=401, json_body={'error': {
        'code': 401, 'title': 'Unauthorized',
        'message': 'The request you have made requires authentication.'}})
    return response(environ, start_response)


class NoAuth2(object):
    """Trust ``X-Auth-Token: user:project``; user ``admin`` is an admin.

    The roles are ``admin,member,reader`` for user ``admin`` and
    ``member,reader`` for the others; ``X-Roles`` may narrow them, never
    add one (a reader: ``X-Roles: reader``). On /baremetal user ``admin``
    is also system scoped (``OpenStack-System-Scope: all``), so that it is
    the cloud administrator of Ironic's secure RBAC rules, as a
    system-scoped Keystone token would be; /compute takes project-scoped
    tokens only, as Nova does. A request without a token gets 204 and a
    token to use, as Nova's noauth2 did. For development and tests only.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        asked_roles = environ.get('HTTP_X_ROLES')
        for name in _IDENTITY_HEADERS:
            environ.pop(name, None)
        token = environ.get('HTTP_X_AUTH_TOKEN')
        if not token:
            req = webob.Request(environ)
            user = req.headers.get('X-Auth-User', 'admin')
            project = req.headers.get('X-Auth-Project-Id', 'admin')
            response = webob.Response(status=204, content_type='text/plain')
            response.headers['X-Auth-Token'] = '%s:%s' % (user, project)
            # From the path's own bytes: req.url would decode them, and
            # a path that is not UTF-8 must not be a 500.
            path = parse.quote(environ.get('SCRIPT_NAME', '')
                               + environ.get('PATH_INFO', ''),
                               safe='/', encoding='latin-1')
            response.headers['X-Server-Management-Url'] = (
                req.host_url + path.rstrip('/') + '/' + project)
            return response(environ, start_response)
        user, _sep, project = token.partition(':')
        project = project or user
        if not (_plausible_id(user) and _plausible_id(project)):
            return _unauthorized(environ, start_response)
        roles = 'admin,member,reader' if user == 'admin' else 'member,reader'
        if asked_roles is not None:
            asked = {role.strip() for role in asked_roles.split(',')}
            roles = ','.join(role for role in roles.split(',')
                             if role in asked)
        environ.update({
            'HTTP_X_USER_ID': user, 'HTTP_X_USER_NAME': user,
            'HTTP_X_PROJECT_ID': project, 'HTTP_X_PROJECT_NAME': project,
            'HTTP_X_ROLES': roles, 'HTTP_X_IDENTITY_STATUS': 'Confirmed',
        })
        path = environ.get('PATH_INFO', '') + '/'
        if user == 'admin' and path.startswith(_SYSTEM_SCOPED_PREFIXES):
            environ['HTTP_OPENSTACK_SYSTEM_SCOPE'] = 'all'
        return self.app(environ, start_response)


class PublicPaths(object):
    """Send public paths (version documents, a ramdisk's lookup and
    heartbeat) around authentication.

    A public request is anonymous: the identity headers a client sends
    are dropped, as authentication would drop them, so that nobody gets a
    role by naming it.

    :param public_paths: paths matched exactly.
    :param public_patterns: regular expressions a whole path may match.
    """

    def __init__(self, public_app, protected_app, public_paths,
                 public_patterns=()):
        self.public_app = public_app
        self.protected_app = protected_app
        self.public_paths = frozenset(public_paths)
        self.public_patterns = [re.compile(pattern)
                                for pattern in public_patterns]

    def _public(self, path):
        return path in self.public_paths or any(
            pattern.fullmatch(path) for pattern in self.public_patterns)

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '') or '/'
        if self._public(path):
            for name in _IDENTITY_HEADERS:
                environ.pop(name, None)
            return self.public_app(environ, start_response)
        return self.protected_app(environ, start_response)


class AuthProtocol(auth_token.AuthProtocol):
    """keystonemiddleware's auth_token, asking Keystone once for the
    requests of a worker that bring the same token at the same time.

    NOTE: a token not in the cache yet was validated by every request
    that brought it before the first validation ended: a client's burst
    of N creates with a fresh token was N validations queued at Keystone,
    and behind them the validations of the services the API then calls
    (each Glance sync worker, which serves nothing else while it waits):
    on a loaded machine Glance then answered the burst's image checks
    after ``[glance] timeout``. The requests that find a validation of
    their token under way wait for it and take its answer (a copy); an
    invalid token is invalid for them too; any other failure (Keystone
    unreachable) is not shared: each of them then asks Keystone itself,
    as before.
    """

    def __init__(self, app, conf):
        super(AuthProtocol, self).__init__(app, conf)
        self._validations = {}
        self._validations_lock = threading.Lock()

    def fetch_token(self, token, **kwargs):
        key = (token, tuple(sorted(kwargs.items())))
        with self._validations_lock:
            validation = self._validations.get(key)
            first = validation is None
            if first:
                validation = self._validations[key] = futures.Future()
        if first:
            try:
                data = super(AuthProtocol, self).fetch_token(token, **kwargs)
            except BaseException as exc:
                validation.set_exception(exc)
                raise
            else:
                validation.set_result(data)
                return data
            finally:
                with self._validations_lock:
                    self._validations.pop(key, None)
        try:
            data = copy.deepcopy(validation.result())
        except auth_token.InvalidToken as exc:
            raise auth_token.InvalidToken(*exc.args)
        except Exception:
            return super(AuthProtocol, self).fetch_token(token, **kwargs)
        # Into the cache this request's thread may take next.
        self._token_cache.set(token, data)
        return data


def wrap(app, conf, public_paths, public_patterns=()):
    """``app`` behind the configured authentication, but for public paths
    (see PublicPaths).
    """
    if conf.api.auth_strategy == 'noauth2':
        protected = NoAuth2(app)
    else:
        protected = AuthProtocol(app, {'oslo_config_config': conf})
    return PublicPaths(app, protected, public_paths, public_patterns)
