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

"""Configuration options are all listed for the sample config, the
generator runs, and every entry point declared in setup.cfg loads."""

import configparser
import importlib.metadata
import os
import subprocess
import sys
import types

from oslo_config import cfg
import pytest

import nova_mini
from nova_mini import conf as nm_conf
from nova_mini.conf import opts
from nova_mini.conf import vendordata_dynamic_auth

REPO = os.path.dirname(os.path.dirname(os.path.abspath(nova_mini.__file__)))
BIN = os.path.dirname(sys.executable)

OWN_GROUPS = ('DEFAULT', 'api', 'metadata', 'upgrade_levels', 'database',
              'scheduler', 'filter_scheduler', 'quota',
              'vendordata_dynamic_auth', 'glance', 'conductor', 'wsgi',
              'redfish', 'deploy', 'ironic', 'sensor_data')

# Groups that also list the options of sample keystoneauth1 plugins: those
# are registered when the configured plugin is loaded, not beforehand.
PLUGIN_OPTIONS = {
    'vendordata_dynamic_auth': {
        opt.dest for opt in vendordata_dynamic_auth.plugin_opts()},
}


def _registered():
    """{group: {option names}} that nova_mini's modules register."""
    conf = cfg.ConfigOpts()
    builtin = set(conf._opts)       # config_source, shell_completion
    for module in nm_conf.MODULES:
        module.register_opts(conf)
    registered = {'DEFAULT': set(conf._opts) - builtin}
    for name, group in conf._groups.items():
        registered[name] = set(group._opts)
    return registered


def _listed():
    listed = {}
    for group, options in opts.list_opts():
        name = group if isinstance(group, str) else group.name
        # (by dest, as registered: keystoneauth1's names have hyphens)
        listed.setdefault(name, []).extend(opt.dest for opt in options)
    return listed


def test_every_module_registers_and_lists():
    for module in nm_conf.MODULES:
        assert callable(getattr(module, 'register_opts', None)), module
        assert callable(getattr(module, 'list_opts', None)), module


def test_own_groups_are_all_there():
    assert set(_listed()) == set(OWN_GROUPS)
    assert set(_registered()) == set(OWN_GROUPS)


@pytest.mark.parametrize('group', OWN_GROUPS)
def test_list_opts_lists_every_registered_option(group):
    listed = _listed()[group]
    assert len(listed) == len(set(listed)), 'listed twice: %s' % group
    assert set(listed) - PLUGIN_OPTIONS.get(group, set()) == (
        _registered()[group])


@pytest.mark.parametrize('group, names', [
    ('DEFAULT', {'host', 'state_path'}),
    ('api', {'auth_strategy', 'bind_host', 'bind_port', 'workers',
             'max_limit'}),
    ('metadata', {'bind_host', 'bind_port', 'workers'}),
    ('upgrade_levels', {'scheduler'}),
    ('scheduler', {'workers'}),
    ('filter_scheduler', {'enabled_filters', 'weighers', 'host_subset_size',
                          'max_attempts'}),
    ('database', {'connection', 'max_pool_size', 'max_overflow'}),
    ('quota', {'server_groups', 'server_group_members'}),
    ('conductor', {'heartbeat_interval', 'heartbeat_timeout',
                   'power_state_change_timeout', 'soft_power_off_timeout'}),
    ('redfish', {'connection_attempts', 'connection_retry_interval',
                 'connect_timeout', 'read_timeout', 'connection_cache_size',
                 'auth_type', 'verify_ca'}),
    ('ironic', {'api_retry_interval'}),
    ('sensor_data', {'send_sensor_data', 'interval', 'workers',
                     'wait_timeout', 'data_types',
                     'enable_for_undeployed_nodes', 'enable_for_nodes'}),
])
def test_known_options_are_listed(group, names):
    assert names <= set(_listed()[group])


def test_database_default_connection_in_the_sample():
    database = dict(opts.list_opts())['database']
    connection = [opt for opt in database if opt.name == 'connection'][0]
    assert connection.default == 'sqlite:///$state_path/nova_mini.sqlite'


def test_list_opts_fails_loudly_for_a_module_without_list_opts(
        monkeypatch):
    broken = types.ModuleType('nova_mini.conf.broken')
    broken.register_opts = lambda conf: None
    monkeypatch.setattr(nm_conf, 'MODULES', nm_conf.MODULES + (broken,))
    with pytest.raises(RuntimeError, match='nova_mini.conf.broken has no '
                                           'list_opts'):
        opts.list_opts()


def test_config_generator(tmp_path):
    output = tmp_path / 'nova_mini.conf.sample'
    result = subprocess.run(
        [os.path.join(BIN, 'oslo-config-generator'), '--config-file',
         os.path.join('etc', 'nova_mini',
                      'nova-mini-config-generator.conf'),
         '--output-file', str(output)],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    sample = output.read_text()
    for section in ('[DEFAULT]', '[api]', '[metadata]', '[upgrade_levels]',
                    '[database]', '[keystone_authtoken]', '[oslo_policy]',
                    '[cache]', '[vendordata_dynamic_auth]'):
        assert section in sample
    for line in ('#host = <current_hostname>',
                 '#state_path = /var/lib/nova_mini',
                 '#auth_strategy = keystone',
                 '#connection = sqlite:///$state_path/nova_mini.sqlite',
                 '#vendordata_providers = StaticJSON',
                 '#vendordata_dynamic_cache_max_age = 3600',
                 '#auth_type = <None>', '#auth_url = <None>'):
        assert line in sample
    # The database options are listed once, by nova_mini.
    assert sample.count('[database]') == 1


def _declared_entry_points():
    parser = configparser.ConfigParser()
    parser.read(os.path.join(REPO, 'setup.cfg'))
    declared = []
    for group, text in parser.items('entry_points'):
        for line in text.strip().splitlines():
            name, _sep, value = line.partition('=')
            declared.append((group, name.strip(), value.strip()))
    return declared


def test_setup_cfg_declares_the_entry_points():
    groups = {group for group, _name, _value in _declared_entry_points()}
    assert {'console_scripts', 'wsgi_scripts', 'oslo.config.opts',
            'oslo.policy.policies', 'oslo.policy.enforcer'} <= groups


@pytest.mark.parametrize('group, name, value', _declared_entry_points(),
                         # (no ':' in ids: gabbi's plugin claims those)
                         ids=['%s/%s' % (g, n)
                              for g, n, _v in _declared_entry_points()])
def test_entry_point_loads(group, name, value):
    installed = {
        (ep.group, ep.name): ep
        for ep in importlib.metadata.distribution('nova_mini').entry_points}
    assert (group, name) in installed, (
        '%s %s is in setup.cfg but not in the installed metadata: '
        'reinstall nova_mini (pip install -e .)' % (group, name))
    entry_point = installed[(group, name)]
    assert entry_point.value == value
    assert callable(entry_point.load())


def test_console_scripts_are_installed():
    # (pbr writes wsgi_scripts only in non-editable installs.)
    for group, name, _value in _declared_entry_points():
        if group == 'console_scripts':
            assert os.access(os.path.join(BIN, name), os.X_OK), name


def test_oslo_entry_points_answer():
    installed = {(ep.group, ep.name): ep for ep in
                 importlib.metadata.distribution('nova_mini').entry_points}
    listed = installed[('oslo.config.opts', 'nova_mini.conf')].load()()
    assert {getattr(g, 'name', g) for g, _o in listed} == set(OWN_GROUPS)
    rules = installed[('oslo.policy.policies', 'nova_mini')].load()()
    assert rules and all(hasattr(rule, 'check_str') for rule in rules)


def test_conf_fixture_restores_defaults():
    from nova_mini.tests.fixtures import conf as conf_fixture
    CONF = nm_conf.CONF
    fixture = conf_fixture.ConfFixture(**{'api.max_limit': 7})
    fixture.setUp()
    try:
        assert CONF.api.max_limit == 7
        assert CONF.api.auth_strategy == 'noauth2'
    finally:
        fixture.cleanUp()
    assert CONF.api.max_limit == 1000
    assert CONF.api.auth_strategy == 'keystone'
    assert CONF.database.connection == (
        'sqlite:///%s/nova_mini.sqlite' % CONF.state_path)
