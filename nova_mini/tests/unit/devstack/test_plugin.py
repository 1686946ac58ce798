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

"""The devstack plugin (devstack/settings, devstack/plugin.sh) run through
devstack's phases against a stand-in for devstack's functions
(stub-functions.sh): the configuration it writes is read with nova_mini's
own options, its "db sync" really runs (SQLite), and the catalog entries,
RabbitMQ virtual host and processes it asks devstack for are checked.
"""

import configparser
import copy
import hashlib
import json
import os
import pathlib
import sqlite3
import subprocess
import sys

import oslo_cache
from oslo_config import cfg
from oslo_log import log
from oslo_messaging import opts as msg_opts
import pytest

from nova_mini.conf import opts
from nova_mini.db import migration
from nova_mini_vendordata_sample import conf as sample_conf

ROOT = pathlib.Path(__file__).resolve().parents[4]
STUB = pathlib.Path(__file__).with_name('stub-functions.sh')
DAEMONS = ['nova-mini-vendordata-sample', 'nova-mini-api',
           'nova-mini-scheduler', 'nova-mini-metadata',
           'nova-mini-conductor']
SAMPLE_URL = 'http://192.0.2.10:8790/'


def _devstack(tmp_path, *phases, env=None, local=()):
    """Source the settings, then ``local`` (lines of a local.conf's
    localrc), then the plugin in each of ``phases``; the calls made.
    """
    script = ['set -e', 'source "$STUB"', 'source "$PLUGIN_DIR/settings"']
    script += list(local)
    script += ['source "$PLUGIN_DIR/plugin.sh" %s' % phase
               for phase in phases]
    environ = {
        'PATH': os.environ['PATH'], 'HOME': str(tmp_path),
        'STUB': str(STUB), 'STUB_CALLS': str(tmp_path / 'calls'),
        'STUB_PYTHON': sys.executable, 'STUB_DB_DIR': str(tmp_path),
        'PLUGIN_DIR': str(ROOT / 'devstack'),
        'DEST': str(tmp_path / 'opt'), 'DATA_DIR': str(tmp_path / 'data'),
        'STACK_USER': os.environ.get('USER', 'root'),
        'NOVA_MINI_CONF_DIR': str(tmp_path / 'etc'),
        # The real console scripts of this environment.
        'NOVA_MINI_BIN_DIR': os.path.dirname(sys.executable),
        'SERVICE_HOST': '192.0.2.10', 'SERVICE_LISTEN_ADDRESS': '0.0.0.0',
        'SERVICE_PROTOCOL': 'http', 'REGION_NAME': 'RegionOne',
        'SERVICE_PASSWORD': 'service-secret', 'RABBIT_PASSWORD': 'rabbit-pw',
        'SERVICE_PROJECT_NAME': 'service',
        'KEYSTONE_SERVICE_URI': 'http://192.0.2.10/identity',
        'ENABLE_DEBUG_LOG_LEVEL': 'True',
    }
    environ.update(env or {})
    proc = subprocess.run(['bash', '-c', '\n'.join(script)], env=environ,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    calls_file = tmp_path / 'calls'
    calls = ([line.split('\t') for line in calls_file.read_text().splitlines()]
             if calls_file.exists() else [])
    return calls


def _optional(opt):
    opt = copy.copy(opt)
    opt.required = False
    return opt


def _conf(path, *more):
    """The written file (then ``more``) read with the options the daemons
    register: nova_mini's, oslo.log's, oslo.messaging's and oslo.cache's.
    """
    conf = cfg.ConfigOpts()
    for group, options in opts.list_opts() + msg_opts.list_opts():
        # The keystoneauth plugin options listed for the sample config are
        # "required" only once a plugin is chosen.
        # By name: an OptGroup object keeps the options registered with
        # it, and nova_mini's are the ones the global CONF uses.
        name = getattr(group, 'name', group)
        # NOTE: a group named DEFAULT would be a group of its own.
        conf.register_opts([_optional(opt) for opt in options],
                           group=None if name == 'DEFAULT' else name)
    log.register_options(conf)
    oslo_cache.configure(conf)
    conf([], project='nova_mini',
         default_config_files=[str(p) for p in (path,) + more])
    return conf


def _sections(path):
    parser = configparser.RawConfigParser()
    parser.optionxform = str
    parser.read(path)
    return parser


@pytest.fixture(scope='module')
def stacked(tmp_path_factory):
    """(directory, calls) of one stack run through install, post-config
    and extra, for the tests that only read what it left.
    """
    tmp_path = tmp_path_factory.mktemp('stacked')
    calls = _devstack(tmp_path, 'stack install', 'stack post-config',
                      'stack extra')
    return tmp_path, calls


def test_configuration_uses_only_known_options(stacked):
    tmp_path, _ = stacked
    path = tmp_path / 'etc' / 'nova_mini.conf'
    conf = _conf(path)
    known = {name: set(conf[name]) for name in conf
             if isinstance(conf[name], cfg.ConfigOpts.GroupAttr)}
    known['DEFAULT'] = {name for name in conf if name not in known}
    parser = _sections(path)
    written = {'DEFAULT': dict(parser.defaults())}
    written.update({name: {key: value for key, value in parser.items(name)
                           if key not in parser.defaults()}
                    for name in parser.sections()})
    for section, options in written.items():
        if section == 'keystone_authtoken':
            continue  # keystonemiddleware's options
        unknown = set(options) - known.get(section, set())
        assert not unknown, 'unknown in [%s]: %s' % (section, unknown)


def test_configuration_values(stacked):
    tmp_path, _ = stacked
    conf = _conf(tmp_path / 'etc' / 'nova_mini.conf')

    assert conf.transport_url == (
        'rabbit://nova_mini:rabbit-pw@192.0.2.10:5672/nova_mini')
    assert conf.database.connection == 'sqlite:///%s' % (
        tmp_path / 'nova_mini.sqlite')
    assert conf.api.auth_strategy == 'keystone'
    assert (conf.api.bind_host, conf.api.bind_port) == ('0.0.0.0', 8774)
    assert conf.api.workers == 2
    assert conf.metadata.bind_port == 8775
    assert conf.metadata.metadata_proxy_shared_secret == 'service-secret'
    assert conf.cache.enabled is True
    assert conf.cache.backend == 'dogpile.cache.pymemcache'
    assert conf.force_config_drive is False
    auth = _sections(tmp_path / 'etc' / 'nova_mini.conf')['keystone_authtoken']
    assert auth['username'] == 'nova_mini'
    assert auth['auth_url'] == 'http://192.0.2.10/identity'


def test_database_synced_to_head(stacked):
    tmp_path, calls = stacked
    assert ['recreate_database', 'nova_mini'] in calls
    with sqlite3.connect(tmp_path / 'nova_mini.sqlite') as connection:
        (revision,), = connection.execute(
            'SELECT version_num FROM alembic_version').fetchall()
    assert revision == migration.head_revision()


def test_catalog_and_service_user(stacked):
    _, calls = stacked
    assert ['create_service_user', 'nova_mini', 'admin'] in calls
    services = [call[1:3] for call in calls
                if call[0] == 'get_or_create_service']
    assert services == [['nova_mini', 'compute'],
                        ['nova_mini-baremetal', 'baremetal']]
    endpoints = [call[1:] for call in calls
                 if call[0] == 'get_or_create_endpoint']
    assert endpoints == [
        ['service-compute', 'RegionOne',
         'http://192.0.2.10:8774/compute/v2.1'],
        ['service-baremetal', 'RegionOne', 'http://192.0.2.10:8774/baremetal'],
    ]


def test_rabbitmq_virtual_host_of_its_own(stacked):
    _, calls = stacked
    rabbit = [call[2:] for call in calls
              if call[:2] == ['sudo', 'rabbitmqctl']]
    assert ['add_vhost', 'nova_mini'] in rabbit
    assert ['add_user', 'nova_mini', 'rabbit-pw'] in rabbit
    assert ['set_permissions', '-p', 'nova_mini', 'nova_mini',
            '.*', '.*', '.*'] in rabbit


def test_daemons_started_and_stopped_by_devstack(tmp_path):
    calls = _devstack(tmp_path, 'stack install', 'stack post-config',
                      'stack extra', 'unstack', 'clean')
    bin_dir = os.path.dirname(sys.executable)
    conf = tmp_path / 'etc' / 'nova_mini.conf'
    started = [call[1:] for call in calls if call[0] == 'run_process']
    sample = tmp_path / 'etc' / 'vendordata-sample.conf'
    conductor = tmp_path / 'etc' / 'nova-mini-conductor.conf'
    configs = {'nova-mini-vendordata-sample': str(sample),
               'nova-mini-conductor': '%s --config-file %s' % (
                   conf, conductor)}
    assert started == [
        [daemon, '%s/%s --config-file %s' % (
            bin_dir, daemon, configs.get(daemon, conf))]
        for daemon in DAEMONS]
    for daemon in DAEMONS:
        assert os.path.exists(os.path.join(bin_dir, daemon))
    stopped = [call[1] for call in calls if call[0] == 'stop_process']
    assert stopped == DAEMONS
    assert ['sudo', 'rabbitmqctl', 'delete_vhost', 'nova_mini'] in calls
    assert not conf.exists()
    assert ['setup_develop', str(tmp_path / 'opt' / 'nova_mini')] in calls
    assert ['setup_develop', str(
        tmp_path / 'opt' / 'nova_mini' / 'contrib' /
        'sample-vendordata-service')] in calls


def _sample_conf(path):
    """The sample's config file read with its own options."""
    conf = cfg.ConfigOpts()
    sample_conf.register_opts(conf)
    log.register_options(conf)
    conf([], project='nova_mini_vendordata_sample',
         default_config_files=[str(path)])
    return conf


def test_vendordata_from_the_sample_service(stacked):
    # What tools/stack.sh sets up: StaticJSON from a file, DynamicJSON
    # from the sample (target "sample"), with the service user's token.
    tmp_path, _ = stacked
    conf = _conf(tmp_path / 'etc' / 'nova_mini.conf')
    assert conf.api.vendordata_providers == ['StaticJSON', 'DynamicJSON']
    assert conf.api.vendordata_dynamic_targets == ['sample@' + SAMPLE_URL]
    static = tmp_path / 'etc' / 'vendordata-static.json'
    assert conf.api.vendordata_jsonfile_path == str(static)
    assert json.loads(static.read_text())['cloud-name'] == (
        'nova_mini devstack')
    auth = conf.vendordata_dynamic_auth
    assert (auth.auth_type, auth.auth_url, auth.username, auth.password,
            auth.project_name, auth.user_domain_name,
            auth.project_domain_name) == (
        'password', 'http://192.0.2.10/identity', 'nova_mini',
        'service-secret', 'service', 'Default', 'Default')

    path = tmp_path / 'etc' / 'vendordata-sample.conf'
    assert os.stat(path).st_mode & 0o777 == 0o600
    sample = _sample_conf(path).vendordata_sample
    assert (sample.bind_host, sample.bind_port) == ('0.0.0.0', 8790)
    assert sample.auth_strategy == 'keystone'
    # Stable for a deployment, apart from the secrets it is made from.
    assert sample.join_secret == hashlib.sha256(
        b'vendordata-join:service-secret').hexdigest()
    authtoken = _sections(path)['keystone_authtoken']
    assert (authtoken['username'], authtoken['auth_url']) == (
        'nova_mini', 'http://192.0.2.10/identity')
    # Only options the sample knows, keystonemiddleware's apart.
    parser = _sections(path)
    assert set(parser.sections()) == {'vendordata_sample',
                                      'keystone_authtoken'}
    assert set(parser.defaults()) == {'debug'}


def test_vendordata_targets_and_static_file_of_the_deployer(tmp_path):
    etc = tmp_path / 'etc'
    etc.mkdir()
    (etc / 'vendordata-static.json').write_text('{"mine": 1}')
    _devstack(tmp_path, 'stack install', 'stack post-config', env={
        'NOVA_MINI_VENDORDATA_DYNAMIC_TARGETS':
            'inventory@http://192.0.2.20/vd,dns@http://192.0.2.21/',
        'NOVA_MINI_VENDORDATA_JOIN_SECRET': 'join-me'})
    conf = _conf(etc / 'nova_mini.conf')
    assert conf.api.vendordata_dynamic_targets == [
        'sample@' + SAMPLE_URL, 'inventory@http://192.0.2.20/vd',
        'dns@http://192.0.2.21/']
    assert (etc / 'vendordata-static.json').read_text() == '{"mine": 1}'
    sample = _sample_conf(etc / 'vendordata-sample.conf')
    assert sample.vendordata_sample.join_secret == 'join-me'


def test_without_the_sample_service(tmp_path):
    calls = _devstack(tmp_path, 'stack install', 'stack post-config',
                      'stack extra',
                      local=['disable_service nova-mini-vendordata-sample'])
    conf = _conf(tmp_path / 'etc' / 'nova_mini.conf')
    assert conf.api.vendordata_providers == ['StaticJSON']
    assert conf.api.vendordata_dynamic_targets == []
    assert 'vendordata_dynamic_auth' not in _sections(
        tmp_path / 'etc' / 'nova_mini.conf').sections()
    assert not (tmp_path / 'etc' / 'vendordata-sample.conf').exists()
    assert [call[1] for call in calls if call[0] == 'run_process'] == (
        DAEMONS[1:])
    assert not [call for call in calls if call[0] == 'setup_develop' and
                call[1].endswith('sample-vendordata-service')]


@pytest.mark.parametrize('sample', [True, False])
def test_tempest_configured_for_the_plugin(tmp_path, sample):
    tempest_conf = tmp_path / 'tempest.conf'
    local = ['enable_service tempest']
    if not sample:
        local.append('disable_service nova-mini-vendordata-sample')
    _devstack(tmp_path, 'stack install', 'stack post-config', 'stack extra',
              'stack test-config', local=local,
              env={'TEMPEST_CONFIG': str(tempest_conf)})
    parser = _sections(tempest_conf)
    assert parser['service_available']['nova_mini'] == 'True'
    expected = {'metadata_url': 'http://192.0.2.10:8775',
                'metadata_shared_secret': 'service-secret'}
    if sample:
        expected['vendordata_sample_target'] = 'sample'
    assert dict(parser['nova_mini']) == expected


def test_tempest_left_alone_without_tempest(tmp_path):
    tempest_conf = tmp_path / 'tempest.conf'
    _devstack(tmp_path, 'stack install', 'stack post-config', 'stack extra',
              'stack test-config', env={'TEMPEST_CONFIG': str(tempest_conf)})
    assert not tempest_conf.exists()


@pytest.mark.parametrize('value, expected', [
    ('True', True), ('yes', True), ('False', False)])
def test_force_config_drive(tmp_path, value, expected):
    # devstack's variable for Nova's [DEFAULT] force_config_drive.
    _devstack(tmp_path, 'stack install', 'stack post-config',
              env={'FORCE_CONFIG_DRIVE': value})
    conf = _conf(tmp_path / 'etc' / 'nova_mini.conf')
    assert conf.force_config_drive is expected


def test_the_conductor_has_a_host_of_its_own(stacked):
    # nova-mini-api registers the machine's host; the conductor reads its
    # own file after nova_mini.conf, with another host.
    tmp_path, _ = stacked
    etc = tmp_path / 'etc'
    api = _conf(etc / 'nova_mini.conf')
    conductor = _conf(etc / 'nova_mini.conf',
                      etc / 'nova-mini-conductor.conf')
    assert conductor.host.endswith('-conductor')
    assert conductor.host != api.host
    assert conductor.transport_url == api.transport_url
    parser = _sections(etc / 'nova-mini-conductor.conf')
    assert dict(parser.defaults()) == {'host': conductor.host}
    assert parser.sections() == []


def test_the_conductor_host_given(tmp_path):
    _devstack(tmp_path, 'stack install', 'stack post-config',
              local=['NOVA_MINI_CONDUCTOR_HOST=bm-conductor-1'])
    parser = _sections(tmp_path / 'etc' / 'nova-mini-conductor.conf')
    assert parser.defaults()['host'] == 'bm-conductor-1'
