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

"""The images web server of the installer (images-server-up/-down):
gunicorn serving a directory, left running by ``up``, stopped by
``down``.
"""

import configparser
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

from nova_mini_deploy import images_server
from nova_mini_deploy import stack
from nova_mini_deploy import util


def _cli(*args):
    return subprocess.run([sys.executable, '-m', 'nova_mini_deploy'] +
                          list(args), capture_output=True, text=True,
                          timeout=120, cwd='/')


def _status(url, **headers):
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, b''


def test_up_serves_the_directory_and_down_stops_it(tmp_path):
    root = tmp_path / 'httpboot'
    (root / 'redfish').mkdir(parents=True)
    (root / 'redfish' / 'boot-x.iso').write_bytes(bytes(range(256)) * 16)
    state = str(tmp_path / 'state')
    proc = _cli('images-server-up', '--state-dir', state,
                '--http-root', str(root))
    assert proc.returncode == 0, proc.stderr
    info = json.loads(proc.stdout)
    url = info['http_url']
    try:
        assert _status(url + '/redfish/boot-x.iso', Range='bytes=0-255') \
            == (206, bytes(range(256)))
        assert _status(url + '/redfish/')[0] == 404
        # Running: a second up of the state directory is refused.
        again = _cli('images-server-up', '--state-dir', state,
                     '--http-root', str(root))
        assert again.returncode != 0
        assert 'images-server-down first' in again.stderr
    finally:
        down = _cli('images-server-down', '--state-dir', state)
    assert down.returncode == 0, down.stderr
    assert 'stopped' in down.stdout
    port = int(url.rsplit(':', 1)[1])
    assert not util.port_open(util.LOCALHOST, port)
    assert not os.path.exists(os.path.join(state, 'nova-mini-images.pid')) \
        or not util.pid_alive(info['pid'])
    assert 'nothing was running' in _cli(
        'images-server-down', '--state-dir', state).stdout


def test_the_stack_configures_the_conductors_http_root(tmp_path):
    st = stack.Stack(str(tmp_path), api_port=10001, metadata_port=10002,
                     keystone_port=10003, images_port=10005)
    st._save_record()
    st.nova.write_config()
    conf = configparser.ConfigParser()
    conf.read(st.nova.conf_path)
    deploy = conf['deploy']
    assert {name: deploy[name] for name in (
        'http_root', 'http_url', 'iso_master_path')} == {
        'http_root': str(tmp_path / 'httpboot'),
        'http_url': 'http://127.0.0.1:10005',
        'iso_master_path': str(tmp_path / 'master_iso_images')}
    # A later run (stack.sh again, unstack.sh) finds its port again.
    again = stack.Stack(str(tmp_path))
    assert again.images_server.url == 'http://127.0.0.1:10005'
    assert again.status()[images_server.NAME] is None
