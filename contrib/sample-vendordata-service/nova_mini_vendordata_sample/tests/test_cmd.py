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

"""nova-mini-vendordata-sample as a daemon: READY=1 on a real notify
socket, real HTTP through gunicorn, a clean exit on SIGTERM, one clear
line on a bad config; and its sample config file kept current."""

import json
import os
import subprocess
import sys
import tempfile
import urllib.request
import uuid

import pytest

from nova_mini_deploy import util
import nova_mini_vendordata_sample

# contrib/sample-vendordata-service/: the distribution's own directory.
DIST = os.path.dirname(os.path.dirname(os.path.abspath(
    nova_mini_vendordata_sample.__file__)))
BIN = os.path.dirname(sys.executable)
SCRIPT = os.path.join(BIN, 'nova-mini-vendordata-sample')


def _write(path, text):
    with open(path, 'w') as f:
        f.write(text)
    return path


def test_sample_config_file_is_current(tmp_path):
    output = tmp_path / 'vendordata-sample.conf.sample'
    result = subprocess.run(
        [os.path.join(BIN, 'oslo-config-generator'), '--config-file',
         os.path.join('etc', 'vendordata-sample-config-generator.conf'),
         '--output-file', str(output)],
        cwd=DIST, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    generated = output.read_text()
    for line in ('[vendordata_sample]', '#allowed_roles = admin,service',
                 '#cache_max_age = 300', '#response_delay = 0.0',
                 '[keystone_authtoken]'):
        assert line in generated
    with open(os.path.join(DIST, 'etc',
                           'vendordata-sample.conf.sample')) as f:
        assert f.read() == generated, (
            'contrib/sample-vendordata-service/etc/'
            'vendordata-sample.conf.sample is out of date: run tox -e '
            'genconfig')


@pytest.mark.parametrize('text, message', [
    ('[vendordata_sample]\ncache_max_age = -1\n',
     'configuration error: '),
    ('[vendordata_sample]\nauth_strategy = none\n',
     'configuration error: '),
])
def test_bad_config_is_one_line_and_exit_1(tmp_path, text, message):
    path = _write(str(tmp_path / 'sample.conf'), text)
    result = subprocess.run([SCRIPT, '--config-file', path],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.startswith(
        'nova-mini-vendordata-sample: ' + message), result.stderr
    assert 'Traceback' not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_daemon_serves_and_stops_cleanly(tmp_path):
    port = util.free_port()
    path = _write(str(tmp_path / 'sample.conf'), '\n'.join([
        '[vendordata_sample]', 'auth_strategy = noauth',
        'bind_port = %d' % port, 'cache_max_age = 42', 'workers = 2',
        'join_secret = abc', '']))
    notify_dir = tempfile.mkdtemp(prefix='nm-')     # short AF_UNIX path
    proc = util.Process(
        'sample', [SCRIPT, '--config-file', path],
        str(tmp_path / 'sample.log'),
        notify_path=os.path.join(notify_dir, 'notify'))
    proc.start(ready_timeout=60)
    try:
        instance = str(uuid.uuid4())
        req = urllib.request.Request(
            'http://127.0.0.1:%d/' % port, method='POST',
            data=json.dumps({'instance-id': instance,
                             'project-id': 'p1'}).encode(),
            headers={'Content-Type': 'application/json'})
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.headers['Cache-Control'] == 'max-age=42'
            assert json.load(resp)['instance-id'] == instance
        with urllib.request.urlopen('http://127.0.0.1:%d/healthcheck'
                                    % port, timeout=30) as resp:
            assert resp.read() == b'OK'
    finally:
        code = proc.stop(timeout=30)
        os.rmdir(notify_dir)
    assert code == 0
    assert 'STOPPING=1' in proc.notify.messages
    log = util.tail(str(tmp_path / 'sample.log'), 100)
    assert 'auth_strategy = noauth' in log
    assert 'Vendordata of instance %s (project p1) for noauth: 200' % (
        instance) in log
