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

"""The quick start as a new user runs it: tools/stack.sh on free ports
with a state directory and RabbitMQ virtual host and user of the test's
own, then the README's first commands exactly as printed there (only
``~/.nova_mini`` replaced by the test's state directory), a second
tools/stack.sh that must not duplicate anything, and tools/unstack.sh.

The deployment venv is the harness cache's ``quickstart-venv``, built by
stack.sh's own install step (ensure_venv with tools/lib.sh's
STACK_PIP_ARGS): by stack.sh itself on a first run (a few minutes more),
or, in a whole run of tools/run-tests.sh, by that script during its set-up
beside its other steps, so that stack.sh finds it up to date here.
"""

import json
import os
import re
import subprocess
import uuid

import pytest

from nova_mini_deploy import rabbitmq
from nova_mini_deploy import util
from nova_mini_deploy import venvs


# stack.sh builds its venv on the first run (minutes): a time limit above
# setup.cfg's default (300 s) for each test.
pytestmark = [pytest.mark.live, pytest.mark.timeout(1800)]

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
MARK = '=== next command ==='
# The commands of the redfish nodes, after the first ones.
REDFISH_BLOCK = 'openstack baremetal node power on rf-0'


def _first_commands(text, fence, holding='openstack baremetal node list'):
    """The commands of the first code block of ``text`` that holds
    ``holding`` (comments dropped).
    """
    if fence == 'md':
        blocks = re.findall(r'```console\n(.*?)```', text, re.S)
    else:
        blocks = re.findall(r'::\n\n((?:    .*\n|\n)+)', text)
    block = next(b for b in blocks if holding in b)
    commands = [line.strip().split('  #')[0].strip()
                for line in block.splitlines()]
    return [c for c in commands if c]


def _read(path):
    with open(os.path.join(REPO, path)) as f:
        return f.read()


def _run(argv, env, timeout=900):
    """Run ``argv`` in the repository; its standard output and error
    (stack.sh logs its steps on the latter).
    """
    proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return proc.stdout, proc.stderr


def test_readme_and_quickstart_page_show_the_same_commands():
    readme = _first_commands(_read('README.md'), 'md')
    page = _first_commands(_read('doc/source/admin/quickstart.rst'), 'rst')
    assert readme == page
    assert readme[1] == 'openstack baremetal node list'
    assert any(c.startswith('openstack server create ') for c in readme)
    readme = _first_commands(_read('README.md'), 'md', REDFISH_BLOCK)
    page = _first_commands(_read('doc/source/admin/quickstart.rst'), 'rst',
                           REDFISH_BLOCK)
    assert readme == page
    assert any('--flavor bm.redfish' in c for c in readme)


def test_quickstart_commands_work_as_printed(tmp_path):
    state = str(tmp_path / 'state')
    suffix = uuid.uuid4().hex[:8]
    vhost, rabbit_user = 'nova_mini_qs_' + suffix, 'nova_mini_qs_' + suffix
    env = util.clean_env(
        NOVA_MINI_STATE=state,
        NOVA_MINI_VENV=os.path.join(venvs.cache_dir(), 'quickstart-venv'),
        NOVA_MINI_LAUNCHER='process',
        NOVA_MINI_RABBIT_VHOST=vhost, NOVA_MINI_RABBIT_USER=rabbit_user,
        **{'NOVA_MINI_%s_PORT' % name: str(util.free_port())
           for name in ('API', 'METADATA', 'KEYSTONE', 'GLANCE',
                        'VENDORDATA_SAMPLE', 'REDFISH')})
    for name in ('VIRTUAL_ENV', 'PYTHONPATH', 'PYTHONHOME'):
        env.pop(name, None)     # the test venv's: not the deployment's
    broker = rabbitmq.RabbitMQ()
    try:
        printed = _run(['tools/stack.sh'], env)[0]
        api = 'http://127.0.0.1:%s' % env['NOVA_MINI_API_PORT']
        metadata = env['NOVA_MINI_METADATA_PORT']
        for line in ('%s/compute/v2.1' % api, '%s/baremetal' % api,
                     '127.0.0.1:%s/openstack' % metadata,
                     '127.0.0.1:%s' % env['NOVA_MINI_GLANCE_PORT'],
                     '127.0.0.1:%s/v3' % env['NOVA_MINI_KEYSTONE_PORT'],
                     'virtual host %s, user %s' % (vhost, rabbit_user),
                     os.path.join(state, 'openrc')):
            assert line in printed
        assert vhost in broker.virtual_host_names()
        assert rabbit_user in broker.user_names()
        with open(os.path.join(state, 'stack.json')) as f:
            record = json.load(f)
        assert record['transport_url'] == (
            'rabbit://%s:%s@127.0.0.1:5672/%s'
            % (rabbit_user, record['passwords']['rabbit'], vhost))

        commands = [c.replace('~/.nova_mini', state) for c in
                    _first_commands(_read('README.md'), 'md')]
        script = ('set -euo pipefail\n' + commands[0] + '\n' + ''.join(
            "echo '%s'\n%s\n" % (MARK, c) for c in commands[1:]))
        outputs = _run(['bash', '-c', script], env)[0].split(
            MARK + '\n')[1:]
        by_command = dict(zip(commands[1:], outputs))

        nodes = by_command['openstack baremetal node list']
        for name in ('bm-0', 'bm-1', 'bm-gpu-0', 'rf-0', 'rf-1', 'rf-2',
                     'rf-3'):
            assert ' %s ' % name in nodes
        assert nodes.count('available') == 7
        assert 'bm.gpu' in by_command['openstack flavor list']
        create = next(c for c in commands if c.startswith(
            'openstack server create'))
        assert re.search(r'\| status\s+\| ACTIVE', by_command[create])
        server_id = re.search(r'\| id\s+\| ([0-9a-f-]{36})',
                              by_command[create]).group(1)
        show = next(c for c in commands if 'metadata show x' in c)
        vendordata = json.loads(by_command[show])
        assert vendordata['sample']['hostname'] == 'x'
        assert vendordata['sample']['instance-id'] == server_id
        assert vendordata['static']['cloud-name'] == 'nova_mini'

        source = commands[0]
        # The redfish nodes: a real Redfish conversation with the emulator.
        redfish = [c.replace('~/.nova_mini', state) for c in
                   _first_commands(_read('README.md'), 'md', REDFISH_BLOCK)]
        script = ('set -euo pipefail\n' + source + '\n' + ''.join(
            "echo '%s'\n%s\n" % (MARK, c) for c in redfish))
        outputs = _run(['bash', '-c', script], env)[0].split(
            MARK + '\n')[1:]
        by_command = dict(zip(redfish, outputs))
        show = next(c for c in redfish if 'node show rf-0' in c)
        # The power change is asynchronous (Ironic's 202): on, or on its way.
        assert re.search(r'\| power_state\s+\| power (on|off)',
                         by_command[show]), by_command[show]
        create = next(c for c in redfish if c.startswith(
            'openstack server create'))
        assert re.search(r'\| status\s+\| ACTIVE', by_command[create])
        emulator_log = os.path.join(state, 'redfish', 'sushy-emulator.log')
        for request in ('ComputerSystem.Reset', 'VirtualMedia/Cd/Actions/'
                        'VirtualMedia.InsertMedia',
                        'VirtualMedia/Cd/Actions/VirtualMedia.EjectMedia'):
            # The node's tear down (power off, eject) follows the server's
            # deletion.
            util.wait_until(lambda: request in _read(emulator_log), 60,
                            '%s in the emulator log' % request)
        with open(os.path.join(state, 'stack.json')) as f:
            assert 'redfish' in json.load(f)['ports']

        placed = _run(['bash', '-c', source + ' && openstack baremetal node '
                       'show bm-gpu-0 -f value -c instance_uuid'], env)[0]
        assert placed.strip() == server_id

        # Again: nothing new, the server's node untouched.
        again_printed, again = _run(['tools/stack.sh'], env)
        assert 'node bm-gpu-0: exists' in again
        assert 'flavor bm.gpu: exists' in again
        listed = _run(['bash', '-c', source + ' && openstack baremetal node '
                       'list -f json && openstack flavor list -f json'],
                      env)[0]
        assert ': created' not in again
        assert listed.count('"name": "bm-') == 3
        assert listed.count('"name": "rf-') == 4
        assert listed.count('"Name": "bm.') == 3
        # (nova_mini_deploy's lines are on the standard output)
        assert 'node rf-0: exists (available)' in again_printed
    finally:
        _run(['tools/unstack.sh'], env, timeout=300)
    assert vhost not in broker.virtual_host_names()
    assert rabbit_user not in broker.user_names()
