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

"""``/compute/v2``: Nova's v2 compatibility root.

Nova serves the v2.1 code below ``/v2`` as the old v2 API did: the
microversion headers of the request are dropped (every request is served
at 2.1), none is sent back (nor named in ``Vary``), and request bodies are
checked against the 2.1 schemas only, with properties a schema does not
know silently left out rather than refused. ``LegacyV2`` does the header
part around the compute root and marks the request
(``microversion.LEGACY_V2_KEY``) for the validation part
(``nova_mini.api.validation``).
"""

from nova_mini.api import microversion

PREFIX = '/v2'

# The request headers dropped (WSGI environ keys) and the response headers
# left out, as Nova's compatibility wrapper does.
_REQUEST_KEYS = ('HTTP_OPENSTACK_API_VERSION',
                 'HTTP_X_OPENSTACK_NOVA_API_VERSION')
_RESPONSE_HEADERS = frozenset(['openstack-api-version',
                               'x-openstack-nova-api-version'])


def is_legacy_path(path):
    """Return whether ``path`` (below /compute) is under the v2 root.

    :param path: the PATH_INFO below the compute root.
    :returns: True for ``/v2`` and ``/v2/...``, not ``/v2.1``.
    """
    return path == PREFIX or path.startswith(PREFIX + '/')


def version_url(req):
    """Return the URL of the version tree a request came through.

    :param req: the webob request.
    :returns: ``<root>/v2`` below the compatibility root, else
        ``<root>/v2.1`` (links of resources point into the same tree, as
        Nova's do).
    """
    segment = 'v2' if req.environ.get(microversion.LEGACY_V2_KEY) else 'v2.1'
    return '%s/%s' % (req.application_url.rstrip('/'), segment)


def _without_versions(headers):
    kept = []
    for name, value in headers:
        lower = name.lower()
        if lower in _RESPONSE_HEADERS:
            continue
        if lower == 'vary':
            words = [w.strip() for w in value.split(',')
                     if w.strip().lower() not in _RESPONSE_HEADERS]
            if not words:
                continue
            value = ', '.join(words)
        kept.append((name, value))
    return kept


class LegacyV2(object):
    """WSGI middleware around the compute root serving ``/v2`` as Nova's
    compatibility root (see the module).

    :param app: the compute root's WSGI application.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if not is_legacy_path(environ.get('PATH_INFO', '')):
            return self.app(environ, start_response)
        environ[microversion.LEGACY_V2_KEY] = True
        for key in _REQUEST_KEYS:
            environ.pop(key, None)

        def legacy_start_response(status, headers, exc_info=None):
            return start_response(status, _without_versions(headers),
                                  exc_info)
        return self.app(environ, legacy_start_response)
