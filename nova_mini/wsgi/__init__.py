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
