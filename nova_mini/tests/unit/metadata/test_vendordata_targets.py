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

"""[api] vendordata_dynamic_targets: parsed and checked at load."""

import pytest

from nova_mini import exception
from nova_mini.metadata.vendordata import targets
from nova_mini.tests.fixtures import vendordata as helpers


# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load


@pytest.mark.parametrize('entry, name, url', [
    ('ad@http://127.0.0.1:9999/', 'ad', 'http://127.0.0.1:9999/'),
    ('ad@https://vd.example.org/v1/ad', 'ad',
     'https://vd.example.org/v1/ad'),
    # The name ends at the first '@': a URL keeps its userinfo.
    ('keys@http://user@vd.example.org:8080/x', 'keys',
     'http://user@vd.example.org:8080/x'),
    (' spaced@http://[::1]:80/ ', 'spaced', 'http://[::1]:80/'),
    ('under_score.dot-dash@http://h/', 'under_score.dot-dash', 'http://h/'),
])
def test_valid_targets(entry, name, url):
    assert targets.parse_target(entry) == targets.Target(name, url)


@pytest.mark.parametrize('entry, reason', [
    ('http://vd.example.org/', 'has no name'),
    ('@http://vd.example.org/', 'has no name'),
    ('', 'has no name'),
    ('http://user@vd.example.org/', 'has an invalid name'),
    ('my name@http://h/', 'has an invalid name'),
    ('static@http://vd.example.org/', "reserved name 'static'"),
    ('ad@ftp://vd.example.org/', 'has an invalid URL'),
    ('ad@vd.example.org', 'has an invalid URL'),
    ('ad@http://', 'has an invalid URL'),
    ('ad@http://h:99999/', 'has an invalid URL'),
    ('ad@http://h/a b', 'whitespace'),
])
def test_invalid_targets(entry, reason):
    with pytest.raises(exception.VendorDataConfigError) as caught:
        targets.parse_target(entry)
    message = str(caught.value)
    assert message.startswith('Invalid vendordata configuration: [api] '
                              'vendordata_dynamic_targets: %r ' % entry)
    assert reason in message


def test_a_duplicate_name_is_refused():
    with pytest.raises(exception.VendorDataConfigError,
                       match="'ad@http://b/' repeats the name 'ad' of "
                             "'ad@http://a/'"):
        targets.parse_targets(['ad@http://a/', 'x@http://c/',
                               'ad@http://b/'])


def test_targets_keep_their_order():
    assert [t.name for t in targets.parse_targets(
        ['b@http://b/', 'a@http://a/'])] == ['b', 'a']


@pytest.mark.parametrize('entries, match', [
    (['http://vd.example.org/'], 'has no name'),
    (['ad@http://a/', 'ad@http://b/'], 'repeats the name'),
    (['static@http://a/'], 'reserved name'),
    (['ad@gopher://a/'], 'invalid URL'),
])
def test_load_stops_on_a_bad_target(load, entries, match):
    with pytest.raises(exception.VendorDataConfigError, match=match):
        load(vendordata_providers=['StaticJSON', 'DynamicJSON'],
             vendordata_dynamic_targets=entries)


def test_load_checks_the_ca_bundle(load, tmp_path):
    bundle = tmp_path / 'ca.pem'
    bundle.write_text('not a certificate')
    with pytest.raises(exception.VendorDataConfigError,
                       match='vendordata_dynamic_ssl_certfile %s' % bundle):
        load(vendordata_providers=['DynamicJSON'],
             vendordata_dynamic_targets=['ad@https://127.0.0.1:1/'],
             vendordata_dynamic_ssl_certfile=str(bundle))
    with pytest.raises(exception.VendorDataConfigError,
                       match='No such file'):
        load(vendordata_dynamic_ssl_certfile=str(tmp_path / 'missing'))


def test_load_refuses_an_unknown_auth_type(load):
    with pytest.raises(exception.VendorDataConfigError,
                       match=r'\[vendordata_dynamic_auth\]: .*nosuchplugin'):
        load(**{'vendordata_providers': ['DynamicJSON'],
                'vendordata_dynamic_targets': ['ad@http://127.0.0.1:1/'],
                'vendordata_dynamic_auth.auth_type': 'nosuchplugin'})


def test_load_refuses_incomplete_credentials(load):
    with pytest.raises(exception.VendorDataConfigError,
                       match=r'\[vendordata_dynamic_auth\]: .*auth_url'):
        load(**{'vendordata_providers': ['DynamicJSON'],
                'vendordata_dynamic_targets': ['ad@http://127.0.0.1:1/'],
                'vendordata_dynamic_auth.auth_type': 'password'})
