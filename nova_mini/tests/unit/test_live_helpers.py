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

"""The events the live tests wait on instead of sleeping: a request read
by the server (helpers.requests_read), a port no longer listened on
(helpers.listening), on real loopback sockets.
"""

import socket

import pytest

from nova_mini.tests.live import helpers
from nova_mini_deploy import util


@pytest.fixture
def listener():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(8)
    yield sock
    sock.close()


def test_a_request_counts_as_read_once_the_server_read_it(listener):
    port = listener.getsockname()[1]
    assert helpers.listening(port)
    with socket.create_connection(('127.0.0.1', port)) as client:
        client_port = client.getsockname()[1]
        client.sendall(b'GET / HTTP/1.1\r\n')
        # Queued by the kernel, not accepted: not read.
        util.wait_until(lambda: [
            s for s in helpers.tcp_sockets() if s[:2] == (port, client_port)
            and s[4] == 16], 10, 'the bytes in the receive queue')
        assert not helpers.requests_read(port, [client_port])
        server, _address = listener.accept()
        with server:
            # Accepted, not read yet.
            assert not helpers.requests_read(port, [client_port])
            assert server.recv(10) == b'GET / HTTP'
            assert not helpers.requests_read(port, [client_port])
            assert server.recv(10) == b'/1.1\r\n'
            helpers.wait_requests_read(port, [client_port], timeout=10)
            # More sent: not read until the server reads it.
            client.sendall(b'Host: x\r\n')
            util.wait_until(lambda: [
                s for s in helpers.tcp_sockets()
                if s[:2] == (port, client_port) and s[4] == 9], 10,
                'the bytes in the receive queue')
            assert not helpers.requests_read(port, [client_port])
            with pytest.raises(util.ServiceError, match='reading the '
                               'requests sent from ports'):
                helpers.wait_requests_read(port, [client_port], timeout=0.3)
    listener.close()
    assert not helpers.listening(port)
