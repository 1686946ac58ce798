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

"""The WSGI application of nova-mini-api: every API root behind the
shared middleware (proxy headers, request ids, body size, auth).

The middleware is what Nova's api-paste.ini has by default: request ids
(``X-OpenStack-Request-ID``), the body size limit (inside each root, see
api_root.py), authentication (keystonemiddleware's auth_token for
``[api] auth_strategy = keystone``), and the proxy-header parsing of
``[oslo_middleware] enable_proxy_headers_parsing``, which is only put in
the pipeline when that option is on (off, it passes every request through
unchanged, at the cost of a webob request and a signature inspection).
"""

from oslo_middleware import http_proxy_to_wsgi
from oslo_middleware import opts as middleware_opts

from nova_mini.api import api_root
from nova_mini.api import auth
from nova_mini.api.baremetal import node_states as baremetal_node_states
from nova_mini.api.baremetal import root as baremetal_root
from nova_mini.api.baremetal import versions as baremetal_versions
from nova_mini.api.compute import legacy_v2 as compute_legacy_v2
from nova_mini.api.compute import project_path as compute_project_path
from nova_mini.api.compute import request_id as compute_request_id
from nova_mini.api.compute import root as compute_root
from nova_mini.api.compute import versions as compute_versions
from nova_mini.api import faults
from nova_mini.api import request_id as api_request_id
from nova_mini import conf
from nova_mini import rpc

CONF = conf.CONF

# Paths answered without a token: the version documents of each root.
PUBLIC_PATHS = ('/compute', '/compute/', '/compute/v2', '/compute/v2/',
                '/compute/v2.1', '/compute/v2.1/',
                '/baremetal', '/baremetal/', '/baremetal/v1',
                '/baremetal/v1/')
# And those a deploy or rescue ramdisk calls, as Ironic's public routes
# (a heartbeat's node named by uuid, or by a name of lower-case letters,
# digits and hyphens).
PUBLIC_PATTERNS = (r'/baremetal/v1/lookup/?',
                   r'/baremetal/v1/heartbeat/[a-z0-9\-]+/?')


class PathDispatcher(object):
    """Send each request to the API root its path starts with."""

    def __init__(self, roots):
        self.roots = roots

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        for prefix, app in self.roots.items():
            if path == prefix or path.startswith(prefix + '/'):
                environ['SCRIPT_NAME'] = environ.get('SCRIPT_NAME', '') + prefix
                environ['PATH_INFO'] = path[len(prefix):]
                return app(environ, start_response)
        response = faults.nova_fault(404, 'The resource could not be found.')
        return response(environ, start_response)


class RefuseNulBytes(object):
    """Answer 400 to a path or query string holding a NUL character.

    No resource name or parameter holds one, and PostgreSQL refuses it in
    any text (a 500 from deep inside a query); refused here, once for
    every handler, in the root's error format.

    :param app: the API root.
    :param error_response: ``f(status, message) -> webob.Response``.
    """

    MESSAGE = ('The request path or query string holds a NUL character '
               '(%00), which no resource name or parameter accepts.')

    def __init__(self, app, error_response):
        self.app = app
        self.error_response = error_response

    def __call__(self, environ, start_response):
        # PATH_INFO is decoded by the server; QUERY_STRING is not.
        query = environ.get('QUERY_STRING', '')
        if ('\x00' in environ.get('PATH_INFO', '') or '%00' in query
                or '\x00' in query):
            response = self.error_response(400, self.MESSAGE)
            return response(environ, start_response)
        return self.app(environ, start_response)


def build_app(conf=CONF):
    """Build the API WSGI application (in each worker process): both roots
    behind authentication, request ids and, if enabled, the parsing of
    proxy headers. The process has pointed the database facade at
    ``[database]`` before (nova_mini.cmd.api, nova_mini.wsgi.api): the
    handlers reach the database through the objects only.

    :param conf: the configuration.
    :returns: the WSGI application.
    """
    # transport_url and rpc_response_timeout: the servers API casts builds.
    rpc.register_opts(conf)
    roots = PathDispatcher({
        # /compute/v2 is Nova's v2 compatibility root (legacy_v2.py); a
        # project id after the version is dropped (project_path.py).
        '/compute': RefuseNulBytes(compute_project_path.ProjectIdInPath(
            compute_legacy_v2.LegacyV2(api_root.APIRoot(
                compute_root.ComputeRootController(),
                compute_versions.COMPUTE_API, faults.nova_fault))),
            faults.nova_fault),
        # Every path of /baremetal negotiates, the version documents too.
        '/baremetal': RefuseNulBytes(api_root.APIRoot(
            baremetal_root.BaremetalRootController(),
            baremetal_versions.BAREMETAL_API, faults.ironic_fault,
            unversioned_paths=(),
            body_limits=(baremetal_node_states.PROVISION_BODY_LIMIT,)),
            faults.ironic_fault),
    })
    app = auth.wrap(roots, conf, PUBLIC_PATHS, PUBLIC_PATTERNS)
    app = compute_request_id.ComputeRequestId(app)
    app = api_request_id.RequestId(app)
    for group, opts in middleware_opts.list_opts_http_proxy_to_wsgi():
        conf.register_opts(opts, group=group)
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        app = http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    return app
