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

"""Operator definitions through the nova_mini.extra_spec_validators entry
point, end to end with the sample package of contrib/ (installed in the
test environment by tools/run-tests.sh)."""

import importlib.metadata
import logging

import pytest

from nova_mini.api.validation.extra_specs import registry

PLUGIN_KEYS = {'sample_scheduler:rack_affinity': 'rack-a1',
               'sample_scheduler:max_per_rack': '4'}


@pytest.fixture(scope='module')
def sample_plugin_installed():
    names = {ep.name for ep in importlib.metadata.entry_points(
        group=registry.PLUGIN_NAMESPACE)}
    assert 'sample_scheduler' in names, (
        'install contrib/sample-extra-spec-plugin (tools/run-tests.sh does)')


def test_plugin_keys_pass_strict_only_with_the_plugin(sample_plugin_installed):
    with_plugins = registry.build()
    without = registry.build(include_plugins=False)
    assert registry.validate(with_plugins, PLUGIN_KEYS, registry.STRICT)
    verdict = registry.validate(without, PLUGIN_KEYS, registry.STRICT)
    assert sorted(verdict.unknown) == sorted(PLUGIN_KEYS)
    assert len(verdict.errors) == 2


def test_plugin_rules_apply(sample_plugin_installed):
    verdict = registry.validate(
        registry.build(), {'sample_scheduler:max_per_rack': '65'})
    assert not verdict
    assert 'sample_scheduler:max_per_rack' in verdict.errors[0]


def test_plugin_definitions_know_their_source(sample_plugin_installed):
    spec = registry.build().lookup('sample_scheduler:rack_affinity')
    assert spec.source == 'sample_scheduler'
    assert registry.build().lookup('hw:cpu_policy').source == 'nova_mini'


def test_in_tree_wins_a_clash_and_the_clash_is_logged(
        sample_plugin_installed, caplog):
    with caplog.at_level(logging.WARNING):
        built = registry.build()
    spec = built.lookup('hw:cpu_policy')
    assert spec.source == 'nova_mini'
    spec.check('dedicated')
    assert any('hw:cpu_policy' in r.getMessage() and 'sample_clash' in
               r.getMessage() for r in caplog.records)


def test_broken_plugin_is_logged_and_skipped(sample_plugin_installed, caplog):
    with caplog.at_level(logging.WARNING):
        built = registry.build()
    assert any('sample_broken' in r.getMessage() for r in caplog.records)
    # The other plugins and the in-tree definitions still load.
    assert built.lookup('sample_scheduler:max_per_rack') is not None
    assert len(built) > 100
