"""WSGI entry point of the compute and bare-metal APIs:
``nova_mini.wsgi.api:application``.
"""

from nova_mini.api import app as _app
from nova_mini import wsgi


def init_application():
    return wsgi.init(_app.build_app)


__getattr__ = wsgi.lazy_application(_app.build_app)
