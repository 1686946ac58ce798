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

"""Stack.openstack's runner (nova_mini_deploy.openstack_runner) answers
what the real ``openstack`` executable does, started anew per command:
the same exit status, stdout and stderr, for commands that succeed, that
the API refuses (404, 400), and that argparse refuses (exit 2); and a
command that hangs ends at its timeout, the next one on a new runner.
"""

import re
import socket
import subprocess
import uuid

import pytest

from nova_mini_deploy import nova
from nova_mini_deploy import openstack_runner
from nova_mini_deploy import util


pytestmark = pytest.mark.live

MISSING = str(uuid.uuid4())


def _same_text(text):
    # Request ids differ between any two calls.
    return re.sub(r'req-[0-9a-f-]{36}', 'req-ID', text)


@pytest.mark.parametrize('user, args, status', [
    ('admin', ['endpoint', 'list', '--service', 'compute', '-f', 'json'],
     0),
    ('demo', ['flavor', 'list'], 0),
    ('admin', ['flavor', 'show', 'no-such-flavor-' + MISSING], 1),
    ('admin', ['baremetal', 'node', 'show', MISSING], 1),
    ('admin', ['flavor', 'create', '--ram', '512', '--vcpus', '0',
               'no-vcpus-' + MISSING], 1),
    ('demo', ['flavor', 'list', '--no-such-option'], 2),
    ('admin', ['no', 'such', 'command'], 2),
], ids=['success', 'success-demo', 'not-found', 'api-404', 'api-400',
        'bad-argument', 'bad-command'])
def test_runner_answers_as_the_executable(stack, user, args, status):
    ran = stack.openstack(*args, user=user, check=False)
    real = openstack_runner.run_process(
        nova.script('openstack'), args,
        util.clean_env(**stack.credentials(user)), timeout=120)
    assert real.returncode == status, real
    assert ran.returncode == real.returncode
    assert _same_text(ran.stdout) == _same_text(real.stdout)
    assert _same_text(ran.stderr) == _same_text(real.stderr)
    assert ran.stdout or ran.stderr


def test_an_api_version_given_once_is_not_kept(stack):
    # python-ironicclient turns off version negotiation in its plugin
    # module for the rest of the process when a command names a version:
    # the next command without one must still negotiate, as a new process.
    stack.openstack('baremetal', '--os-baremetal-api-version', '1.37',
                    'node', 'list')
    ran = stack.openstack('baremetal', 'node', 'show', MISSING, check=False)
    assert ran.returncode == 1
    assert 'could not be found. (HTTP 404)' in ran.stderr, ran.stderr


def test_runner_keeps_users_apart(stack):
    # Each command authenticates as its own user: no client of the
    # previous command's is reused.
    for user in ('admin', 'demo', 'admin', 'demo'):
        proc = stack.openstack('flavor', 'create', '--ram', '512',
                               '--vcpus', '1', 'users-' + MISSING,
                               user=user, check=False)
        if user == 'admin':
            assert proc.returncode == 0, proc
            stack.openstack('flavor', 'delete', 'users-' + MISSING)
        else:
            assert proc.returncode == 1
            assert 'ForbiddenException: 403' in proc.stderr


def test_hung_command_ends_at_its_timeout(tmp_path):
    # Keystone that accepts the connection and never answers.
    with socket.socket() as silent:
        silent.bind((util.LOCALHOST, 0))
        silent.listen(8)
        env = util.clean_env(
            OS_AUTH_URL='http://%s:%d/v3' % silent.getsockname(),
            OS_IDENTITY_API_VERSION='3', OS_AUTH_TYPE='password',
            OS_USERNAME='nobody', OS_PASSWORD='secret',
            OS_PROJECT_NAME='none', OS_USER_DOMAIN_NAME='Default',
            OS_PROJECT_DOMAIN_NAME='Default')
        pool = openstack_runner.Pool(nova.script('openstack'))
        try:
            with pytest.raises(subprocess.TimeoutExpired):
                pool.run(['flavor', 'list'], env, timeout=5)
            version = pool.run(['--version'], env, timeout=120)
        finally:
            pool.close()
    assert version.returncode == 0
    assert version.stdout.startswith('openstack ')
