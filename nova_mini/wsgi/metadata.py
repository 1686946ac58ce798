"""WSGI entry point of the metadata service."""

from nova_mini.metadata import app as _app
from nova_mini import wsgi


def init_application():
    return wsgi.init(_app.build_app)


application = None


def __getattr__(name):
    # Build the application on first access, not at import: WSGI servers
    # read ``application`` after forking their workers.
    global application
    if name == 'application':
        if application is None:
            application = init_application()
        return application
    raise AttributeError(name)
