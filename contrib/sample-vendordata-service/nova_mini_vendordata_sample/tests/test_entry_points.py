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

"""Every entry point declared in the distribution's setup.cfg is in the
installed metadata and loads; the console script is installed, and the
option listing answers as oslo-config-generator calls it."""

import configparser
import importlib.metadata
import os
import sys

import pytest

import nova_mini_vendordata_sample

DIST = os.path.dirname(os.path.dirname(os.path.abspath(
    nova_mini_vendordata_sample.__file__)))
BIN = os.path.dirname(sys.executable)


def _declared_entry_points():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read(os.path.join(DIST, 'setup.cfg'))
    declared = []
    for group, text in parser.items('entry_points'):
        for line in text.strip().splitlines():
            name, _sep, value = line.partition('=')
            declared.append((group, name.strip(), value.strip()))
    return declared


def _installed():
    return {(ep.group, ep.name): ep for ep in importlib.metadata.distribution(
        'nova-mini-vendordata-sample').entry_points}


@pytest.mark.parametrize('group, name, value', _declared_entry_points(),
                         # (no ':' in ids: gabbi's plugin claims those)
                         ids=['%s/%s' % (g, n)
                              for g, n, _v in _declared_entry_points()])
def test_entry_point_loads(group, name, value):
    installed = _installed()
    assert (group, name) in installed, (
        '%s %s is in setup.cfg but not in the installed metadata: '
        'reinstall it (pip install -e contrib/sample-vendordata-service)'
        % (group, name))
    entry_point = installed[(group, name)]
    assert entry_point.value == value
    assert callable(entry_point.load())


def test_console_script_is_installed():
    # (pbr writes wsgi_scripts only in non-editable installs.)
    assert os.access(os.path.join(BIN, 'nova-mini-vendordata-sample'),
                     os.X_OK)


def test_options_are_listed():
    listed = _installed()[('oslo.config.opts',
                           'nova_mini_vendordata_sample')].load()()
    assert [getattr(g, 'name', g) for g, _o in listed] == [
        'vendordata_sample']
