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

"""Operator image properties through the
nova_mini.image_property_validators entry point, end to end with the
sample package of contrib/ (installed in the test environment by
tools/run-tests.sh). The in-tree-wins and broken-plugin paths are tested
with a package made on the fly (test_image_properties_registry): an
installed one would log their warnings in every command.
"""

import importlib.metadata

import pytest

from nova_mini.api.validation.image_properties import registry
from nova_mini.cmd import manage
from nova_mini.tests.fixtures import console_scripts

NAME = 'sample_rack_affinity'


@pytest.fixture(scope='module')
def sample_plugin_installed():
    names = {ep.name for ep in importlib.metadata.entry_points(
        group=registry.PLUGIN_NAMESPACE)}
    assert 'sample_images' in names, (
        'install contrib/sample-extra-spec-plugin (tools/run-tests.sh does)')


def test_sample_property_is_known_only_with_the_plugin(
        sample_plugin_installed):
    built = registry.build()
    prop = built.lookup(NAME)
    assert (prop.source, prop.mirrors) == (
        'sample_images', 'sample_scheduler:rack_affinity')
    assert prop.description.startswith('The rack an image was certified on')
    assert registry.validate(built, {NAME: 'rack-a1'}, registry.STRICT)
    without = registry.validate(registry.build(include_plugins=False),
                                {NAME: 'rack-a1'}, registry.STRICT)
    assert without.unknown == [NAME]


def test_sample_pattern_is_enforced(sample_plugin_installed):
    verdict = registry.validate(registry.build(), {NAME: 'Rack_1'})
    assert verdict.errors == [
        "Image property 'sample_rack_affinity' (a string matching "
        "[a-z][a-z0-9-]{0,62} in full): 'Rack_1' does not match the "
        "format '[a-z][a-z0-9-]{0,62}'."]


def test_manage_shows_and_validates_the_sample(sample_plugin_installed):
    # nova-mini-manage's main in process: the command's output is the
    # subject (test_manage starts the console script itself).
    shown = console_scripts.call(manage.main, None, 'image-properties',
                                 'show', NAME)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert '  Flavor:       sample_scheduler:rack_affinity' in lines
    assert '  Source:       plugin sample_images' in lines
    refused = console_scripts.call(manage.main, None, 'image-properties',
                                   'validate', NAME + '=Rack_1')
    assert refused.returncode == 1
    assert "does not match the format" in refused.stderr
