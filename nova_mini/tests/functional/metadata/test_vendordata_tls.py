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

"""DynamicJSON against a real TLS server with a throw-away CA."""

import pytest

from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import vendordata as helpers

# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load


def _use(fixture):
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


@pytest.fixture
def ca():
    yield from _use(http_servers.ThrowawayCA())


@pytest.fixture
def other_ca():
    yield from _use(http_servers.ThrowawayCA('another CA'))


@pytest.fixture
def tls_server(ca):
    yield from _use(http_servers.ReplyServer(
        http_servers.json_reply({'secure': True}),
        ssl_context=ca.server_context()))


def _failures(caplog):
    return [record.getMessage() for record in caplog.records
            if 'failed for instance' in record.getMessage()]


def test_the_private_ca_verifies_the_target(load, ca, tls_server, caplog):
    providers = load(vendordata_providers=['DynamicJSON'],
                     vendordata_dynamic_targets=['tls@' + tls_server.url],
                     vendordata_dynamic_ssl_certfile=ca.ca_path)
    assert tls_server.url.startswith('https://127.0.0.1:')
    assert providers.vendor_data2(helpers.make_instance()) == {
        'tls': {'secure': True}}
    assert tls_server.calls == 1
    assert _failures(caplog) == []


def test_a_wrong_ca_leaves_the_key_out(load, other_ca, tls_server, caplog):
    providers = load(vendordata_providers=['DynamicJSON'],
                     vendordata_dynamic_targets=['tls@' + tls_server.url],
                     vendordata_dynamic_ssl_certfile=other_ca.ca_path)
    instance = helpers.make_instance()
    assert providers.vendor_data2(instance) == {}
    (failure,) = _failures(caplog)
    assert failure.startswith('Vendordata target tls (%s) failed for '
                              'instance %s: ' % (tls_server.url,
                                                 instance.uuid))
    assert 'CERTIFICATE_VERIFY_FAILED' in failure
    # The request never reached the server's handler.
    assert tls_server.calls == 0


def test_the_system_cas_do_not_know_a_private_ca(load, tls_server, caplog):
    providers = load(vendordata_providers=['DynamicJSON'],
                     vendordata_dynamic_targets=['tls@' + tls_server.url])
    assert providers.vendor_data2(helpers.make_instance()) == {}
    assert 'CERTIFICATE_VERIFY_FAILED' in _failures(caplog)[0]


def test_a_certificate_for_another_host_is_refused(load, ca, caplog):
    context = ca.server_context(hosts=('vd.example.org',))
    with http_servers.ReplyServer(http_servers.json_reply({}),
                                  ssl_context=context) as server:
        providers = load(vendordata_providers=['DynamicJSON'],
                         vendordata_dynamic_targets=['tls@' + server.url],
                         vendordata_dynamic_ssl_certfile=ca.ca_path)
        assert providers.vendor_data2(helpers.make_instance()) == {}
    assert 'CERTIFICATE_VERIFY_FAILED' in _failures(caplog)[0]


def test_verification_off_accepts_any_certificate_with_a_warning(
        load, tls_server, caplog):
    providers = load(vendordata_providers=['DynamicJSON'],
                     vendordata_dynamic_targets=['tls@' + tls_server.url],
                     vendordata_dynamic_ssl_verify=False)
    assert ('[api] vendordata_dynamic_ssl_verify is false: the TLS '
            'certificates of vendordata targets are not verified'
            in caplog.text)
    assert providers.vendor_data2(helpers.make_instance()) == {
        'tls': {'secure': True}}
