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

"""nova_mini_deploy stands on its own: importing any of its modules (the
CLI too) loads neither pytest nor anything of nova_mini (the runtime it
deploys, which it runs as the venv's scripts), so a deployment without
the tests' requirements can run it; and the installed distribution
answers ``python -m nova_mini_deploy`` from any directory.
"""

import os
import subprocess
import sys

import nova_mini_deploy

PACKAGE = os.path.dirname(nova_mini_deploy.__file__)
MODULES = sorted(
    'nova_mini_deploy.%s' % name[:-3] for name in os.listdir(PACKAGE)
    if name.endswith('.py') and name != '__init__.py')

PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
bad = sorted(m for m in sys.modules
             if m in ('pytest', 'nova_mini') or m.startswith(
                 ('nova_mini.', 'nova_mini_deploy.tests', '_pytest')))
print('\\n'.join(bad))
"""


def test_deploy_modules_found():
    assert {'nova_mini_deploy.stack', 'nova_mini_deploy.__main__',
            'nova_mini_deploy.service'} <= set(MODULES)


def test_no_test_modules_imported():
    proc = subprocess.run(
        [sys.executable, '-c', PROBE, 'nova_mini_deploy'] + MODULES,
        capture_output=True, text=True, timeout=120,
        cwd=os.path.dirname(PACKAGE))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == '', (
        'nova_mini_deploy loads test-only or runtime modules:\n'
        + proc.stdout)


def test_cli_help():
    proc = subprocess.run(
        [sys.executable, '-m', 'nova_mini_deploy', '--help'],
        capture_output=True, text=True, timeout=120, cwd='/')
    assert proc.returncode == 0, proc.stderr
    for command in ('up', 'down', 'status', 'ensure-rabbitmq',
                    'ensure-keystone-venv', 'ensure-glance-venv',
                    'ensure-sushy-tools-venv', 'redfish-emulator-up',
                    'redfish-emulator-down'):
        assert command in proc.stdout
