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

"""Which paths skip authentication (the version documents, a ramdisk's
lookup and heartbeat, as Ironic's public routes), and that a public
request is anonymous whatever identity headers it carries.
"""

import pytest

from nova_mini.api import app
from nova_mini.api import auth


def _router():
    seen = {}

    def public(environ, start_response):
        seen['app'] = 'public'
        seen['environ'] = environ
        return []

    def protected(environ, start_response):
        seen['app'] = 'protected'
        return []

    return auth.PublicPaths(public, protected, app.PUBLIC_PATHS,
                            app.PUBLIC_PATTERNS), seen


@pytest.mark.parametrize('path, where', [
    ('/baremetal/v1', 'public'),
    ('/baremetal/v1/lookup', 'public'),
    ('/baremetal/v1/lookup/', 'public'),
    ('/baremetal/v1/heartbeat/node-1', 'public'),
    ('/baremetal/v1/heartbeat/0d9d8e5e-3a35-4c4d-9fd5-0c7d3a3a1f00',
     'public'),
    # Ironic's pattern: lower-case names only; nothing below.
    ('/baremetal/v1/heartbeat/Node_1', 'protected'),
    ('/baremetal/v1/heartbeat/node-1/x', 'protected'),
    ('/baremetal/v1/heartbeat', 'protected'),
    ('/baremetal/v1/lookupx', 'protected'),
    ('/baremetal/v1/nodes', 'protected'),
    ('/baremetal/lookup', 'protected'),
])
def test_public_paths(path, where):
    router, seen = _router()
    router({'PATH_INFO': path}, None)
    assert seen['app'] == where


def test_public_requests_are_anonymous():
    router, seen = _router()
    router({'PATH_INFO': '/baremetal/v1/lookup', 'HTTP_X_ROLES': 'admin',
            'HTTP_X_PROJECT_ID': 'admin', 'HTTP_X_USER_ID': 'admin',
            'HTTP_X_OPENSTACK_IRONIC_API_VERSION': '1.62'}, None)
    environ = seen['environ']
    for name in ('HTTP_X_ROLES', 'HTTP_X_PROJECT_ID', 'HTTP_X_USER_ID'):
        assert name not in environ
    assert environ['HTTP_X_OPENSTACK_IRONIC_API_VERSION'] == '1.62'
