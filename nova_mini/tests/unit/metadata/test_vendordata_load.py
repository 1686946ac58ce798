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

"""Loading vendordata providers by name, and StaticJSON."""

import importlib.metadata
import json
import os
import subprocess
import sys

import pytest

from nova_mini import exception
from nova_mini.metadata import vendordata
from nova_mini.metadata.vendordata import dynamic_json
from nova_mini.metadata.vendordata import static_json
from nova_mini.tests.fixtures import vendordata as helpers

DOCUMENT = {'ldap': ['ldap1.example.org', 'ldap2.example.org'],
            'motd': 'hello', 'nested': {'a': 1}}


# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load
make_instance = helpers.make_instance


@pytest.fixture
def static_file(tmp_path):
    path = tmp_path / 'vendor_data.json'
    path.write_text(json.dumps(DOCUMENT))
    return str(path)


def test_in_tree_entry_points_load():
    # (nova_mini's own: the sample plugin's SampleBroken must not load)
    entry_points = {
        entry_point.name: entry_point for entry_point in
        importlib.metadata.distribution('nova_mini').entry_points
        if entry_point.group == vendordata.NAMESPACE}
    assert set(entry_points) == {'StaticJSON', 'DynamicJSON'}
    assert entry_points['StaticJSON'].load() is static_json.StaticJSON
    assert entry_points['DynamicJSON'].load() is dynamic_json.DynamicJSON
    for entry_point in entry_points.values():
        assert callable(entry_point.load()), entry_point


def test_default_is_static_json_with_an_empty_document(load):
    providers = load()
    assert [name for name, _p in providers.providers] == ['StaticJSON']
    instance = make_instance()
    assert providers.vendor_data(instance) == {}
    assert providers.vendor_data2(instance) == {'static': {}}


def test_static_json_is_served_in_both_files(load, static_file):
    providers = load(vendordata_jsonfile_path=static_file)
    instance = make_instance()
    assert providers.vendor_data(instance) == DOCUMENT
    assert providers.vendor_data2(instance) == {'static': DOCUMENT}


def test_static_json_is_read_once_at_load(load, static_file):
    providers = load(vendordata_jsonfile_path=static_file)
    with open(static_file, 'w') as stream:
        stream.write('not json any more')
    assert providers.vendor_data(make_instance()) == DOCUMENT


def test_callers_may_change_what_they_get(load, static_file):
    providers = load(vendordata_jsonfile_path=static_file)
    first = providers.vendor_data(make_instance())
    first['nested']['a'] = 2
    second = providers.vendor_data2(make_instance())
    second['static']['motd'] = 'changed'
    assert providers.vendor_data(make_instance()) == DOCUMENT


def test_no_provider_serves_empty_documents(load):
    providers = load(vendordata_providers=[])
    assert providers.vendor_data(make_instance()) == {}
    assert providers.vendor_data2(make_instance()) == {}


def test_vendor_data_is_empty_without_static_json(load):
    providers = load(vendordata_providers=['DynamicJSON'])
    assert providers.vendor_data(make_instance()) == {}
    assert providers.vendor_data2(make_instance()) == {}


@pytest.mark.parametrize('content, reason', [
    (b'{"a": ', 'invalid JSON'),
    (b'', 'invalid JSON'),
    (b'["a", "b"]', 'the JSON document is a list, not an object'),
    (b'"text"', 'the JSON document is a str, not an object'),
    (b'\xff\xfe{}', 'not UTF-8 text'),
])
def test_static_json_refuses_a_bad_file(load, tmp_path, content, reason):
    path = tmp_path / 'bad.json'
    path.write_bytes(content)
    with pytest.raises(exception.VendorDataConfigError) as caught:
        load(vendordata_jsonfile_path=str(path))
    message = str(caught.value)
    assert message.startswith('Invalid vendordata configuration: [api] '
                              'vendordata_jsonfile_path %s: ' % path)
    assert reason in message
    assert '\n' not in message


def test_static_json_refuses_a_missing_file(load, tmp_path):
    path = tmp_path / 'missing.json'
    with pytest.raises(exception.VendorDataConfigError,
                       match='vendordata_jsonfile_path %s: No such file'
                       % path):
        load(vendordata_jsonfile_path=str(path))


def test_static_json_refuses_a_directory(load, tmp_path):
    with pytest.raises(exception.VendorDataConfigError,
                       match='Is a directory'):
        load(vendordata_jsonfile_path=str(tmp_path))


def test_static_json_refuses_an_unreadable_file(load, static_file):
    os.chmod(static_file, 0)
    if os.access(static_file, os.R_OK):
        # Root reads every file: the same load, in a process whose root
        # lacks the capabilities that bypass file permissions.
        message = _load_without_dac_override(static_file)
    else:
        with pytest.raises(exception.VendorDataConfigError) as caught:
            load(vendordata_jsonfile_path=static_file)
        message = str(caught.value)
    assert message == ('Invalid vendordata configuration: [api] '
                       'vendordata_jsonfile_path %s: Permission denied'
                       % static_file)


# The load of the test above, the message of its VendorDataConfigError on
# stdout.
_LOAD = """
import sys
from nova_mini import exception
from nova_mini.metadata import vendordata
from nova_mini.tests.fixtures import conf
overrides = {'api.vendordata_jsonfile_path': sys.argv[1]}
with conf.ConfFixture(**overrides) as fixture:
    try:
        vendordata.load(fixture.conf)
    except exception.VendorDataConfigError as exc:
        print(exc)
    else:
        sys.exit('loaded')
"""


def _load_without_dac_override(path):
    caps = '-dac_override,-dac_read_search'
    proc = subprocess.run(
        ['setpriv', '--inh-caps=' + caps, '--bounding-set=' + caps,
         sys.executable, '-c', _LOAD, path],
        capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


def test_an_unknown_name_is_refused_naming_it_and_the_known_ones(load):
    with pytest.raises(exception.VendorDataConfigError) as caught:
        load(vendordata_providers=['StaticJSON', 'NoSuchProvider'])
    message = str(caught.value)
    assert ('[api] vendordata_providers: unknown provider NoSuchProvider '
            '(known: ' in message)
    assert 'DynamicJSON' in message and 'StaticJSON' in message


def test_a_python_path_is_not_a_name(load):
    with pytest.raises(exception.VendorDataConfigError,
                       match='unknown provider nova_mini.metadata.'
                             'vendordata.static_json:StaticJSON'):
        load(vendordata_providers=[
            'nova_mini.metadata.vendordata.static_json:StaticJSON'])


def test_a_name_listed_twice_is_refused(load):
    with pytest.raises(exception.VendorDataConfigError,
                       match='provider StaticJSON is listed twice'):
        load(vendordata_providers=['StaticJSON', 'StaticJSON'])


def test_providers_keep_the_order_of_the_option(load):
    providers = load(vendordata_providers=['DynamicJSON', 'StaticJSON'])
    assert [name for name, _p in providers.providers] == [
        'DynamicJSON', 'StaticJSON']


class _Provider:
    def __init__(self, keys, values):
        self.keys = keys
        self.values = values

    def get(self, instance):
        return dict(self.values)


def test_two_providers_declaring_one_key_are_refused():
    with pytest.raises(exception.VendorDataConfigError,
                       match="providers One and Two both give the key "
                             "'shared'"):
        vendordata.VendorData([('One', _Provider({'a', 'shared'}, {})),
                               ('Two', _Provider({'shared'}, {}))])


def test_a_key_given_again_at_run_time_is_kept_from_the_first(caplog):
    providers = vendordata.VendorData([
        ('One', _Provider(None, {'a': {'from': 'one'}})),
        ('Two', _Provider(None, {'a': {'from': 'two'}, 'b': {}}))])
    instance = make_instance()
    assert providers.vendor_data2(instance) == {'a': {'from': 'one'},
                                                'b': {}}
    assert "Vendordata provider Two gives the key 'a' again" in caplog.text


def test_a_provider_that_fails_to_load_is_a_config_error(load,
                                                         monkeypatch):
    def broken(conf):
        raise RuntimeError('boom')

    monkeypatch.setattr(static_json, 'StaticJSON', broken)
    with pytest.raises(exception.VendorDataConfigError,
                       match=r'provider StaticJSON \(nova_mini.metadata.'
                             r'vendordata.static_json:StaticJSON\) failed '
                             r'to load: RuntimeError: boom'):
        load()
