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

"""The constraints of the venvs the harness builds from PyPI
(tools/constraints/: Keystone, Glance and sushy-tools by
nova_mini_deploy.venvs, Tempest by tools/run-tests.sh): every line a pin,
the service's own release the one the harness asks for, and a venv built
with other constraints rebuilt.
"""

import os
import re

from packaging import requirements
from packaging import utils
import pytest

from nova_mini_deploy import glance
from nova_mini_deploy import keystone
from nova_mini_deploy import redfish_emulator
from nova_mini_deploy import venvs

REPO = venvs.CHECKOUT


def _pins(name):
    pins = {}
    with open(venvs.constraints_file(name)) as lines:
        for line in lines:
            line = line.split('#', 1)[0].strip()
            if line:
                req = requirements.Requirement(line)
                specs = list(req.specifier)
                assert [s.operator for s in specs] == ['=='], line
                pins[utils.canonicalize_name(req.name)] = specs[0].version
    return pins


@pytest.mark.parametrize('name,module', [('keystone', keystone),
                                         ('glance', glance)])
def test_the_service_release_is_the_pinned_one(name, module):
    pins = _pins(name)
    assert pins[name] == module.VERSION
    assert 'gunicorn' in pins


def test_the_sushy_tools_release_is_the_pinned_one():
    # The emulator serves itself (sushy-emulator's own server): no
    # gunicorn.
    pins = _pins('sushy-tools')
    assert pins['sushy-tools'] == redfish_emulator.VERSION
    assert 'bcrypt' in pins


def test_tempest_releases_are_the_pinned_ones():
    with open(os.path.join(REPO, 'tools', 'run-tests.sh')) as f:
        script = f.read()
    asked = dict(re.findall(r'\b(tempest|ironic-tempest-plugin)==(\S+)',
                            script))
    assert set(asked) == {'tempest', 'ironic-tempest-plugin'}
    pins = _pins('tempest')
    assert {name: pins[name] for name in asked} == asked
    # The checkout's own plugin is installed apart, on every run.
    assert 'nova-mini-tempest-plugin' not in pins


def test_other_constraints_make_another_marker(tmp_path):
    first, second = tmp_path / 'a.txt', tmp_path / 'b.txt'
    first.write_text('keystone==30.0.0\n')
    second.write_text('keystone==30.0.0\nPyJWT==2.15.1\n')
    requested = ['keystone==30.0.0', 'gunicorn']
    names = {venvs.marker_name(requested),
             venvs.marker_name(requested, str(first)),
             venvs.marker_name(requested, str(second)),
             venvs.marker_name(['keystone==31.0.0'], str(first))}
    assert len(names) == 4
    assert venvs.marker_name(requested, str(first)).startswith(
        '.nova_mini-keystone-30.0.0-c')
