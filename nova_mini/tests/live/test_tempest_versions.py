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

"""Tempest's own compute version tests against the live stack.

``tempest.api.compute.test_versions`` lists the versions at the
unversioned compute URL of the catalog (v2.0 must come first) and follows
each ``self`` link with a token, validating every answer with Tempest's
response schemas. Tempest is not a requirement of nova_mini: install it in
a scratch virtualenv (``python3 -m venv /tmp/tempest-venv &&
/tmp/tempest-venv/bin/pip install tempest==47.0.0``) or name one with
NOVA_MINI_TEMPEST_VENV (``tools/run-tests.sh`` builds one and names
it: there a missing Tempest fails the test); without either, the test is
skipped.
"""

import os
import subprocess

import pytest

pytestmark = pytest.mark.live

VENV = os.environ.get('NOVA_MINI_TEMPEST_VENV', '/tmp/tempest-venv')
TESTS = r'^tempest\.api\.compute\.test_versions\.'

_CONF = """[DEFAULT]
log_dir = {workspace}
log_file = tempest.log

[oslo_concurrency]
lock_path = {workspace}/locks

[auth]
# Tempest makes its own projects and users (primary, project reader)
# with the stack's admin.
use_dynamic_credentials = True
create_isolated_networks = False
admin_username = {admin}
admin_password = {admin_password}
admin_project_name = {admin_project}
admin_domain_name = Default

[identity]
uri_v3 = {auth_url}/v3
auth_version = v3
region = {region}

[identity-feature-enabled]
api_v2 = False

[compute]
region = {region}
endpoint_type = publicURL
min_microversion = 2.1
max_microversion = latest

[service_available]
nova = True
neutron = False
glance = False
cinder = False
swift = False
placement = False

[validation]
run_validation = False
"""


def _env(tmp_path):
    # A home of its own: Tempest keeps a workspace list in ~/.tempest.
    return dict(os.environ, HOME=str(tmp_path),
                PATH=os.path.join(VENV, 'bin') + os.pathsep +
                os.environ.get('PATH', ''))


@pytest.fixture
def tempest_workspace(tmp_path, stack):
    tempest = os.path.join(VENV, 'bin', 'tempest')
    if not os.path.exists(tempest):
        if 'NOVA_MINI_TEMPEST_VENV' in os.environ:
            pytest.fail('no Tempest in NOVA_MINI_TEMPEST_VENV %s' % VENV)
        pytest.skip('no Tempest in %s (see the module)' % VENV)
    workspace = tmp_path / 'tempest'
    proc = subprocess.run([tempest, 'init', str(workspace)],
                          capture_output=True, text=True, timeout=120,
                          env=_env(tmp_path))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    creds = stack.credentials('admin')
    auth_url = creds['OS_AUTH_URL'].rstrip('/')
    if auth_url.endswith('/v3'):
        auth_url = auth_url[:-3]
    (workspace / 'etc' / 'tempest.conf').write_text(_CONF.format(
        workspace=workspace, auth_url=auth_url,
        region=creds['OS_REGION_NAME'], admin=creds['OS_USERNAME'],
        admin_password=creds['OS_PASSWORD'],
        admin_project=creds['OS_PROJECT_NAME']))
    return tempest, workspace


def test_tempest_compute_versions(tempest_workspace, tmp_path):
    tempest, workspace = tempest_workspace
    proc = subprocess.run(
        [tempest, 'run', '--regex', TESTS], cwd=str(workspace),
        capture_output=True, text=True, timeout=600, env=_env(tmp_path))
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output[-6000:]
    # Both tests ran and passed (none skipped).
    assert '- Passed: 2' in output, output[-6000:]
