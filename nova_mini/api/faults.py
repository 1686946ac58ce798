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

"""Errors as each API root shows them: status codes and body formats.

Domain exceptions (nova_mini.exception) carry no HTTP; this module is the
one place that maps them to a status and renders the anchor API's format.
"""

from oslo_serialization import jsonutils
import webob

from oslo_db import exception as db_exc

from nova_mini.api import wsgi
from nova_mini import exception

# Most specific first: the first class an exception is an instance of wins.
_STATUS = (
    (exception.APIVersionNotSupported, 406),
    (exception.NotAcceptable, 406),
    (exception.MethodNotAllowed, 405),
    (exception.PayloadTooLarge, 413),
    (exception.UnsupportedMediaType, 415),
    (exception.Invalid, 400),
    (exception.Forbidden, 403),
    (exception.NotFound, 404),
    (exception.Conflict, 409),
    (exception.DatabaseBusy, 503),
    (exception.ServiceUnavailable, 503),
)

# The seconds a client is told to wait (Retry-After) after a 503 for a
# database that could not be reached at all.
DATABASE_DOWN_RETRY_AFTER = 5
DATABASE_DOWN = ('The database cannot be reached: nothing was changed. '
                 'Retry the request in %d seconds.'
                 % DATABASE_DOWN_RETRY_AFTER)

# Nova's names for the fault in the body, by status.
_NOVA_FAULT_NAMES = {
    400: 'badRequest',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'itemNotFound',
    405: 'badMethod',
    409: 'conflictingRequest',
    413: 'overLimit',
    415: 'badMediaType',
    429: 'overLimit',
    501: 'notImplemented',
    503: 'serviceUnavailable',
}

UNEXPECTED_ERROR = ('Unexpected API Error. Please report this at the '
                    'nova_mini issue tracker and attach the nova_mini API '
                    'log if possible.')


def status_of(exc):
    """Return the HTTP status of a domain exception (500 if unmapped).

    :param exc: the exception.
    :returns: the status code.
    """
    for cls, status in _STATUS:
        if isinstance(exc, cls):
            return status
    return 500


def unavailable(exc, error_response):
    """Return the 503 answer for a busy or unreachable database or
    another unavailable service, or None when ``exc`` is none of them.

    A write that waited longer than ``[database] write_wait_timeout``
    raises ``DatabaseBusy``; a read that found the database gone raises
    oslo.db's ``DBConnectionError``. Both are answered ``503`` with a
    ``Retry-After`` header and a message saying to retry, never ``500``.
    So is a ``ServiceUnavailable`` (the message broker or the schedulers
    behind it).

    :param exc: the exception a handler raised.
    :param error_response: the API root's ``(status, message)`` renderer.
    :returns: a webob Response, or None.
    """
    if isinstance(exc, (exception.DatabaseBusy,
                        exception.ServiceUnavailable)):
        response = error_response(503, exc.format_message())
        response.headers['Retry-After'] = str(exc.retry_after)
        return response
    if isinstance(exc, db_exc.DBConnectionError):
        response = error_response(503, DATABASE_DOWN)
        response.headers['Retry-After'] = str(DATABASE_DOWN_RETRY_AFTER)
        return response
    return None


def default_message(status):
    """Return HTTP's default explanation of ``status`` (webob's)."""
    return webob.exc.status_map.get(status, webob.exc.HTTPServerError)\
        .explanation


def nova_fault(status, message):
    """Return a response in Nova's fault format.

    :param status: the HTTP status.
    :param message: the fault's message.
    :returns: a webob Response.
    """
    name = _NOVA_FAULT_NAMES.get(status, 'computeFault')
    response = wsgi.json_response(
        {name: {'code': status, 'message': message}}, status=status)
    response.content_type = 'application/json'
    response.charset = 'UTF-8'
    return response


def ironic_fault(status, message):
    """Return a response in Ironic's error format.

    NOTE: ``error_message`` holds a JSON *string* (faultstring, faultcode,
    debuginfo), encoded twice, as Ironic's does. A plain message would do
    for python-ironicclient, but openstacksdk then loses it (it shows the
    bare reason phrase), and an object breaks python-ironicclient, which
    json-decodes the value.

    :param status: the HTTP status.
    :param message: the error's message.
    :returns: a webob Response.
    """
    fault = {'faultstring': message,
             'faultcode': 'Client' if status < 500 else 'Server',
             'debuginfo': None}
    return wsgi.json_response(
        {'error_message': jsonutils.dumps(fault)}, status=status)
