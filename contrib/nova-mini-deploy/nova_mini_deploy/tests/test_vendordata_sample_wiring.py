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

"""The stack of tools/stack.sh configures the sample vendordata service
and the metadata service's vendordata (no process is started here; the
live tests and tools/stack.sh start them)."""

import configparser
import json

from nova_mini_deploy import stack as harness_stack
from nova_mini_deploy import vendordata_sample


def _stack(state_dir, **kw):
    return harness_stack.Stack(str(state_dir), api_port=10001,
                               metadata_port=10002, keystone_port=10003,
                               **kw)


def test_without_the_sample_nothing_changes(tmp_path):
    st = _stack(tmp_path)
    assert st.sample is None
    sections = st.nova.config_sections()
    assert 'vendordata_dynamic_auth' not in sections
    assert 'vendordata_providers' not in sections['api']


def test_the_sample_and_the_vendordata_config(tmp_path):
    st = _stack(tmp_path, vendordata_sample_port=10004)
    st._save_record()
    st.nova.write_config()
    st.sample.write_config()
    conf = configparser.ConfigParser()
    conf.read(st.nova.conf_path)
    expected = {
        'vendordata_providers': 'StaticJSON,DynamicJSON',
        'vendordata_jsonfile_path': str(
            tmp_path / 'etc' / 'vendordata-static.json'),
        'vendordata_dynamic_targets': 'sample@http://127.0.0.1:10004/'}
    assert {name: conf['api'][name] for name in expected} == expected
    assert conf['api']['auth_strategy'] == 'keystone'     # kept
    auth = conf['vendordata_dynamic_auth']
    assert (auth['auth_type'], auth['username'], auth['password'],
            auth['project_name'], auth['auth_url']) == (
        'password', 'nova', st.passwords['nova'], 'service',
        st.keystone.auth_url)

    sample = configparser.ConfigParser()
    sample.read(st.sample.conf_path)
    assert sample['vendordata_sample']['bind_port'] == '10004'
    assert sample['vendordata_sample']['auth_strategy'] == 'keystone'
    assert len(sample['vendordata_sample']['join_secret']) == 64
    assert sample['keystone_authtoken']['username'] == 'nova'
    assert sample['keystone_authtoken']['password'] == st.passwords['nova']

    # A later run (tools/unstack.sh's down, stack.sh again) finds it in
    # the record, with the same join secret.
    with open(st.record_path) as f:
        assert json.load(f)['ports']['vendordata_sample'] == 10004
    again = harness_stack.Stack(str(tmp_path))
    assert again.sample.port == 10004
    assert again.sample.config_sections() == st.sample.config_sections()
    assert again.status()[again.sample.name] is None


def test_static_file_kept_once_written(tmp_path):
    st = _stack(tmp_path, vendordata_sample_port=10004)
    path = vendordata_sample.write_static(st.sample)
    with open(path) as f:
        assert json.load(f) == vendordata_sample.STATIC_VENDORDATA
    with open(path, 'w') as f:
        f.write('{"mine": true}')
    vendordata_sample.write_static(st.sample)
    with open(path) as f:
        assert json.load(f) == {'mine': True}
