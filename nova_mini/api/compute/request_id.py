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

"""``X-Compute-Request-ID``: the compute API's own request id header.

Nova answers every compute request with the request id twice, as
``X-Compute-Request-ID`` (its header from before oslo.middleware) and as
``X-OpenStack-Request-ID``; clients still read the first. Placed inside
nova_mini.api.request_id.RequestId (which makes the id and adds the
second header) and outside authentication, so a 401 carries both too. The
bare-metal API keeps Ironic's single header.
"""

from oslo_middleware import request_id

HEADER = 'X-Compute-Request-ID'
PREFIX = '/compute'


class ComputeRequestId(object):
    """Add HEADER to the answers of paths below PREFIX."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        path = environ.get('PATH_INFO', '')
        if not (path == PREFIX or path.startswith(PREFIX + '/')):
            return self.app(environ, start_response)
        req_id = environ.get(request_id.ENV_REQUEST_ID)

        def respond(status, headers, exc_info=None):
            if req_id and not any(name.lower() == HEADER.lower()
                                  for name, _value in headers):
                headers = list(headers) + [(HEADER, req_id)]
            return start_response(status, headers, exc_info)

        return self.app(environ, respond)
