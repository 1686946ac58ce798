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
