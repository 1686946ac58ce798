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

"""The stack's nova-mini-conductor and Redfish emulator, as configured and
recorded (the live stack and the quick start test run them).
"""

import configparser
import io
import json
import os

import pycdlib

from nova_mini_deploy import nova
from nova_mini_deploy import redfish_emulator
from nova_mini_deploy import redfish_nodes
from nova_mini_deploy import stack


def _ini(path):
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(path)
    return parser


def test_the_conductor_reads_a_host_of_its_own(tmp_path):
    st = stack.Stack(str(tmp_path), host='node-7')
    st.nova.write_config()
    assert nova.CONDUCTOR in nova.DAEMONS
    files = st.nova.config_files(nova.CONDUCTOR)
    assert files == [st.nova.conf_path, st.nova.conductor_conf_path]
    assert _ini(files[0])['DEFAULT']['host'] == 'node-7'
    assert _ini(files[1])['DEFAULT']['host'] == 'node-7-conductor'
    assert st.nova.config_files(nova.API) == [st.nova.conf_path]
    argv = st.nova.daemon(nova.CONDUCTOR).argv
    assert argv[1:] == ['--config-file', files[0], '--config-file',
                        files[1]]
    # Without an emulator asked for: none.
    assert st.redfish is None
    assert redfish_emulator.NAME not in st.status()


def test_the_emulator_is_recorded_and_kept(tmp_path):
    st = stack.Stack(str(tmp_path), redfish_systems=3, redfish_port=18000)
    assert (st.redfish.port, len(st.redfish.systems)) == (18000, 3)
    assert st.redfish.tls
    assert st.redfish.auth == ('nova-mini-bmc', st.passwords['redfish'])
    assert st.redfish.keep_state
    st._save_record()
    with open(os.path.join(str(tmp_path), 'stack.json')) as f:
        record = json.load(f)
    assert record['redfish_systems'] == 3
    assert record['ports']['redfish'] == 18000
    assert record['redfish_url'] == 'https://127.0.0.1:18000'
    assert st.status()[redfish_emulator.NAME] is None
    # A later run of the state directory (down, enroll-redfish) finds it,
    # with its CA once one was made.
    (tmp_path / 'redfish').mkdir()
    (tmp_path / 'redfish' / 'ca.pem').write_text('CA')
    again = stack.Stack(str(tmp_path))
    assert (again.redfish.port, len(again.redfish.systems)) == (18000, 3)
    assert again.redfish.auth == st.redfish.auth
    assert again.redfish.ca_file == str(tmp_path / 'redfish' / 'ca.pem')
    info = redfish_nodes.driver_info(again.redfish, again.redfish.systems[2])
    assert info == {
        'redfish_address': 'https://127.0.0.1:18000',
        'redfish_system_id': again.redfish.systems[2]['system_id'],
        'redfish_username': 'nova-mini-bmc',
        'redfish_password': st.passwords['redfish'],
        'redfish_verify_ca': str(tmp_path / 'redfish' / 'ca.pem')}


def test_the_boot_iso_is_iso_9660():
    data = redfish_nodes.boot_iso()
    assert data[0x8001:0x8006] == b'CD001'
    image = pycdlib.PyCdlib()
    image.open_fp(io.BytesIO(data))
    try:
        out = io.BytesIO()
        image.get_file_from_iso_fp(out, iso_path='/README.TXT;1')
        assert out.getvalue() == b'nova_mini boot image\n'
    finally:
        image.close()
