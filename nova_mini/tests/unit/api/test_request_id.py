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

"""nova_mini.api.request_id.RequestId answers as oslo.middleware's
RequestId does (the two side by side on the same applications), in plain
WSGI."""

import re

from oslo_middleware import request_id as oslo_request_id
import pytest
import webob
import webob.exc

from nova_mini.api import app as api_app
from nova_mini.api import request_id

ID = re.compile(r'^req-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-'
                r'[0-9a-f]{12}$')
GLOBAL = 'req-0123abcd-0123-4567-89ab-0123456789ab'


def _app(headers=(), raise_exc=None):
    """A WSGI app that records the ids it was given."""
    seen = []

    def app(environ, start_response):
        seen.append((environ.get(request_id.ENV_REQUEST_ID),
                     environ.get(request_id.GLOBAL_REQ_ID)))
        if raise_exc is not None:
            raise raise_exc
        start_response('201 Created', [('Content-Type', 'text/plain')]
                       + list(headers))
        return [b'body']
    return app, seen


def _call(middleware, app, inbound=None):
    req = webob.Request.blank('/compute/v2.1/flavors')
    if inbound is not None:
        req.headers['X-OpenStack-Request-ID'] = inbound
    return req.get_response(middleware(app))


@pytest.mark.parametrize('inbound', [None, GLOBAL, 'not-an-id',
                                     GLOBAL.upper(), GLOBAL + 'x'],
                         ids=['none', 'valid', 'bogus', 'upper', 'longer'])
def test_ids_and_header_as_oslo_middleware(inbound):
    answers = []
    for middleware in (request_id.RequestId, oslo_request_id.RequestId):
        app, seen = _app()
        resp = _call(middleware, app, inbound)
        [(req_id, global_id)] = seen
        assert ID.match(req_id)
        assert resp.headers.getall('x-openstack-request-id') == [req_id]
        answers.append((resp.status, resp.body, global_id,
                        [(k.lower(), v) for k, v in resp.headerlist
                         if k.lower() != 'x-openstack-request-id']))
    assert answers[0] == answers[1]
    assert answers[0][2] == (GLOBAL if inbound == GLOBAL else None)


def test_a_header_set_by_the_app_is_kept():
    app, seen = _app(headers=[('X-OpenStack-Request-ID', 'mine')])
    resp = _call(request_id.RequestId, app)
    assert resp.headers.getall('x-openstack-request-id') == ['mine']


def test_an_http_exception_is_served_as_oslo_middleware_serves_it():
    answers = []
    for middleware in (request_id.RequestId, oslo_request_id.RequestId):
        app, _seen = _app(raise_exc=webob.exc.HTTPForbidden())
        resp = _call(middleware, app)
        answers.append((resp.status, 'x-openstack-request-id' in resp.headers,
                        resp.body))
    assert answers[0] == answers[1]
    assert answers[0][0] == '403 Forbidden'


def test_the_api_uses_it():
    # The outermost layer of nova-mini-api (proxy header parsing aside).
    assert isinstance(api_app.build_app(), request_id.RequestId)
