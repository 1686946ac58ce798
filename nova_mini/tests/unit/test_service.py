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

"""systemd notification (sd_notify) on real AF_UNIX datagram sockets."""

import socket
import uuid

import pytest

from nova_mini import service


@pytest.fixture
def path_socket(tmp_path, monkeypatch):
    path = str(tmp_path / 'notify')
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)
    monkeypatch.setenv('NOTIFY_SOCKET', path)
    yield sock
    sock.close()


@pytest.fixture
def abstract_socket(monkeypatch):
    name = 'nova-mini-test-%s' % uuid.uuid4().hex
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind('\0' + name)
    sock.settimeout(5)
    monkeypatch.setenv('NOTIFY_SOCKET', '@' + name)
    yield sock
    sock.close()


def test_ready_on_a_path_socket(path_socket):
    assert service.sd_notify('READY=1') is True
    assert path_socket.recv(4096) == b'READY=1'


def test_ready_on_an_abstract_socket(abstract_socket):
    assert service.sd_notify('READY=1') is True
    assert abstract_socket.recv(4096) == b'READY=1'


def test_messages_arrive_in_order(path_socket):
    for message in ('READY=1', 'STATUS=serving', 'STOPPING=1'):
        assert service.sd_notify(message)
    assert [path_socket.recv(4096) for _ in range(3)] == [
        b'READY=1', b'STATUS=serving', b'STOPPING=1']


def test_nothing_without_notify_socket(monkeypatch):
    monkeypatch.delenv('NOTIFY_SOCKET', raising=False)

    def no_socket(*args, **kwargs):
        raise AssertionError('sd_notify opened a socket')

    monkeypatch.setattr(service.socket, 'socket', no_socket)
    assert service.sd_notify('READY=1') is False


def test_empty_notify_socket_is_no_socket(monkeypatch):
    monkeypatch.setenv('NOTIFY_SOCKET', '')
    assert service.sd_notify('READY=1') is False


def test_a_vanished_socket_does_not_stop_the_daemon(tmp_path, monkeypatch):
    monkeypatch.setenv('NOTIFY_SOCKET', str(tmp_path / 'gone'))
    assert service.sd_notify('READY=1') is False


def test_wsgi_server_says_ready(path_socket):
    server = service.WSGIServer('nova-mini-test', lambda: None,
                                host='127.0.0.1', port=0, workers=1,
                                threads=1, graceful_timeout=1)
    server._when_ready(None)
    assert path_socket.recv(4096) == b'READY=1'
    server._on_exit(None)
    assert path_socket.recv(4096) == b'STOPPING=1'
