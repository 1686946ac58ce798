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

"""WSGI entry points for uwsgi or mod_wsgi deployments.

Each module exposes ``application``; the config file comes from
``$NOVA_MINI_CONFIG_FILE`` (default /etc/nova_mini/nova_mini.conf).
"""

import os

from nova_mini import config


def init(build_app):
    config_file = os.environ.get('NOVA_MINI_CONFIG_FILE',
                                 '/etc/nova_mini/nova_mini.conf')
    files = [config_file] if os.path.exists(config_file) else []
    config.parse_args(['nova-mini-wsgi'], default_config_files=files)
    return build_app()


def lazy_application(build_app):
    """A module ``__getattr__`` that builds ``application`` on first use.

    Building at first access rather than at import means a server that
    imports the module before forking shares no database connection
    between its workers.
    """
    built = []

    def __getattr__(name):
        if name != 'application':
            raise AttributeError(name)
        if not built:
            built.append(init(build_app))
        return built[0]
    return __getattr__
