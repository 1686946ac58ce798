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

"""nova-mini-manage metadata show --config-drive, run as operators run it
(its ``main`` in process, the console script itself for bytes that are
no text; a config file, a database made by ``db sync``): the
drive is what the node stores, written by the config drive's own ISO
writer; the live tests read one a deploy built.
"""

import gzip
import io
import json
import subprocess
import uuid

import pycdlib
import pytest

from nova_mini.cmd import manage_config_drive
from nova_mini.configdrive import iso
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import console_scripts
from nova_mini.tests.unit.extra_specs_tools import test_manage as tm

META = {'uuid': 'set-by-the-test', 'name': 'web-1', 'meta': {'a': 'b'}}
FILES = {
    'openstack/2012-08-10/meta_data.json': json.dumps(META).encode(),
    'openstack/latest/meta_data.json': json.dumps(META).encode(),
    'openstack/latest/user_data': b'#!/bin/sh\necho hi',
    'openstack/latest/vendor_data2.json': b'{"static": {"k": 1}}',
}


@pytest.fixture
def deployment(tmp_path):
    """(config file, make): ``make(instance_info, on_node=True)`` gives an
    instance named web-1 on a node with that instance_info.
    """
    with console_scripts.synced_database(tmp_path) as config_file:
        admin = nm_context.get_admin_context()
        flavor = objects.Flavor(
            admin, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
            root_gb=10, ephemeral_gb=0, swap=0, is_public=True,
            disabled=False, description=None, extra_specs={})

        def make(instance_info, on_node=True):
            node_uuid = None
            if on_node:
                node = objects.Node(admin, name='n-%s' % uuid.uuid4().hex,
                                    driver='fake-hardware',
                                    instance_info=instance_info)
                node.create()
                node_uuid = node.uuid
            instance = objects.Instance(
                admin, uuid=str(uuid.uuid4()), name='web-1',
                project_id='p1', user_id='u1', flavor=flavor,
                image_ref='img', vm_state='active', node_uuid=node_uuid,
                fault=None, metadata={}, user_data=None, launch_index=0,
                boot_roles=[])
            instance.create()
            return instance
        yield config_file, make


def _drive(files=FILES):
    return {'configdrive': iso.encode(iso.build(files))}


def _show(config_file, server, *args):
    return tm.manage('metadata', 'show', server, '--config-drive', *args,
                     config_file=config_file)


def test_lists_the_files(deployment):
    config_file, make = deployment
    make(_drive())
    shown = _show(config_file, 'web-1')
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == ''.join(
        '%s\n' % path for path in sorted(FILES))


@pytest.mark.parametrize('path', [
    'openstack/latest/meta_data.json', '/openstack/latest/meta_data.json',
    'latest/meta_data.json'])
def test_prints_a_json_file(deployment, path):
    config_file, make = deployment
    instance = make(_drive())
    shown = _show(config_file, instance.uuid, '--path', path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == json.dumps(META, indent=2, sort_keys=True) + '\n'


def test_prints_other_files_as_they_are(deployment):
    config_file, make = deployment
    packed = gzip.compress(b'#cloud-config\n')
    instance = make(_drive(dict(FILES, **{
        'openstack/2012-08-10/user_data': packed})))
    shown = _show(config_file, instance.uuid, '--path', 'latest/user_data')
    assert (shown.returncode, shown.stdout) == (0, '#!/bin/sh\necho hi\n')
    # Bytes that are no text are written unchanged.
    shown = subprocess.run(
        [console_scripts.script('nova-mini-manage'), '--config-file',
         str(config_file), 'metadata', 'show', instance.uuid,
         '--config-drive', '--path', '2012-08-10/user_data'],
        capture_output=True, timeout=120)
    assert (shown.returncode, shown.stdout) == (0, packed), shown.stderr


@pytest.mark.parametrize('instance_info, expected', [
    ({}, 'Server {server} has no config drive (node {node}).'),
    ({'configdrive': 'https://drives.example/d.iso'},
     'The config drive of server {server} (node {node}) is given as a URL, '
     'not stored: https://drives.example/d.iso'),
    ({'configdrive': 'bm90IGd6aXA='},
     'The config drive of server {server} (node {node}) cannot be read: '
     'Invalid config drive: not gzip'),
    ({'configdrive': iso.encode(b'not an image')},
     'The config drive is not an ISO 9660 image'),
])
def test_a_node_without_a_readable_drive(deployment, instance_info,
                                         expected):
    config_file, make = deployment
    instance = make(instance_info)
    shown = _show(config_file, instance.uuid)
    assert (shown.returncode, shown.stdout) == (1, '')
    assert shown.stderr.startswith(expected.format(
        server=instance.uuid, node=instance.node_uuid)), shown.stderr


def test_a_server_on_no_node_and_a_missing_file(deployment):
    config_file, make = deployment
    instance = make(None, on_node=False)
    shown = _show(config_file, instance.uuid)
    assert (shown.returncode, shown.stderr) == (
        1, 'Server %s is on no node: it has no config drive.\n'
        % instance.uuid)
    instance = make(_drive())
    shown = _show(config_file, instance.uuid, '--path', 'latest/nothing')
    assert (shown.returncode, shown.stdout, shown.stderr) == (
        1, '', 'No file latest/nothing on the config drive of server %s '
               '(4 files: list them without --path).\n' % instance.uuid)


def _image(**kinds):
    """A one-file image with the name kinds given (rock_ridge, joliet)."""
    image = pycdlib.PyCdlib()
    image.new(interchange_level=3, vol_ident='config-2', **kinds)
    image.add_directory('/OPENSTAC', **(
        {'rr_name': 'openstack'} if 'rock_ridge' in kinds else {}), **(
        {'joliet_path': '/openstack'} if 'joliet' in kinds else {}))
    extra = {}
    if 'rock_ridge' in kinds:
        extra['rr_name'] = 'meta_data.json'
    if 'joliet' in kinds:
        extra['joliet_path'] = '/openstack/meta_data.json'
    image.add_fp(io.BytesIO(b'{}'), 2, '/OPENSTAC/META_DAT.JSO;1', **extra)
    out = io.BytesIO()
    image.write_fp(out)
    image.close()
    return out.getvalue()


@pytest.mark.parametrize('kinds, path', [
    ({'rock_ridge': '1.09', 'joliet': 3}, 'openstack/meta_data.json'),
    ({'joliet': 3}, 'openstack/meta_data.json'),
    ({}, 'OPENSTAC/META_DAT.JSO'),
])
def test_read_image_names(kinds, path):
    assert manage_config_drive.read_image(_image(**kinds)) == {path: b'{}'}
