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

"""tox builds the tree with the build backend tools/constraints/build.txt
admits, as tools/lib.sh does: every environment that installs something
with pip has PIP_CONSTRAINT pointing at that file.
"""

import configparser
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.dirname(os.path.abspath(__file__)))))
CONSTRAINT = 'PIP_CONSTRAINT={toxinidir}/tools/constraints/build.txt'


def _tox():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(ROOT, 'tox.ini'))
    return parser


def _setenv(parser, section):
    """The setenv lines of ``section``, with ``{[testenv]setenv}``
    substituted as tox does.
    """
    raw = parser.get(section, 'setenv', fallback=None)
    if raw is None:
        raw = parser.get('testenv', 'setenv', fallback='')
    lines = []
    for line in raw.splitlines():
        line = line.strip()
        if line == '{[testenv]setenv}':
            lines.extend(_setenv(parser, 'testenv'))
        elif line.startswith('{[testenv:') and line.endswith(']setenv}'):
            lines.extend(_setenv(parser, line[2:-len(']setenv}')]))
        elif line:
            lines.append(line)
    return lines


def test_the_constraint_file_exists():
    assert os.path.isfile(os.path.join(ROOT, 'tools', 'constraints',
                                       'build.txt'))


@pytest.mark.parametrize('section', [
    s for s in _tox().sections() if s == 'testenv' or s.startswith('testenv:')])
def test_every_environment_builds_with_the_pinned_backend(section):
    assert CONSTRAINT in _setenv(_tox(), section), section
