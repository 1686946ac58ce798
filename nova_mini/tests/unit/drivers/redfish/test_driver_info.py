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

"""driver_info.parse: the redfish_* keys of a node, with Ironic's
errors."""

import pytest

from nova_mini.drivers.redfish import driver_info
from nova_mini.drivers.redfish import errors
from nova_mini.tests.unit.drivers.redfish import conftest

UUID = conftest.NODE_UUID


def _parse(**info):
    return driver_info.parse(conftest.make_node(**info))


def test_minimal(redfish_conf):
    info = _parse(redfish_address='https://bmc.example.org')
    assert info == driver_info.RedfishInfo(
        address='https://bmc.example.org', system_id=None, username=None,
        password=None, verify_ca=True, auth_type='auto', node_uuid=UUID,
        root_prefix=None)


def test_missing_address(redfish_conf):
    with pytest.raises(errors.MissingParameterValue) as exc:
        _parse(redfish_username='admin')
    assert str(exc.value) == (
        "Missing the following Redfish properties in node %s driver_info: "
        "['redfish_address']" % UUID)


@pytest.mark.parametrize('address, expected, prefix', [
    ('bmc.example.org', 'https://bmc.example.org', None),
    ('192.0.2.10:8000', 'https://192.0.2.10:8000', None),
    ('localhost:8443', 'https://localhost:8443', None),
    ('http://192.0.2.10:8000', 'http://192.0.2.10:8000', None),
    ('HTTPS://bmc/redfish/v1/', 'https://bmc', '/redfish/v1/'),
    ('2001:db8::1', 'https://[2001:db8::1]', None),
    ('https://[2001:db8::1]:443', 'https://[2001:db8::1]:443', None),
], ids=['host', 'ipv4-port', 'name-port', 'http', 'root-prefix', 'ipv6',
        'ipv6-bracketed'])
def test_address(redfish_conf, address, expected, prefix):
    info = _parse(redfish_address=address)
    assert (info.address, info.root_prefix) == (expected, prefix)


@pytest.mark.parametrize('address', [
    'ftp://bmc.example.org', 'http://bmc example', 'https://user@bmc',
    'https://bmc:99999999', 'https://bmc/?q=1', 'https://',
], ids=['scheme', 'space', 'userinfo', 'port', 'query', 'no-host'])
def test_invalid_address(redfish_conf, address):
    with pytest.raises(errors.InvalidParameterValue) as exc:
        _parse(redfish_address=address)
    assert str(exc.value).startswith('Invalid Redfish address ')
    assert str(exc.value).endswith(
        ' set in driver_info/redfish_address on node %s' % UUID)


def test_address_not_a_string(redfish_conf):
    with pytest.raises(errors.InvalidParameterValue) as exc:
        _parse(redfish_address=['x'])
    assert str(exc.value) == (
        "Invalid Redfish address ['x'] set in driver_info/redfish_address "
        "on node %s" % UUID)


def test_system_id(redfish_conf):
    info = _parse(redfish_address='bmc',
                  redfish_system_id='/redfish/v1/Systems/a b')
    assert info.system_id == '/redfish/v1/Systems/a%20b'


def test_system_id_not_a_string(redfish_conf):
    with pytest.raises(errors.InvalidParameterValue) as exc:
        _parse(redfish_address='bmc', redfish_system_id=1)
    assert str(exc.value) == (
        'Invalid value "1" set in driver_info/redfish_system_id on node '
        '%s. The value should be a path (string) to the resource that the '
        'driver will interact with. For example: /redfish/v1/Systems/1'
        % UUID)


@pytest.mark.parametrize('value, expected', [
    ('true', True), ('False', False), ('no', False), (False, False),
    (True, True),
], ids=['true', 'False', 'no', 'bool-false', 'bool-true'])
def test_verify_ca_boolean(redfish_conf, value, expected):
    assert _parse(redfish_address='bmc',
                  redfish_verify_ca=value).verify_ca is expected


def test_verify_ca_path(redfish_conf, tmp_path):
    bundle = tmp_path / 'ca.pem'
    bundle.write_text('-----BEGIN CERTIFICATE-----\n')
    assert _parse(redfish_address='bmc',
                  redfish_verify_ca=str(bundle)).verify_ca == str(bundle)
    assert _parse(redfish_address='bmc',
                  redfish_verify_ca=str(tmp_path)).verify_ca == str(
                      tmp_path)


@pytest.mark.parametrize('value', ['/nonexistent/ca.pem', 5],
                         ids=['missing-path', 'integer'])
def test_verify_ca_invalid(redfish_conf, value):
    with pytest.raises(errors.InvalidParameterValue) as exc:
        _parse(redfish_address='bmc', redfish_verify_ca=value)
    assert str(exc.value) == (
        'Invalid value type set in driver_info/redfish_verify_ca on node '
        '%s. The value should be a Boolean or the path to a file/directory, '
        'not "%s"' % (UUID, value))


def test_verify_ca_from_conf(redfish_conf, tmp_path):
    bundle = tmp_path / 'ca.pem'
    bundle.write_text('-----BEGIN CERTIFICATE-----\n')
    redfish_conf.config(group='redfish', verify_ca=str(bundle))
    assert _parse(redfish_address='bmc').verify_ca == str(bundle)
    assert _parse(redfish_address='bmc',
                  redfish_verify_ca='true').verify_ca is True
    assert _parse(redfish_address='bmc',
                  redfish_verify_ca=False).verify_ca is False


def test_auth_type(redfish_conf):
    assert _parse(redfish_address='bmc',
                  redfish_auth_type='session').auth_type == 'session'
    redfish_conf.config(group='redfish', auth_type='basic')
    assert _parse(redfish_address='bmc').auth_type == 'basic'


def test_auth_type_invalid(redfish_conf):
    with pytest.raises(errors.InvalidParameterValue) as exc:
        _parse(redfish_address='bmc', redfish_auth_type='digest')
    assert str(exc.value) == (
        'Invalid value "digest" set in driver_info/redfish_auth_type on '
        'node %s. The value should be one of "basic", "session" or "auto".'
        % UUID)


def test_password_not_in_repr_nor_mask(redfish_conf):
    info = _parse(redfish_address='bmc', redfish_username='admin',
                  redfish_password='t0p-s3cret')
    assert info.password == 't0p-s3cret'
    assert 't0p-s3cret' not in repr(info)
    assert 't0p-s3cret' not in repr(info.cache_key_parts())
    assert driver_info.mask({'redfish_password': 't0p-s3cret',
                             'redfish_username': 'admin'}) == {
        'redfish_password': '******', 'redfish_username': 'admin'}
