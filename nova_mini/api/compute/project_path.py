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

"""A project id in compute URLs: ``/v2.1/{project_id}/servers``.

Nova's routes take the project id after the version as well as without it
(optional since 2.18, and what v2 clients' catalogs hold:
``.../v2/%(tenant_id)s``). ``ProjectIdInPath`` drops it when it is the
request's own project, and refuses with Nova's 400 a project id that is
not, so that the resources below see one kind of path.
"""

from nova_mini.api import faults

# The version trees, and the collections directly below them.
_TREES = ('v2', 'v2.1')
COLLECTIONS = frozenset(['flavors', 'servers', 'os-server-groups',
                         'os-quota-sets', 'limits'])


class ProjectIdInPath(object):
    """WSGI middleware around the compute root (see the module).

    :param app: the compute root's WSGI application.
    """

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        parts = path.split('/', 3)      # '', tree, project?, rest
        if len(parts) >= 4 and parts[1] in _TREES and \
                parts[2] not in COLLECTIONS and \
                parts[3].split('/', 1)[0] in COLLECTIONS:
            project_id = environ.get('HTTP_X_PROJECT_ID')
            if parts[2] != project_id:
                response = faults.nova_fault(
                    400, "Malformed request URL: URL's project_id '%s' "
                    "doesn't match Context's project_id '%s'"
                    % (parts[2], project_id))
                return response(environ, start_response)
            environ['PATH_INFO'] = '/%s/%s' % (parts[1], parts[3])
        return self.app(environ, start_response)
