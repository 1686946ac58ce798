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

"""How a pecan controller method becomes an API handler.

``expose`` is the only decorator that publishes a method. The method reads
the request from ``pecan.request`` (with ``api_version`` and ``context``
set by the middleware), takes exactly its URL arguments, and returns the
response body (a dict, or None for an empty body).
"""

import functools
import inspect

from oslo_serialization import jsonutils
import pecan
import webob

from nova_mini.api import json_body
from nova_mini.api import microversion
# Imported for its effect: pecan's argspec look-ups cached.
from nova_mini.api import pecan_speedups  # noqa: F401
from nova_mini.api import request_context
from nova_mini import exception


def json_response(body, status=200, headers=None):
    """Return a JSON response.

    An empty one (body None) keeps the JSON type too, as Nova's do,
    except for 204.

    :param body: what is encoded (None: no body).
    :param status: the HTTP status.
    :param headers: more headers, ``[(name, value)]``.
    :returns: a webob Response.
    """
    response = webob.Response(status=status, headerlist=headers or [])
    if status != 204:
        response.content_type = 'application/json'
        response.charset = None
    if body is not None:
        response.body = jsonutils.dump_as_bytes(body)
    return response


class Pecan(pecan.Pecan):
    """pecan, minus its habit of turning empty 200 answers into 204:
    handlers choose their status (Nova answers some deletes 200), and
    minus content negotiation: every answer is JSON whatever the Accept
    header says (pecan would answer 406 to ``Accept: application/xml``).
    """

    def _handle_empty_response_body(self, state):
        pass

    def find_controller(self, state):
        state.request.pecan['content_type'] = 'application/json'
        return super().find_controller(state)


def expose(status=200):
    """Publish a controller method.

    :param status: its success status.
    :returns: the decorator; the handler it makes takes exactly its URL
        arguments (others raise nova_mini.exception.ResourceNotFound) and
        answers its result as JSON (a webob Response as it is).
    """
    def decorator(func):
        positional = [
            p for p in inspect.signature(func).parameters.values()
            if p.kind == p.POSITIONAL_OR_KEYWORD][1:]   # minus self
        required = [p for p in positional if p.default is p.empty]

        @pecan.expose(content_type='application/json')
        @functools.wraps(func)
        def wrapper(self, *args, **_query):
            # pecan routes extra path segments here too; a handler takes
            # exactly its URL arguments (optional ones for a URL with or
            # without them), anything else is not a resource.
            if not len(required) <= len(args) <= len(positional):
                raise exception.ResourceNotFound()
            result = func(self, *args)
            if isinstance(result, webob.Response):
                return result
            return json_response(result, status=status)
        wrapper.exposed_status = status
        return wrapper
    return decorator


API_VERSION_KEY = 'nova_mini.api_version'


class APIRequest(microversion.VersionedRequest, webob.Request):
    """The request handlers see, with what the middleware learned about it.

    A webob request rather than pecan's: pecan's wraps every attribute
    access (about a hundred per request) only to turn a UnicodeDecodeError
    (bytes that are not UTF-8 in the path or query string) into a 400;
    ``api_root.APIRoot`` answers those 400 itself.
    """

    @property
    def api_version(self):
        """The APIVersion served (compare it only with ``since``)."""
        return self.environ[API_VERSION_KEY]

    @property
    def ctxt(self):
        return request_context.context_from_environ(self.environ)

    @property
    def json(self):
        """The parsed JSON body (parsed once); 400 if it is not JSON, or
        JSON refused by nova_mini.api.json_body (NaN, too deep, NUL...).
        """
        cache = self.environ.get('nova_mini.json_body', self)
        if cache is self:
            body = self.body    # read once: webob reads it on each access
            if not body:
                cache = None
            else:
                try:
                    cache = json_body.loads(body)
                except json_body.RefusedJSON as exc:
                    raise exception.ValidationError(detail=str(exc))
                except json_body.InvalidJSON:
                    raise exception.MalformedRequestBody()
            self.environ['nova_mini.json_body'] = cache
        return cache
