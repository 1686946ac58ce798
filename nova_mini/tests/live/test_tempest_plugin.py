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

"""nova_mini's own Tempest plugin (contrib/tempest-plugin) run with
``tempest run`` against the live stack: extra-spec validation, node
traits, servers' embedded flavor and the metadata service, with
pre-provisioned credentials (tempest_run's ``Tempest.project_accounts``:
the stack's admin and a project member), not a project and users made for
each class. The plugin is installed into Tempest's
virtualenv (tempest_run.py says which) as an operator installs it.

Tempest reads a metadata service of this module's, set up as the quick
start's is: StaticJSON and DynamicJSON with the sample vendordata service
(target ``sample``, called with a token of the nova service user), so that
the vendordata test checks the sample's answer.
"""

import os
import pathlib
import subprocess
import uuid

import pytest

from nova_mini.tests.live import helpers
from nova_mini.tests.live import tempest_run
from nova_mini_deploy import nova
from nova_mini_deploy import util
from nova_mini_deploy import vendordata_sample

# A Tempest run takes 150-270 s on CI's two cores, and its test with the
# stack's start about 700 s on a machine loaded 9 deep: a time limit above
# setup.cfg's default (300 s) for each test.
pytestmark = [pytest.mark.live, pytest.mark.timeout(1200)]

PLUGIN = pathlib.Path(__file__).resolve().parents[3] / 'contrib' / (
    'tempest-plugin')
TESTS = r'^nova_mini_tempest_plugin\.'
# Every test of the plugin, by module.
EXPECTED = {
    'nova_mini_tempest_plugin.tests.api.test_extra_spec_validation': 7,
    'nova_mini_tempest_plugin.tests.api.test_node_traits': 5,
    'nova_mini_tempest_plugin.tests.api.test_servers_embedded_flavor': 1,
    'nova_mini_tempest_plugin.tests.api.test_metadata': 3,
}


def _install_plugin():
    python = os.path.join(tempest_run.VENV, 'bin', 'python')
    # Copied in, not linked: Tempest loads every installed plugin, and one
    # whose checkout is gone would break every run of the virtualenv.
    proc = subprocess.run(
        [python, '-m', 'pip', 'install', '--quiet', '--no-deps',
         '--force-reinstall', str(PLUGIN)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture
def metadata_with_sample(stack):
    """The URL of a nova-mini-metadata whose vendordata is StaticJSON and
    the sample's answer (target ``sample``), signed with the stack's
    shared secret.
    """
    run = uuid.uuid4().hex[:6]
    keystone = {'auth_url': stack.keystone.auth_url, 'username': 'nova',
                'password': stack.passwords['nova']}
    sample = vendordata_sample.VendordataSample(
        stack.nova, name='vendordata-sample-tempest-%s' % run,
        keystone=keystone, options={'join_secret': 'join-%s' % run})
    sample.static_path = os.path.join(
        stack.nova.etc_dir, 'vendordata-static-tempest-%s.json' % run)
    vendordata_sample.write_static(sample)
    sample.start()
    name = 'nova-mini-metadata-tempest-%s' % run
    port = util.free_port()
    extra = stack.nova.write_extra_config(name, {
        'metadata': {'bind_port': port, 'workers': 1},
        'api': {
            'vendordata_providers': 'StaticJSON,DynamicJSON',
            'vendordata_jsonfile_path': sample.static_path,
            'vendordata_dynamic_targets': 'sample@%s' % sample.url,
        },
        'vendordata_dynamic_auth': {
            'auth_type': 'password', 'auth_url': keystone['auth_url'],
            'username': 'nova', 'password': keystone['password'],
            'project_name': 'service', 'user_domain_name': 'Default',
            'project_domain_name': 'Default'},
    })
    stack.nova.start(nova.METADATA, name=name, port=port,
                     config_files=[stack.nova.conf_path, extra])
    yield 'http://%s:%d' % (util.LOCALHOST, port)
    assert stack.nova.stop(name, timeout=30) == 0
    assert sample.stop() == 0


def test_nova_mini_tempest_plugin(stack, tmp_path, metadata_with_sample):
    tempest = tempest_run.Tempest(stack, tmp_path)
    _install_plugin()

    conf = {
        'service_available': {'nova_mini': 'True'},
        'compute': {'image_ref': helpers.IMAGE, 'build_timeout': '120',
                    'build_interval': '1'},
        'nova_mini': {'metadata_url': metadata_with_sample,
                      'metadata_shared_secret': stack.nova.metadata_secret,
                      'vendordata_sample_target': 'sample'},
    }
    conf.update(tempest.project_accounts())
    result = tempest.run(TESTS, sections=conf)

    result.check(sum(EXPECTED.values()), {})
    passed = {module: counts.get('ok', 0)
              for module, counts in result.by_module().items()}
    assert passed == EXPECTED, result.summary()
