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

"""connection: cached sushy clients, sessions reused, retries with
backoff on connection and server errors, credentials never logged."""

import http.client
import logging
import threading
import time

import pytest
import sushy

from nova_mini.drivers.redfish import connection
from nova_mini.drivers.redfish import driver_info
from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import hardware
from nova_mini.drivers.redfish import power
from nova_mini.tests.unit.drivers.redfish import conftest
from nova_mini.tests.unit.drivers.redfish import fake_bmc
from nova_mini_deploy import util as deploy_util

HW = hardware.RedfishHardware()


def _session_posts(bmc):
    return [r for r in bmc.requests
            if r.method == 'POST' and r.path == fake_bmc.SESSIONS]


def _recorded(bmc):
    """The BMC's requests, for an assertion's message."""
    return ['%s %s (%s)' % (r.method, r.path, r.auth) for r in bmc.requests]


def test_fake_bmc_answers_connection_close(bmc):
    # sushy sends "Connection: close" with every request. A server that
    # closes the connection without saying so lets the client pool it and
    # send the next request on it as it closes (RemoteDisconnected under
    # load, a dropped client, a second login).
    port = int(bmc.address.rsplit(':', 1)[1])
    answers = {}
    for connection_header in ('close', 'keep-alive'):
        conn = http.client.HTTPConnection('127.0.0.1', port, timeout=10)
        try:
            conn.request('GET', '/redfish/v1',
                         headers={'Connection': connection_header})
            response = conn.getresponse()
            response.read()
            answers[connection_header] = (response.getheader('Connection'),
                                          response.will_close)
        finally:
            conn.close()
    assert answers == {'close': ('close', True),
                       'keep-alive': (None, False)}


def test_session_reused_across_operations(bmc_factory):
    bmc = bmc_factory(sessions=True)
    node = conftest.make_node(bmc, redfish_auth_type='session')
    assert HW.get_power_state(node) == 'power off'
    assert HW.get_boot_device(node)['boot_device'] == 'disk'
    HW.set_boot_device(node, 'pxe')
    assert len(_session_posts(bmc)) == 1, _recorded(bmc)
    authenticated = [r for r in bmc.requests
                     if r.path not in ('/redfish/v1', fake_bmc.SESSIONS)]
    assert authenticated
    assert {r.auth for r in authenticated} == {'token'}
    assert connection.cached_clients() == 1


def test_one_login_for_threads_at_once(bmc_factory):
    bmc = bmc_factory(sessions=True)
    node = conftest.make_node(bmc, redfish_auth_type='session')
    results = []

    def _work():
        results.append(HW.get_power_state(node))

    threads = [threading.Thread(target=_work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == ['power off'] * 8
    assert len(_session_posts(bmc)) == 1, _recorded(bmc)
    assert connection.cached_clients() == 1


def test_auto_uses_the_session_service_when_there_is_one(bmc_factory):
    bmc = bmc_factory(sessions=True)
    node = conftest.make_node(bmc, redfish_auth_type='auto')
    HW.get_power_state(node)
    HW.get_power_state(node)
    assert len(_session_posts(bmc)) == 1, _recorded(bmc)


def test_auto_falls_back_to_basic(bmc):
    # The emulator (and its recorded root) has no SessionService.
    node = conftest.make_node(bmc, redfish_auth_type='auto')
    assert HW.get_power_state(node) == 'power off'
    assert {r.auth for r in bmc.requests
            if r.path.startswith('/redfish/v1/Systems')} == {'basic'}


def test_no_cache_logs_in_every_time(bmc_factory, redfish_conf):
    redfish_conf.config(group='redfish', connection_cache_size=0)
    bmc = bmc_factory(sessions=True)
    node = conftest.make_node(bmc, redfish_auth_type='session')
    HW.get_power_state(node)
    HW.get_power_state(node)
    assert len(_session_posts(bmc)) == 2
    assert connection.cached_clients() == 0


def test_cache_keyed_by_password_and_bounded(bmc_factory, redfish_conf):
    redfish_conf.config(group='redfish', connection_cache_size=2)
    bmc = bmc_factory()
    other = bmc_factory()
    node = conftest.make_node(bmc)
    HW.get_power_state(node)
    HW.get_power_state(node)
    assert connection.cached_clients() == 1
    # A changed password is another client (and is refused here).
    changed = conftest.make_node(bmc, redfish_password='changed')
    with pytest.raises(errors.RedfishError):
        HW.get_power_state(changed)
    assert connection.cached_clients() == 1
    HW.get_power_state(conftest.make_node(other))
    assert connection.cached_clients() == 2
    third = conftest.make_node(bmc, redfish_auth_type='auto')
    HW.get_power_state(third)
    # The least recently used client (the first node's) went.
    assert connection.cached_clients() == 2
    before = len(bmc.requests)
    HW.get_power_state(node)
    assert bmc.requests[before].path == '/redfish/v1'   # a new client


def test_retry_on_503_then_success(bmc):
    # (with a system id: one GET per look at the system)
    node = conftest.make_node(bmc, redfish_system_id=fake_bmc.SYSTEM)
    HW.get_power_state(node)          # the client is cached
    bmc.fail(503, times=2, method='GET', path=fake_bmc.SYSTEM)
    start = time.monotonic()
    assert HW.get_power_state(node) == 'power off'
    elapsed = time.monotonic() - start
    gets = [r for r in bmc.requests if r.path == fake_bmc.SYSTEM]
    # sushy's own immediate retry of the GET, then one wait of
    # connection_retry_interval (1 s) and the retry that succeeds.
    assert len(gets) == 1 + 3
    assert 1 <= elapsed < 3


def test_retry_on_503_of_an_action(bmc):
    node = conftest.make_node(bmc)
    bmc.fail(503, times=1, method='POST')
    HW.set_power_state(node, 'power on')
    resets = bmc.actions('POST')
    assert [r.body for r in resets] == [{'ResetType': 'On'}] * 2
    assert bmc.doc(fake_bmc.SYSTEM)['PowerState'] == 'On'


def test_backoff_doubles(redfish_conf):
    redfish_conf.config(group='redfish', connection_retry_interval=3)
    assert [connection._retry_wait(n) for n in (1, 2, 3, 4, 5)] == [
        3, 6, 12, 24, 30]


def test_persistent_server_error(bmc, redfish_conf):
    redfish_conf.config(group='redfish', connection_attempts=2)
    node = conftest.make_node(bmc, redfish_system_id=fake_bmc.SYSTEM)
    HW.get_power_state(node)
    bmc.fail(500, times=100, method='GET', path=fake_bmc.SYSTEM)
    with pytest.raises(errors.RedfishError) as exc:
        HW.get_power_state(node)
    assert 'Redfish exception occurred. Error: ' in str(exc.value)
    assert '500' in str(exc.value)
    assert len([r for r in bmc.requests
                if r.path == fake_bmc.SYSTEM]) == 1 + 2 * 2


def test_unreachable_bmc(redfish_conf):
    redfish_conf.config(group='redfish', connection_attempts=2)
    node = conftest.make_node(
        redfish_address='http://127.0.0.1:%d' % deploy_util.free_port(),
        redfish_username='admin', redfish_password='pw')
    start = time.monotonic()
    with pytest.raises(errors.RedfishConnectionError) as exc:
        HW.get_power_state(node)
    assert time.monotonic() - start >= 1
    assert str(exc.value).startswith(
        'Redfish connection failed for node %s: ' % conftest.NODE_UUID)
    assert connection.cached_clients() == 0


def test_wrong_credentials_not_retried(bmc):
    node = conftest.make_node(bmc, redfish_password='wrong')
    with pytest.raises(errors.RedfishError) as exc:
        HW.get_power_state(node)
    assert 'Redfish exception occurred. Error: ' in str(exc.value)
    assert len([r for r in bmc.requests if r.auth is None
                and r.path != '/redfish/v1']) == 1
    assert connection.cached_clients() == 0


def test_credentials_never_logged(bmc_factory, redfish_conf, caplog,
                                  tmp_path, monkeypatch):
    # Its power waits read the BMC 0.1 s after the action, not 1 s.
    monkeypatch.setattr(power, 'POLL_INITIAL', 0.1)
    caplog.set_level(logging.DEBUG)
    secret = 'Sup3r-S3cret-Passw0rd'
    session_bmc = bmc_factory(sessions=True, password=secret)
    basic_bmc = bmc_factory(password=secret)
    good = conftest.make_node(session_bmc, redfish_auth_type='session')
    HW.get_power_state(good)
    HW.set_power_state(good, 'power on')
    HW.set_boot_device(good, 'cdrom', persistent=True)
    HW.deploy(good, 'http://192.0.2.1/boot.iso',
              configdrive_url='http://192.0.2.1/cd.img')
    HW.tear_down(good)
    HW.get_sensors_data(good)
    HW.get_power_state(conftest.make_node(basic_bmc))
    basic_bmc.fail(503, times=3)
    HW.get_power_state(conftest.make_node(basic_bmc))
    wrong = conftest.make_node(session_bmc, redfish_auth_type='session',
                               redfish_password=secret + 'x')
    with pytest.raises(errors.RedfishError) as exc:
        HW.get_power_state(wrong)
    assert secret not in str(exc.value)
    # One retry is enough to log a retried connection error (the 1 s
    # wait, not 1 + 2 s).
    redfish_conf.config(group='redfish', connection_attempts=2)
    unreachable = conftest.make_node(
        redfish_address='http://127.0.0.1:%d' % deploy_util.free_port(),
        redfish_username='admin', redfish_password=secret)
    with pytest.raises(errors.RedfishConnectionError) as exc:
        HW.get_power_state(unreachable)
    assert secret not in str(exc.value)
    assert caplog.records
    assert any('sushy' in r.name for r in caplog.records)
    for record in caplog.records:
        assert secret not in record.getMessage(), record.name
    assert secret not in caplog.text


def test_no_system_id_with_two_systems(bmc_factory):
    bmc = bmc_factory(two_systems=True)
    with pytest.raises(errors.RedfishError) as exc:
        HW.get_power_state(conftest.make_node(bmc))
    assert 'System count is not exactly one' in str(exc.value)
    node = conftest.make_node(bmc, redfish_system_id=fake_bmc.SYSTEM_1)
    assert HW.get_power_state(node) == 'power on'


def test_unknown_system_id(bmc):
    node = conftest.make_node(
        bmc, redfish_system_id='/redfish/v1/Systems/nope')
    with pytest.raises(errors.RedfishError) as exc:
        HW.get_power_state(node)
    assert str(exc.value).startswith('Redfish exception occurred. Error: ')


def test_call_raises_server_errors_as_sushy(bmc, redfish_conf):
    redfish_conf.config(group='redfish', connection_attempts=1)
    info = driver_info.parse(conftest.make_node(bmc))
    bmc.fail(503, times=10)
    with pytest.raises(sushy.exceptions.ServerSideError):
        connection.call(info, lambda client: client.get_system())
