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

"""nova_mini_deploy.util.as_root: the commands that need root (rabbitmqctl,
rabbitmq-server, pg_ctlcluster, psql as postgres) run as they are for root
and through ``sudo -n`` for anyone else, as the README's quick start
promises ("as root, or with sudo").
"""

import os
import shutil
import subprocess
import sys
import tempfile

from nova_mini_deploy import util

# as_root's answer for ['id', '-u'], printed by an unprivileged process;
# argv[1]: the directory of util.py.
_AS_ROOT = """
import sys
sys.path.insert(0, sys.argv[1])
import util
try:
    print(util.as_root(['id', '-u']))
except util.ServiceError as exc:
    print('ServiceError: %s' % exc)
"""


def _unprivileged(path):
    """Run _AS_ROOT as the user nobody (as the current user when that is
    not root), with ``path`` as PATH; its output.

    nobody may not read the venv or the checkout (tox keeps its venvs in
    a directory of root's only): it runs the Python the venv was made from
    on a copy of util.py (which imports the standard library only).
    """
    work = tempfile.mkdtemp()
    try:
        shutil.copy(util.__file__, os.path.join(work, 'util.py'))
        os.chmod(os.path.join(work, 'util.py'), 0o644)
        os.chmod(work, 0o755)
        argv = [os.path.realpath(sys.executable), '-I', '-c', _AS_ROOT,
                work]
        if os.geteuid() == 0:
            argv = [shutil.which('setpriv'), '--reuid=nobody',
                    '--regid=nogroup', '--clear-groups'] + argv
        proc = subprocess.run(argv, env={'PATH': path}, cwd='/',
                              capture_output=True, text=True, timeout=60)
    finally:
        shutil.rmtree(work)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_root_command_runs_as_root():
    proc = subprocess.run(util.as_root(['id', '-u']), capture_output=True,
                          text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == '0\n'


def test_root_runs_it_as_it_is():
    argv = util.as_root(['id', 7])
    if os.geteuid() == 0:
        assert argv == ['id', '7']
    else:
        assert argv == [shutil.which('sudo'), '-n', 'id', '7']


def test_another_user_goes_through_sudo():
    sudo = shutil.which('sudo')
    assert sudo, 'sudo is not installed (apt-get install sudo)'
    path = os.path.dirname(sudo) + ':/usr/bin:/bin'
    assert _unprivileged(path) == str([sudo, '-n', 'id', '-u'])


def test_another_user_without_sudo_is_told_what_to_do(tmp_path):
    assert _unprivileged(str(tmp_path)) == (
        'ServiceError: id needs root: run as root, or install sudo')
