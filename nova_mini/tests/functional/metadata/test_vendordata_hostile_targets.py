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

"""DynamicJSON against targets that misbehave on purpose, on real local
HTTP servers: replies too large (as sent or once decompressed), replies
dripped a byte at a time, JSON nested too deep. Each is a failed target:
its key is left out, quickly, with a warning and no traceback; or the
request fails when failures are fatal.
"""

import gzip
import itertools
import logging
import socket
import threading
import time
import tracemalloc
import zlib

import pytest

from nova_mini import exception
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import vendordata as helpers

LOGGER = 'nova_mini.metadata.vendordata.dynamic_json'
MiB = 1024 * 1024

vd_conf = helpers.vd_conf
load = helpers.load
make_instance = helpers.make_instance
serve = helpers.serve
dynamic = helpers.dynamic


def _big_document(size):
    """A JSON object of about ``size`` bytes."""
    return b'{"blob": "' + b'x' * size + b'"}'


def _chunked(data, piece=MiB):
    """``data`` in HTTP/1.1 chunked framing, one chunk per ``piece``."""
    for start in range(0, len(data), piece):
        part = data[start:start + piece]
        yield b'%x\r\n%s\r\n' % (len(part), part)
    yield b'0\r\n\r\n'


def _failure(caplog, name):
    """The one warning about target ``name``; no record has a traceback."""
    assert not [record for record in caplog.records if record.exc_info]
    assert 'Traceback' not in caplog.text
    (warning,) = [record.getMessage() for record in caplog.records
                  if record.name == LOGGER and record.levelname == 'WARNING'
                  and record.getMessage().startswith(
                      'Vendordata target %s ' % name)]
    return warning


def _check_left_out(providers, caplog, name, within):
    started = time.monotonic()
    result = providers.vendor_data2(make_instance())
    elapsed = time.monotonic() - started
    assert result == {'static': {}, 'good': {'fine': 1}}
    assert elapsed < within, elapsed
    return _failure(caplog, name)


BIG = _big_document(40 * MiB)


@pytest.mark.parametrize('reply', [
    # Says how large it is: refused before the body is read.
    http_servers.Reply(200, {'Content-Type': 'application/json'}, BIG),
    # Says nothing: ends when the connection closes.
    http_servers.Reply(200, {'Content-Type': 'application/json'},
                       http_servers.Stream(
                           BIG[i:i + MiB] for i in range(0, len(BIG), MiB))),
    http_servers.Reply(200, {'Content-Type': 'application/json',
                             'Transfer-Encoding': 'chunked'},
                       http_servers.Stream(_chunked(BIG))),
], ids=['content-length', 'until-close', 'chunked'])
def test_a_reply_over_the_size_cap_is_left_out(serve, dynamic, caplog,
                                               reply):
    bad = serve(reply)
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url)
    warning = _check_left_out(providers, caplog, 'bad', within=3)
    assert 'the reply is larger than 1048576 bytes' in warning


def test_the_cap_is_the_option(serve, dynamic, caplog):
    # A reply of exactly the cap is served; one byte more is not.
    document = _big_document(2000)
    exact = serve(http_servers.Reply(200, {}, document))
    over = serve(http_servers.Reply(200, {}, document + b' '))
    providers = dynamic('exact@' + exact.url, 'over@' + over.url,
                        vendordata_dynamic_max_size=len(document))
    result = providers.vendor_data2(make_instance())
    assert set(result) == {'static', 'exact'}
    assert 'the reply is larger than %d bytes' % len(document) in _failure(
        caplog, 'over')


@pytest.mark.parametrize('encoding, compress', [
    ('gzip', gzip.compress),
    ('deflate', zlib.compress),
])
def test_a_compression_bomb_is_capped_decompressed(serve, dynamic, caplog,
                                                   encoding, compress):
    bomb = compress(_big_document(64 * MiB))
    assert len(bomb) < 100 * 1024      # far below the cap on the wire
    bad = serve(http_servers.Reply(200, {
        'Content-Type': 'application/json', 'Content-Encoding': encoding},
        bomb))
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url)
    tracemalloc.start()
    try:
        warning = _check_left_out(providers, caplog, 'bad', within=3)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert 'the reply is larger than 1048576 bytes' in warning
    # Never more than the cap and a read's worth decompressed at once.
    assert peak < 8 * MiB, peak


def test_a_small_compressed_reply_is_served(serve, dynamic):
    server = serve(http_servers.Reply(200, {
        'Content-Type': 'application/json', 'Content-Encoding': 'gzip'},
        gzip.compress(b'{"zipped": true}')))
    providers = dynamic('z@' + server.url)
    assert providers.vendor_data2(make_instance())['z'] == {'zipped': True}


def test_an_unknown_content_encoding_is_a_failure(serve, dynamic, caplog):
    bad = serve(http_servers.Reply(200, {'Content-Encoding': 'compress'},
                                   b'\x1f\x9d\x90'))
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url)
    warning = _check_left_out(providers, caplog, 'bad', within=3)
    assert "unsupported Content-Encoding 'compress'" in warning


# One byte every half second, for 12 s: far past the deadline of a call,
# connect timeout (3) + read timeout (1), though no single read waits
# longer than the read timeout.
DRIP = 0.5
DRIPS = 24


def _dripped(data):
    return itertools.islice(
        itertools.chain((bytes([byte]) for byte in data),
                        itertools.repeat(b' ')), DRIPS)


@pytest.mark.parametrize('reply', [
    http_servers.Reply(200, {'Content-Type': 'application/json',
                             'Content-Length': str(DRIPS)},
                       http_servers.Stream(_dripped(b'{"a": 1'), DRIP)),
    http_servers.Reply(200, None, http_servers.Stream(
        _dripped(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'),
        DRIP, raw=True)),
], ids=['body', 'headers'])
def test_a_dripping_target_is_cut_off_at_the_deadline(serve, dynamic,
                                                      caplog, reply):
    bad = serve(reply)
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url,
                        vendordata_dynamic_connect_timeout=3,
                        vendordata_dynamic_read_timeout=1)
    warning = _check_left_out(providers, caplog, 'bad', within=5.5)
    assert 'no complete reply within 4 seconds' in warning


@pytest.fixture
def tls_dripper():
    """An https:// URL whose server starts a TLS record of 16 KiB and
    sends it a byte every DRIP seconds, DRIPS times: a handshake that
    never ends (a socket timeout per read never fires).
    """
    listener = socket.create_server(('127.0.0.1', 0))
    stop = threading.Event()

    def drip():
        connection, _address = listener.accept()
        with connection:
            connection.recv(4096)       # the ClientHello
            record = b'\x16\x03\x03\x40\x00' + b'\x00' * DRIPS
            for byte in record[:DRIPS]:
                if stop.wait(DRIP):
                    return
                try:
                    connection.sendall(bytes([byte]))
                except OSError:
                    return

    thread = threading.Thread(target=drip, daemon=True)
    thread.start()
    yield 'https://127.0.0.1:%d/' % listener.getsockname()[1]
    stop.set()
    listener.close()
    thread.join(timeout=5)


def test_a_dripping_tls_handshake_is_cut_off_at_the_deadline(
        serve, dynamic, caplog, tls_dripper):
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + tls_dripper, 'good@' + good.url,
                        vendordata_dynamic_connect_timeout=3,
                        vendordata_dynamic_read_timeout=1)
    warning = _check_left_out(providers, caplog, 'bad', within=5.5)
    # NOTE: Python's TLS handshake has a deadline of its own, the socket's
    # timeout (here the connect timeout), which ends it first.
    assert 'timed out' in warning


def test_a_dripping_tls_reply_is_cut_off_at_the_deadline(serve, dynamic,
                                                         caplog):
    ca = http_servers.ThrowawayCA()
    ca.setUp()
    try:
        bad = serve(http_servers.Reply(
            200, {'Content-Length': str(DRIPS)},
            http_servers.Stream(_dripped(b'{"a": 1'), DRIP)),
            ssl_context=ca.server_context())
        good = serve(http_servers.json_reply({'fine': 1}))
        providers = dynamic('bad@' + bad.url, 'good@' + good.url,
                            vendordata_dynamic_ssl_certfile=ca.ca_path,
                            vendordata_dynamic_connect_timeout=3,
                            vendordata_dynamic_read_timeout=1)
        warning = _check_left_out(providers, caplog, 'bad', within=5.5)
    finally:
        ca.cleanUp()
    assert 'no complete reply within 4 seconds' in warning


def _nested(depth):
    return b'{"a": ' + b'[' * depth + b']' * depth + b'}'


@pytest.mark.parametrize('body', [
    _nested(30000),
    # Within Python's recursion limit, but too deep to be served safely.
    _nested(500),
], ids=['30000', '500'])
def test_json_nested_too_deep_is_left_out(serve, dynamic, caplog, body):
    bad = serve(http_servers.Reply(200, {'Content-Type': 'application/json'},
                                   body))
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url)
    warning = _check_left_out(providers, caplog, 'bad', within=3)
    assert 'the reply is nested deeper than 100 levels' in warning


def test_json_nested_within_the_bound_is_served(serve, dynamic):
    server = serve(http_servers.Reply(200, {}, _nested(99)))
    providers = dynamic('ok@' + server.url)
    value = providers.vendor_data2(make_instance())['ok']['a']
    for _level in range(98):
        (value,) = value
    assert value == []


@pytest.mark.parametrize('literal', [b'NaN', b'Infinity', b'-Infinity',
                                     b'1e999', b'-1e400'])
def test_non_finite_numbers_are_refused(serve, dynamic, caplog, literal):
    # Served on, they would make vendor_data2.json invalid JSON.
    bad = serve(http_servers.Reply(200, {}, b'{"n": %s}' % literal))
    good = serve(http_servers.json_reply({'fine': 1}))
    providers = dynamic('bad@' + bad.url, 'good@' + good.url)
    warning = _check_left_out(providers, caplog, 'bad', within=3)
    assert 'the reply is not JSON' in warning


@pytest.mark.parametrize('reply, reason', [
    (http_servers.Reply(200, {}, BIG),
     'the reply is larger than 1048576 bytes'),
    (http_servers.Reply(200, {}, _nested(30000)),
     'the reply is nested deeper than 100 levels'),
], ids=['big', 'nested'])
def test_a_bad_reply_is_fatal_when_configured(serve, dynamic, caplog, reply,
                                              reason):
    bad = serve(reply)
    providers = dynamic('bad@' + bad.url,
                        vendordata_dynamic_failure_fatal=True)
    with caplog.at_level(logging.WARNING):
        with pytest.raises(exception.VendorDataTargetFailed) as caught:
            providers.vendor_data2(make_instance())
    assert caught.value.kwargs == {'target': 'bad', 'reason': reason}
    assert 'Traceback' not in caplog.text
