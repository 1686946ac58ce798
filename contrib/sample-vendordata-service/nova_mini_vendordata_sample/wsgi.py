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

"""WSGI entry point of the sample vendordata service, for uwsgi or
mod_wsgi: ``nova_mini_vendordata_sample.wsgi:application`` (or the script
``nova-mini-vendordata-sample-wsgi``).

The config file comes from ``$NOVA_MINI_VENDORDATA_SAMPLE_CONFIG``
(default /etc/nova_mini/vendordata-sample.conf).
"""

import os

from nova_mini_vendordata_sample import app
from nova_mini_vendordata_sample import cmd

CONFIG_ENV = 'NOVA_MINI_VENDORDATA_SAMPLE_CONFIG'


def init_application():
    path = os.environ.get(CONFIG_ENV, cmd.DEFAULT_CONFIG_FILE)
    argv = [cmd.NAME + '-wsgi']
    if os.path.exists(path):
        argv += ['--config-file', path]
    return app.build_app(cmd.parse_args(argv))


_built = []


def __getattr__(name):
    # Built on first access rather than at import, so that a server that
    # imports the module before forking builds one per worker.
    if name != 'application':
        raise AttributeError(name)
    if not _built:
        _built.append(init_application())
    return _built[0]
