"""WSGI entry point of the metadata service:
``nova_mini.wsgi.metadata:application``.
"""

from nova_mini.metadata import app as _app
from nova_mini import wsgi


def init_application():
    return wsgi.init(_app.build_app)


__getattr__ = wsgi.lazy_application(_app.build_app)
