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

"""A third-party provider (contrib/sample-vendordata-plugin, installed in
the tests' venv) loaded by its entry point name."""

import importlib.metadata

import pytest

from nova_mini import exception
from nova_mini.tests.fixtures import vendordata as helpers

# The helpers' pytest fixtures, used by the tests of this module.
vd_conf = helpers.vd_conf
load = helpers.load


@pytest.fixture(autouse=True)
def installed():
    try:
        importlib.metadata.distribution('nova-mini-sample-vendordata')
    except importlib.metadata.PackageNotFoundError:
        pytest.fail('contrib/sample-vendordata-plugin is not installed: '
                    'run tools/run-tests.sh (or pip install '
                    './contrib/sample-vendordata-plugin)')


def test_a_plugin_is_loaded_by_name(load):
    providers = load(vendordata_providers=['StaticJSON', 'SampleHostInfo'])
    instance = helpers.make_instance(name='Web 7')
    assert providers.vendor_data2(instance) == {
        'static': {},
        'host_info': {'fqdn': 'web-7.novalocal',
                      'project_id': 'demo-project'}}
    assert providers.vendor_data(instance) == {}


def test_a_plugin_reads_its_own_options(load, vd_conf):
    load(vendordata_providers=['SampleHostInfo'])   # registers them
    vd_conf.config(group='sample_host_info', domain='Cloud.Example.org')
    providers = load()
    assert providers.vendor_data2(helpers.make_instance(name='db'))[
        'host_info']['fqdn'] == 'db.cloud.example.org'


def test_a_plugin_refuses_its_bad_configuration(load, vd_conf):
    load(vendordata_providers=['SampleHostInfo'])
    vd_conf.config(group='sample_host_info', domain='not a domain')
    with pytest.raises(exception.VendorDataConfigError,
                       match=r"\[sample_host_info\] domain 'not a domain' "
                             r"is not a DNS domain"):
        load()


def test_the_known_names_include_the_plugin(load):
    with pytest.raises(exception.VendorDataConfigError) as caught:
        load(vendordata_providers=['SampleHostinfo'])
    assert 'unknown provider SampleHostinfo (known: ' in str(caught.value)
    assert 'SampleHostInfo' in str(caught.value)


def test_a_plugin_claiming_a_taken_key_is_refused(load):
    with pytest.raises(exception.VendorDataConfigError,
                       match="providers StaticJSON and SampleClash both "
                             "give the key 'static'"):
        load(vendordata_providers=['StaticJSON', 'SampleClash'])


def test_a_plugin_that_does_not_import_is_refused(load):
    with pytest.raises(exception.VendorDataConfigError,
                       match=r'provider SampleBroken \(nova_mini_sample_'
                             r'vendordata.missing_module:SampleBroken\) '
                             r'failed to load: ModuleNotFoundError'):
        load(vendordata_providers=['SampleBroken'])
