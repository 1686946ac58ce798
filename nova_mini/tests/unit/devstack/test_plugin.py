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

ROOT = pathlib.Path(__file__).resolve().parents[4]
STUB = pathlib.Path(__file__).with_name('stub-functions.sh')
DAEMONS = ['nova-mini-api', 'nova-mini-scheduler', 'nova-mini-metadata']


def _devstack(tmp_path, *phases, env=None):
    script = ['set -e', 'source "$STUB"', 'source "$PLUGIN_DIR/settings"']
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


def _conf(path):
    """The written file read with the options the daemons register:
    nova_mini's, oslo.log's, oslo.messaging's and oslo.cache's.
    """
    conf = cfg.ConfigOpts()
    for group, options in opts.list_opts() + msg_opts.list_opts():
        # The keystoneauth plugin options listed for the sample config are
        # "required" only once a plugin is chosen.
        # By name: an OptGroup object keeps the options registered with
        # it, and nova_mini's are the ones the global CONF uses.
        conf.register_opts([_optional(opt) for opt in options],
                           group=getattr(group, 'name', group))
    log.register_options(conf)
    oslo_cache.configure(conf)
    conf([], project='nova_mini', default_config_files=[str(path)])
    return conf


def _sections(path):
    parser = configparser.RawConfigParser()
    parser.optionxform = str
    parser.read(path)
    return parser


@pytest.fixture
def stacked(tmp_path):
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
    assert started == [
        [daemon, '%s/%s --config-file %s' % (bin_dir, daemon, conf)]
        for daemon in DAEMONS]
    for daemon in DAEMONS:
        assert os.path.exists(os.path.join(bin_dir, daemon))
    stopped = [call[1] for call in calls if call[0] == 'stop_process']
    assert stopped == DAEMONS
    assert ['sudo', 'rabbitmqctl', 'delete_vhost', 'nova_mini'] in calls
    assert not conf.exists()
    assert ['setup_develop', str(tmp_path / 'opt' / 'nova_mini')] in calls
