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

"""The provision request's own body limit, Ironic's ``[api]
max_json_body_size_provision``: a config drive larger than ``[oslo_middleware]
max_request_body_size`` is taken and stored (read back from the node's row,
on each database backend); a body over the provision limit is 413 in
Ironic's format, read no further than the limit (not at all with a
Content-Length over it), and stores nothing; every other request keeps the
global limit; the JSON nesting bound still applies.
"""

import base64
import gzip
import io
import json
import os

import pytest
import webob
import webtest

from nova_mini import conf as nm_conf
from nova_mini.configdrive import iso
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65',
           'OpenStack-API-Version': 'compute 2.1',
           'Content-Type': 'application/json'}
PROVISION = '/baremetal/v1/nodes/n/states/provision'
KiB = 1024
MiB = 1024 * KiB
GLOBAL_LIMIT = 114688       # [oslo_middleware] max_request_body_size
# webob reads a body without Content-Length 64 KiB at a time.
READ_PIECE = 65535


def _drive(image_size):
    """(image, its gzip + base64 text): random bytes, which gzip does not
    shrink, so the text is 4/3 of the image.
    """
    image = os.urandom(image_size)
    return image, base64.b64encode(gzip.compress(image, mtime=0)).decode()


def _body(value, size=None):
    """``value`` as JSON, padded with trailing white space to ``size``
    bytes.
    """
    body = json.dumps(value).encode()
    if size is not None:
        assert len(body) <= size
        body += b' ' * (size - len(body))
    return body


class Endless(io.RawIOBase):
    """A request body that never ends: ``head``, then ``{fill}`` bytes
    forever; counts what was read of it, and fails a test that reads more
    than ``STOP`` bytes of it (rather than filling the memory).
    """

    STOP = 256 * MiB

    def __init__(self, head=b'{"target": "active", "configdrive": "',
                 fill=b'A'):
        self.head = head
        self.fill = fill
        self.read_bytes = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        size = len(buffer)
        if self.read_bytes + size > self.STOP:
            raise AssertionError('read past %d bytes' % self.STOP)
        data = (self.head + self.fill * size)[:size] \
            if self.read_bytes == 0 else self.fill * size
        buffer[:size] = data
        self.read_bytes += size
        return size


def _send(app, method, path, body, content_length=True):
    """Send ``body`` (bytes, or an Endless) to the whole API app, with a
    Content-Length or, as a server gives a chunked body, without one.
    """
    stream = body if isinstance(body, Endless) else io.BytesIO(body)
    environ = webob.Request.blank(path, method=method,
                                  headers=HEADERS).environ
    environ['wsgi.input'] = stream
    if content_length:
        environ['CONTENT_LENGTH'] = str(
            len(body) if isinstance(body, bytes) else 2 ** 40)
    else:
        environ.pop('CONTENT_LENGTH', None)
        environ['wsgi.input_terminated'] = True
    return webob.Request(environ).get_response(app)


def _ironic_error(response, status):
    assert response.status_int == status, response.text
    fault = json.loads(response.json['error_message'])
    assert fault['faultcode'] == 'Client'
    return fault['faultstring']


def _make_node():
    """Node ``n``, available; return a reader of its stored row."""
    admin = nm_context.get_admin_context()
    builders.create_node(admin, 'n', provision_state='available',
                         power_state='power off',
                         instance_info={'image_source': 'img'})
    return lambda: objects.Node.get_by_name(admin, 'n')


def _unchanged(node):
    assert (node.provision_state, node.instance_info) == (
        'available', {'image_source': 'img'})


@pytest.fixture
def fixture(api_fixture_factory):
    return api_fixture_factory()


@pytest.fixture
def stored(fixture):
    return _make_node()


def test_the_default_is_ironics():
    assert nm_conf.CONF.api.max_json_body_size_provision == 64 * KiB


def test_a_1_mib_drive_is_stored(api_fixture_factory, backend):
    fixture = api_fixture_factory(backend=backend)
    stored = _make_node()
    image, text = _drive(MiB * 3 // 4)
    assert len(text) > MiB
    response = webtest.TestApp(fixture.app).put(
        PROVISION, _body({'target': 'active', 'configdrive': text}),
        headers=HEADERS)
    assert response.status_int == 202
    node = stored()
    assert node.provision_state == 'active'
    assert node.instance_info['configdrive'] == text
    assert iso.decode(node.instance_info['configdrive']) == image


@pytest.mark.parametrize('content_length', [True, False],
                         ids=['content-length', 'chunked'])
def test_body_at_and_over_the_provision_limit(fixture, stored,
                                              content_length):
    fixture.conf_fixture.config(max_json_body_size_provision=KiB,
                                group='api')
    image, text = _drive(700 * KiB)
    value = {'target': 'active', 'configdrive': text}
    response = _send(fixture.app, 'PUT', PROVISION, _body(value, MiB + 1),
                     content_length)
    assert _ironic_error(response, 413) == (
        'The body of your request was too large for this server.')
    assert response.headers['X-OpenStack-Ironic-API-Version'] == '1.65'
    _unchanged(stored())
    response = _send(fixture.app, 'PUT', PROVISION, _body(value, MiB),
                     content_length)
    assert response.status_int == 202, response.text
    assert iso.decode(stored().instance_info['configdrive']) == image


def test_a_content_length_over_the_limit_is_not_read(fixture, stored):
    body = Endless()
    response = _send(fixture.app, 'PUT', PROVISION, body)
    _ironic_error(response, 413)
    assert body.read_bytes == 0
    _unchanged(stored())


def test_an_endless_body_is_read_up_to_the_limit(fixture, stored):
    fixture.conf_fixture.config(max_json_body_size_provision=2 * KiB,
                                group='api')
    body = Endless()
    response = _send(fixture.app, 'PUT', PROVISION, body,
                     content_length=False)
    _ironic_error(response, 413)
    assert 2 * MiB < body.read_bytes <= 2 * MiB + READ_PIECE
    _unchanged(stored())


# Other requests, including the provision path with another method, the
# provision path below the compute root and the node's other states; and
# the status of each when its body has no Content-Length (those that
# pecan routes nowhere read none of it).
OTHERS = [
    ('PUT', '/baremetal/v1/nodes/n/states/power', {'target': 'power on'},
     413),
    ('PUT', '/baremetal/v1/nodes/n/states/raid', {'logical_disks': []}, 413),
    ('PATCH', '/baremetal/v1/nodes/n',
     [{'op': 'add', 'path': '/extra/a', 'value': 'b'}], 413),
    ('POST', PROVISION, {'target': 'active'}, 405),
    # pecan reads this one's body before it finds no handler.
    ('PUT', PROVISION + '/more', {'target': 'active'}, 413),
    ('PUT', '/compute/v1/nodes/n/states/provision', {'target': 'active'},
     404),
    ('POST', '/compute/v2.1/flavors', {'flavor': {
        'name': 'f', 'ram': 1, 'vcpus': 1, 'disk': 0, 'id': 'f'}}, 413),
]
OTHER_IDS = ['power', 'raid', 'patch', 'post-provision', 'below-provision',
             'compute-root', 'flavors']


@pytest.mark.parametrize('method,path,value,chunked_status', OTHERS,
                         ids=OTHER_IDS)
def test_other_requests_keep_the_global_limit(fixture, stored, method, path,
                                              value, chunked_status):
    response = _send(fixture.app, method, path,
                     _body(value, GLOBAL_LIMIT + 1))
    assert response.status_int == 413, response.text
    if path.startswith('/baremetal'):
        _ironic_error(response, 413)
    else:
        assert response.json['overLimit']['code'] == 413
    # At the limit, the body is read (and refused for what it says, or
    # taken).
    response = _send(fixture.app, method, path, _body(value, GLOBAL_LIMIT))
    assert response.status_int != 413, response.text
    body = Endless(head=b'{"x": "')
    response = _send(fixture.app, method, path, body, content_length=False)
    assert response.status_int == chunked_status, response.text
    assert body.read_bytes <= GLOBAL_LIMIT + READ_PIECE
    if chunked_status == 413:
        assert body.read_bytes > GLOBAL_LIMIT
    node = stored()
    assert node.provision_state == 'available'
    assert objects.FlavorList.get_all(
        nm_context.get_admin_context()).objects == [] or method == 'POST'


def test_nesting_is_bounded_in_a_large_provision_body(fixture, stored):
    nested = 'x'
    for _ in range(40):
        nested = [nested]
    value = {'target': 'active', 'configdrive': {'user_data': nested}}
    response = _send(fixture.app, 'PUT', PROVISION,
                     _body(value, 4 * GLOBAL_LIMIT))
    assert 'nested more than 32 levels' in _ironic_error(response, 400)
    _unchanged(stored())
