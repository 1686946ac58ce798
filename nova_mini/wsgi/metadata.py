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

"""WSGI entry point of the metadata service:
``nova_mini.wsgi.metadata:application``.
"""

from nova_mini import conf
from nova_mini.metadata import app as _app
from nova_mini.metadata import identity
from nova_mini import wsgi


def _build_app():
    # No nova-mini-metadata master here to have warned already.
    identity.check_config(conf.CONF)
    return _app.build_app()


def init_application():
    return wsgi.init(_build_app)


__getattr__ = wsgi.lazy_application(_build_app)
