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
