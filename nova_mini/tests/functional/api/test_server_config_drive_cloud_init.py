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

"""cloud-init reads the config drive a node received: Debian's cloud-init
package (run by the system Python 3 where Debian installs it) finds the
image by its label as its ConfigDrive datasource does (blkid,
``LABEL=config-2``), and its ConfigDrive reader parses the drive's tree:
mounted where the machine can mount an ISO 9660 loop device, else
extracted by its Rock Ridge names, as the kernel shows them. It must find
the server's instance id, name, metadata, user data, and the vendordata
of StaticJSON and of a DynamicJSON target (called with the service
token).

cloud-init is not on PyPI: tools/run-tests.sh installs the Debian package.
"""

import base64
import contextlib
import io
import json
import os
import subprocess

import pycdlib

from nova_mini.configdrive import iso
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.functional.api import test_server_config_drive as drive

SYSTEM_PYTHON = '/usr/bin/python3'
STATIC = {'cloud-init': '#cloud-config\nruncmd: [[touch, /tmp/vendor]]\n',
          'site': {'ntp': ['10.0.0.1']}}
TOKEN = 'vendordata-service-token'

# The fixtures of the config drive's API tests.
glance = drive.glance
make_stack = drive.make_stack

# Run by the system Python: argv is the image's path and the drive's
# root; prints what cloud-init found, as JSON.
READER = r'''
import base64
import json
import sys

from cloudinit import sources
from cloudinit import util
from cloudinit.sources import DataSourceConfigDrive as ds
from cloudinit.sources.helpers import openstack

image, root = sys.argv[1:]
results = ds.read_config_drive(root)
metadata = results['metadata']
print(json.dumps({
    'by_label': util.find_devs_with('LABEL=config-2', path=image),
    'by_type': util.find_devs_with('TYPE=iso9660', path=image),
    'version': openstack.ConfigDriveReader(root)._find_working_version(),
    'instance_id': metadata['instance-id'],
    'local_hostname': metadata['local-hostname'],
    'name': metadata['name'],
    'meta': metadata.get('meta'),
    'public_keys': metadata.get('public_keys'),
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
        [SYSTEM_PYTHON, '-c',
         'import cloudinit.sources.DataSourceConfigDrive'],
        capture_output=True).returncode == 0


def _extract(image_path, root):
    reader = pycdlib.PyCdlib()
    reader.open(image_path)
    try:
        for directory, _dirs, names in reader.walk(rr_path='/'):
            os.makedirs(root + directory, exist_ok=True)
            for name in names:
                path = '%s/%s' % (directory.rstrip('/'), name)
                out = io.BytesIO()
                reader.get_file_from_iso_fp(out, rr_path=path)
                with open(root + path, 'wb') as target:
                    target.write(out.getvalue())
    finally:
        reader.close()


@contextlib.contextmanager
def _drive_root(image_path, root):
    """The drive as the instance sees it: a read-only loop mount where
    the machine allows it (root, loop devices, the iso9660 module), else
    its extracted tree.
    """
    os.makedirs(root)
    mounted = os.geteuid() == 0 and subprocess.run(
        ['mount', '-t', 'iso9660', '-o', 'loop,ro', image_path, root],
        capture_output=True).returncode == 0
    try:
        if not mounted:
            _extract(image_path, root)
        yield root
    finally:
        if mounted:
            subprocess.run(['umount', root], check=True)


def test_cloud_init_reads_the_drive(make_stack, tmp_path):
    # Not skipped when missing: run-tests.sh installs it, and a silent
    # skip would hide that cloud-init never read a drive.
    assert _has_cloud_init(), (
        'Debian\'s cloud-init package is needed (apt-get install '
        'cloud-init)')
    static = tmp_path / 'vendor_data.json'
    static.write_text(json.dumps(STATIC))

    def target_reply(request):
        if request.headers['X-Auth-Token'] != TOKEN:
            return http_servers.json_reply({}, status=401)
        body = json.loads(request.body)
        return http_servers.json_reply({'instance': body['instance-id'],
                                        'image': body['image-id']})
    target = http_servers.ReplyServer(target_reply)
    target.setUp()
    try:
        app, node = make_stack(**{
            'api.vendordata_providers': ['StaticJSON', 'DynamicJSON'],
            'api.vendordata_jsonfile_path': str(static),
            'api.vendordata_dynamic_targets': ['sample@' + target.url],
            'vendordata_dynamic_auth.auth_type': 'admin_token',
            'vendordata_dynamic_auth.token': TOKEN,
            'vendordata_dynamic_auth.endpoint': 'http://127.0.0.1:1/'},
            register_auth_plugin='admin_token')
        created = drive._boot(
            app, name='ci-host_1', config_drive=True,
            metadata={'dsmode': 'local', 'role': 'db'},
            user_data=base64.b64encode(drive.USER_DATA).decode())
        assert drive._wait(app, created['id'])['status'] == 'ACTIVE'
    finally:
        target.cleanUp()
    image_path = str(tmp_path / 'config-2.iso')
    with open(image_path, 'wb') as image:
        image.write(iso.decode(drive._stored_drive(node)))

    with _drive_root(image_path, str(tmp_path / 'drive')) as root:
        proc = subprocess.run(
            [SYSTEM_PYTHON, '-c', READER, image_path, root],
            capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL,
            env={'PATH': '/usr/bin:/bin:/usr/sbin:/sbin',
                 'LANG': 'C.UTF-8'})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    parsed = json.loads(proc.stdout)

    assert parsed['by_label'] == [image_path]
    assert parsed['by_type'] == [image_path]
    # The newest version this cloud-init knows that the drive has.
    assert parsed['version'] == '2018-08-27'
    assert parsed['instance_id'] == created['id']
    assert parsed['name'] == 'ci-host_1'
    assert parsed['local_hostname'] == 'ci-host-1.novalocal'
    assert parsed['meta'] == {'dsmode': 'local', 'role': 'db'}
    assert base64.b64decode(parsed['userdata']) == drive.USER_DATA
    assert parsed['vendordata'] == STATIC
    assert parsed['vendordata_raw'] == STATIC['cloud-init']
    assert parsed['vendordata2'] == {
        'static': STATIC,
        'sample': {'instance': created['id'], 'image': drive.PLAIN}}
    assert parsed['network_config']['version'] == 1
