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

"""cloud-init reads nova-mini-metadata: Debian's cloud-init package's own
OpenStack metadata reader (``cloudinit.sources.helpers.openstack``, run
by the system Python 3 where Debian installs it) against the live
service, through a signing proxy in the role of Neutron's metadata
agent. What it parses must be the server's: instance id, name, metadata,
user data, and the vendordata of StaticJSON.

cloud-init is not on PyPI: tools/run-tests.sh installs the Debian package.
"""

import base64
import json
import os
import subprocess
import uuid

import pytest

from nova_mini.tests.live import helpers
from nova_mini.tests.live import test_metadata as md
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

SYSTEM_PYTHON = '/usr/bin/python3'
STATIC = {'cloud-init': '#cloud-config\nruncmd: [[touch, /tmp/vendor]]\n',
          'site': {'name': 'lab', 'ntp': ['10.0.0.1']}}

# Run by the system Python, where Debian's cloud-init lives; prints what
# the reader parsed, as JSON.
READER = r'''
import base64
import json
import sys

from cloudinit import sources
from cloudinit.sources.helpers import openstack


class Reader(openstack.MetadataReader):
    def _read_ec2_metadata(self):
        # nova_mini serves the OpenStack format only (cloud-init asks
        # 169.254.169.254 for the EC2 tree; it is optional).
        return {}


reader = Reader(sys.argv[1], timeout=10, retries=0)
results = reader.read_v2()
metadata = results['metadata']
print(json.dumps({
    'version': reader._find_working_version(),
    'instance_id': metadata['instance-id'],
    'local_hostname': metadata['local-hostname'],
    'name': metadata['name'],
    'meta': metadata.get('meta'),
    'project_id': metadata.get('project_id'),
    'random_seed_bytes': len(metadata['random_seed']),
    'userdata': base64.b64encode(results['userdata']).decode('ascii'),
    'vendordata': results.get('vendordata'),
    'vendordata_raw': sources.convert_vendordata(results.get('vendordata')),
    'vendordata2': results.get('vendordata2'),
    'network_config': openstack.convert_net_json(
        results.get('networkdata')),
}))
'''


def _has_cloud_init():
    return os.access(SYSTEM_PYTHON, os.X_OK) and subprocess.run(
        [SYSTEM_PYTHON, '-c', 'import cloudinit.sources.helpers.openstack'],
        capture_output=True).returncode == 0


@pytest.fixture(scope='module')
def metadata_with_static_json(stack, tmp_path_factory):
    """A second nova-mini-metadata of the stack, with StaticJSON serving
    STATIC; its URL.
    """
    path = tmp_path_factory.mktemp('vendordata') / 'vendor_data.json'
    path.write_text(json.dumps(STATIC))
    port = util.free_port()
    name = 'nova-mini-metadata-cloud-init-%s' % uuid.uuid4().hex[:6]
    extra = stack.nova.write_extra_config(name, {
        'metadata': {'bind_port': port, 'workers': 1},
        'api': {'vendordata_providers': 'StaticJSON',
                'vendordata_jsonfile_path': str(path)}})
    proc = stack.nova.start(nova.METADATA, name=name, port=port,
                            config_files=[stack.nova.conf_path, extra])
    yield 'http://%s:%d' % (util.LOCALHOST, port)
    stack.nova.stop(proc.name, timeout=30)


def test_cloud_init_reads_the_server(stack, metadata_with_static_json):
    # Not skipped when missing: run-tests.sh installs it, and a silent
    # skip would hide that cloud-init never read the service.
    assert _has_cloud_init(), (
        'Debian\'s cloud-init package is needed (apt-get install '
        'cloud-init)')
    server = helpers.boot(stack, helpers.make_flavor(stack), 'ci-host_1',
                          metadata={'dsmode': 'net', 'role': 'db'},
                          user_data=md.USER_DATA)
    try:
        with md.SigningProxy(metadata_with_static_json,
                             stack.nova.metadata_secret, server['id'],
                             server['tenant_id']) as proxy:
            proc = subprocess.run(
                [SYSTEM_PYTHON, '-c', READER, proxy.url],
                capture_output=True, text=True, timeout=120,
                stdin=subprocess.DEVNULL,
                env={'PATH': '/usr/bin:/bin', 'LANG': 'C.UTF-8'})
        assert proc.returncode == 0, proc.stdout + proc.stderr
        parsed = json.loads(proc.stdout)
    finally:
        helpers.delete(stack, server['id'])

    # cloud-init picks the newest version it knows that the service lists.
    assert parsed['version'] == '2018-08-27'
    assert parsed['instance_id'] == server['id']
    assert parsed['name'] == 'ci-host_1'
    assert parsed['local_hostname'] == 'ci-host-1.novalocal'
    assert parsed['meta'] == {'dsmode': 'net', 'role': 'db'}
    assert parsed['project_id'] == server['tenant_id']
    assert parsed['random_seed_bytes'] == 512
    assert base64.b64decode(parsed['userdata']) == md.USER_DATA
    assert parsed['vendordata'] == STATIC
    assert parsed['vendordata_raw'] == STATIC['cloud-init']
    assert parsed['vendordata2'] == {'static': STATIC}
    assert parsed['network_config'] == {'version': 1, 'config': []}
    # It went through the proxy, file by file.
    for name in ('meta_data.json', 'user_data', 'vendor_data.json',
                 'vendor_data2.json', 'network_data.json'):
        assert '/openstack/2018-08-27/%s' % name in proxy.requests
