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

"""The web server of the virtual media images, for the quick start and
the tests: ``nova_mini.wsgi.httpboot:application`` serves the files of
``[deploy] http_root`` (WebOb's static files: GET and HEAD, byte ranges,
Last-Modified and ETag), under gunicorn. No directory listings; files and
directories whose name starts with a dot (the conductor's partial
downloads and lock files) are not served. A production conductor host
can as well serve http_root with nginx or Apache
(doc/source/admin/virtual-media-images.rst).
"""

import os

from webob import exc
from webob import static

from nova_mini import conf
from nova_mini import wsgi


class ImagesApp(object):
    """WSGI app serving the files of ``root``."""

    def __init__(self, root):
        os.makedirs(root, mode=0o755, exist_ok=True)
        self.files = static.DirectoryApp(root, index_page=None)

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if environ.get('REQUEST_METHOD') not in ('GET', 'HEAD'):
            app = exc.HTTPMethodNotAllowed(allow=('GET', 'HEAD'))
        elif (path.strip('/') == '' or
              any(part.startswith('.') for part in path.split('/'))):
            app = exc.HTTPNotFound()
        else:
            app = self.files
        return app(environ, start_response)


def _build_app():
    return ImagesApp(conf.CONF.deploy.http_root)


def init_application():
    return wsgi.init(_build_app)


__getattr__ = wsgi.lazy_application(_build_app)
