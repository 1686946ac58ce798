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

"""nova_mini.deploy stands on its own: importing any of its modules (the
CLI too) loads neither pytest nor anything of nova_mini.tests, so a
deployment without the tests' requirements can run it.
"""

import os
import subprocess
import sys

import nova_mini

MODULES = sorted(
    'nova_mini.deploy.%s' % name[:-3]
    for name in os.listdir(os.path.join(os.path.dirname(nova_mini.__file__),
                                        'deploy'))
    if name.endswith('.py') and name != '__init__.py')

PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
bad = sorted(m for m in sys.modules
             if m == 'pytest' or m.startswith(('nova_mini.tests', '_pytest')))
print('\\n'.join(bad))
"""


def test_deploy_modules_found():
    assert {'nova_mini.deploy.stack', 'nova_mini.deploy.__main__',
            'nova_mini.deploy.service'} <= set(MODULES)


def test_no_test_modules_imported():
    proc = subprocess.run(
        [sys.executable, '-c', PROBE, 'nova_mini.deploy'] + MODULES,
        capture_output=True, text=True, timeout=120,
        cwd=os.path.dirname(os.path.dirname(nova_mini.__file__)))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == '', (
        'nova_mini.deploy loads test-only modules:\n' + proc.stdout)


def test_cli_help():
    proc = subprocess.run(
        [sys.executable, '-m', 'nova_mini.deploy', '--help'],
        capture_output=True, text=True, timeout=120,
        cwd=os.path.dirname(os.path.dirname(nova_mini.__file__)))
    assert proc.returncode == 0, proc.stderr
    for command in ('up', 'down', 'status', 'ensure-rabbitmq',
                    'ensure-keystone-venv', 'ensure-glance-venv'):
        assert command in proc.stdout
