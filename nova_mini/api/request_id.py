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

"""Every API request's id, as oslo.middleware's RequestId makes it, in
plain WSGI.

The id (``req-<uuid>``, oslo.context's) goes in the environ under
oslo.middleware's key, where the request context finds it, and in the
``x-openstack-request-id`` header of the answer (unless the application
set that header itself). A caller's ``X-OpenStack-Request-ID`` in the
same format is kept as the global request id. oslo.middleware's
middleware does the same through webob: a request object, the answer
rebuilt as a response object and served again, about 6 % of an API
worker's CPU on a small write (the extra-spec POST).
"""

import re

from oslo_context import context
from oslo_middleware import request_id as oslo_request_id
import webob.exc

ENV_REQUEST_ID = oslo_request_id.ENV_REQUEST_ID
GLOBAL_REQ_ID = oslo_request_id.GLOBAL_REQ_ID
HEADER = oslo_request_id.HTTP_RESP_HEADER_REQUEST_ID
_INBOUND = 'HTTP_' + oslo_request_id.INBOUND_HEADER.upper().replace('-', '_')
_GLOBAL_ID = re.compile(oslo_request_id.ID_FORMAT)


class RequestId(object):
    """Give each request an id and its answer the header."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        inbound = environ.get(_INBOUND, '')
        if _GLOBAL_ID.match(inbound):
            environ[GLOBAL_REQ_ID] = inbound
        req_id = context.generate_request_id()
        environ[ENV_REQUEST_ID] = req_id

        def respond(status, headers, exc_info=None):
            if not any(name.lower() == HEADER for name, _value in headers):
                headers = list(headers) + [(HEADER, req_id)]
            return start_response(status, headers, exc_info)

        try:
            return self.app(environ, respond)
        except webob.exc.HTTPException as exc:
            # As oslo.middleware's (webob's wsgify): served as it is.
            return exc(environ, start_response)
