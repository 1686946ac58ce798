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

"""nova_mini.syn_filter on real sockets: clients queued before the filter
are accepted and served, new ones are held off, and refused once the
listener is closed (never reset).
"""

import errno
import os
import select
import socket

import pytest

from nova_mini import syn_filter


@pytest.fixture
def listener():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(16)
    yield sock
    sock.close()


def test_queued_client_is_accepted_and_served(listener):
    port = listener.getsockname()[1]
    client = socket.create_connection(('127.0.0.1', port), timeout=5)
    assert syn_filter.drop_syns(listener)
    server, _addr = listener.accept()
    client.sendall(b'request')
    assert server.recv(64) == b'request'
    server.sendall(b'answer')
    assert client.recv(64) == b'answer'
    server.close()
    client.close()


def test_new_client_is_held_off_then_refused_once_closed(listener):
    port = listener.getsockname()[1]
    assert syn_filter.drop_syns(listener)
    # A non-blocking connect: its SYN is sent before connect_ex returns,
    # so the request is under way when the listener closes (no thread
    # to start in time).
    with socket.socket() as client:
        client.setblocking(False)
        assert client.connect_ex(('127.0.0.1', port)) == errno.EINPROGRESS
        # The request is dropped: no handshake (nor refusal) while
        # filtered.
        _readable, writable, _failed = select.select([], [client], [], 0.5)
        assert writable == []
        listener.close()
        # Its repeated request (about a second later) meets the closed
        # port.
        _readable, writable, _failed = select.select([], [client], [], 10)
        assert writable == [client]
        error = client.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        assert error == errno.ECONNREFUSED, os.strerror(error)


def test_unix_socket_is_left_alone(tmp_path):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(tmp_path / 'sock'))
        sock.listen(1)
        assert syn_filter.drop_syns(sock) is False
