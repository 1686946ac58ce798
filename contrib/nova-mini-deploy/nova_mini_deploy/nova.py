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

"""nova_mini's own daemons: their config file, the database, and the
processes, each started with a notify socket and ready once it has sent
READY=1 (and, for the WSGI ones, answered over HTTP).
"""

import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

from nova_mini_deploy import util

API = 'nova-mini-api'
SCHEDULER = 'nova-mini-scheduler'
METADATA = 'nova-mini-metadata'
CONDUCTOR = 'nova-mini-conductor'
MANAGE = 'nova-mini-manage'
DAEMONS = (API, SCHEDULER, METADATA, CONDUCTOR)


def script(name):
    """A console script of the interpreter deploying (its venv),
    else the one on PATH.
    """
    here = os.path.join(os.path.dirname(sys.executable), name)
    found = here if os.access(here, os.X_OK) else shutil.which(name)
    if not found:
        raise util.ServiceError('%s is not installed (pip install -e .)'
                                % name)
    return found


def write_ini(path, sections):
    """Write ``{section: {option: value}}``; None values are left out."""
    lines = []
    for section, options in sections.items():
        lines.append('[%s]' % section)
        lines.extend('%s = %s' % (k, v) for k, v in options.items()
                     if v is not None)
        lines.append('')
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write('\n'.join(lines))
    return path


class NovaMini(object):
    """The daemons of one state directory.

    :param keystone: None for ``auth_strategy = noauth2``, else a dict with
        ``auth_url`` and the ``password`` of the ``nova`` service user.
    :param transport_url: its virtual host is what keeps a test run's RPC
        apart from other nova_minis on the broker, not ``exchange``: the
        rabbit driver names a topic's queue after the topic alone.
    :param exchange: the oslo.messaging control exchange.
    """

    def __init__(self, state_dir, transport_url, api_port, metadata_port,
                 keystone=None, exchange='nova_mini', host=None,
                 api_workers=2, metadata_workers=1, debug=False,
                 metadata_secret=None):
        self.state_dir = os.path.abspath(state_dir)
        self.transport_url = transport_url
        self.api_port = api_port
        self.metadata_port = metadata_port
        self.keystone = keystone
        self.exchange = exchange
        self.host = host or 'nova-mini-%s' % os.uname().nodename
        self.api_workers = api_workers
        self.metadata_workers = metadata_workers
        self.debug = debug
        # [metadata] metadata_proxy_shared_secret, as the metadata proxy
        # (Neutron's agent, or a test) signs instance ids with it.
        self.metadata_secret = metadata_secret or secrets.token_hex(32)
        self.etc_dir = os.path.join(self.state_dir, 'etc')
        self.log_dir = os.path.join(self.state_dir, 'logs')
        self.run_dir = os.path.join(self.state_dir, 'run')
        self.conf_path = os.path.join(self.etc_dir, 'nova_mini.conf')
        # nova-mini-conductor reads nova_mini.conf then this file, whose
        # [DEFAULT] host is its own: nova-mini-api and nova-mini-conductor
        # never share a host (doc/source/admin/conductor.rst).
        self.conductor_conf_path = os.path.join(self.etc_dir,
                                                CONDUCTOR + '.conf')
        self.conductor_host = self.host + '-conductor'
        # More options of the daemons' config, {section: {option: value}}
        # merged into config_sections (e.g. vendordata_sample.for_stack).
        self.extra_sections = {}
        self.processes = {}
        self._socket_dir = None

    @property
    def api_url(self):
        return 'http://%s:%d' % (util.LOCALHOST, self.api_port)

    @property
    def compute_url(self):
        return self.api_url + '/compute/v2.1'

    @property
    def baremetal_url(self):
        # Like Ironic's endpoint: the root, without /v1.
        return self.api_url + '/baremetal'

    @property
    def metadata_url(self):
        return 'http://%s:%d' % (util.LOCALHOST, self.metadata_port)

    # -- configuration

    def config_sections(self):
        sections = {
            'DEFAULT': {
                'transport_url': self.transport_url,
                'control_exchange': self.exchange,
                'state_path': self.state_dir,
                'host': self.host,
                'debug': str(self.debug).lower(),
                'rpc_response_timeout': 30,
            },
            'database': {
                'connection': 'sqlite:///%s' % os.path.join(
                    self.state_dir, 'nova_mini.sqlite'),
            },
            'api': {
                'auth_strategy': 'keystone' if self.keystone else 'noauth2',
                'bind_host': util.LOCALHOST,
                'bind_port': self.api_port,
                'workers': self.api_workers,
                'graceful_shutdown_timeout': 30,
            },
            'metadata': {
                'bind_host': util.LOCALHOST,
                'bind_port': self.metadata_port,
                'workers': self.metadata_workers,
                'metadata_proxy_shared_secret': self.metadata_secret,
            },
        }
        if self.keystone:
            sections['keystone_authtoken'] = {
                'www_authenticate_uri': self.keystone['auth_url'],
                'auth_url': self.keystone['auth_url'],
                'auth_type': 'password',
                'username': 'nova',
                'password': self.keystone['password'],
                'project_name': 'service',
                'user_domain_name': 'Default',
                'project_domain_name': 'Default',
                'region_name': 'RegionOne',
                # memcached_servers unset: each worker caches in memory.
            }
            # The quick start's admin (and Tempest's, with ironic-tempest-
            # plugin's [enforce_scope] ironic = False) holds project-scoped
            # tokens: keep it the bare-metal administrator with the
            # pre-scope rules. Keystone's bootstrap also gave it the admin
            # role on the system: with True, use --os-system-scope all
            # for /baremetal (doc/source/admin/policy.rst).
            sections['oslo_policy'] = {'enforce_new_defaults': 'False'}
        for section, options in self.extra_sections.items():
            sections.setdefault(section, {}).update(options)
        return sections

    def write_config(self):
        for path in (self.etc_dir, self.log_dir, self.run_dir):
            os.makedirs(path, exist_ok=True)
        write_ini(self.conf_path, self.config_sections())
        os.chmod(self.conf_path, 0o600)
        self.write_extra_config(CONDUCTOR, {
            'DEFAULT': {'host': self.conductor_host}})
        return self.conf_path

    def config_files(self, script_name):
        """The config files a daemon reads, in order."""
        if script_name == CONDUCTOR:
            return [self.conf_path, self.conductor_conf_path]
        return [self.conf_path]

    def write_extra_config(self, name, sections):
        """A config file read after the main one (its values win)."""
        return write_ini(os.path.join(self.etc_dir, name + '.conf'), sections)

    # -- commands

    def manage(self, *args, timeout=120, config_files=None, check=True):
        """Run nova-mini-manage; its CompletedProcess (text output)."""
        argv = [script(MANAGE)]
        for path in config_files or [self.conf_path]:
            argv += ['--config-file', path]
        argv += [str(a) for a in args]
        proc = subprocess.run(argv, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
        if check and proc.returncode != 0:
            raise util.ServiceError('%s: exit status %d\n%s%s' % (
                ' '.join(argv), proc.returncode, proc.stdout, proc.stderr))
        return proc

    def db_sync(self):
        return self.manage('db', 'sync')

    # -- daemons

    def _notify_path(self, name):
        path = os.path.join(self.run_dir, name + '.notify')
        if len(path.encode()) <= 100:
            return path
        # AF_UNIX paths are short (108 bytes); fall back to a short dir.
        if self._socket_dir is None:
            self._socket_dir = tempfile.mkdtemp(prefix='nm-')
        return os.path.join(self._socket_dir, name + '.notify')

    def daemon(self, script_name, name=None, config_files=None):
        """A Process for ``script_name`` (not started)."""
        name = name or script_name
        argv = [script(script_name)]
        for path in config_files or self.config_files(script_name):
            argv += ['--config-file', path]
        return util.Process(
            name, argv, os.path.join(self.log_dir, name + '.log'),
            pid_path=os.path.join(self.run_dir, name + '.pid'),
            notify_path=self._notify_path(name))

    def start(self, script_name, name=None, config_files=None, port=None,
              timeout=60):
        """Start a daemon and wait until it is ready; the Process."""
        proc = self.daemon(script_name, name, config_files)
        if port is None:
            port = {API: self.api_port, METADATA: self.metadata_port}.get(
                script_name)
        if port and util.port_open(util.LOCALHOST, port):
            raise util.ServiceError('port %d is taken: cannot start %s'
                                    % (port, proc.name))
        proc.start(ready_timeout=timeout)
        if port:
            # READY=1 comes from gunicorn's master once it listens; wait
            # until a worker has loaded the app and answers too.
            path = '/compute/' if script_name == API else '/'
            url = 'http://%s:%d%s' % (util.LOCALHOST, port, path)
            try:
                util.wait_until(lambda: http_status(url) == 200, timeout,
                                'GET %s' % url, interval=0.2,
                                abort=proc._exited)
            except util.ServiceError as exc:
                proc.stop(10)
                raise util.ServiceError('%s did not answer: %s%s' % (
                    proc.name, exc, util._log_hint(proc.log_path)))
        self.processes[proc.name] = proc
        return proc

    def start_all(self):
        for name in DAEMONS:
            if name not in self.processes:
                self.start(name)
        return self

    def adopt_all(self):
        """Take over daemons a previous ``up`` left running."""
        for name in DAEMONS:
            proc = util.Process.adopt(
                name, os.path.join(self.run_dir, name + '.pid'),
                os.path.join(self.log_dir, name + '.log'), expect=name)
            if proc:
                self.processes[name] = proc
        return self

    def stop(self, name, timeout=45):
        proc = self.processes.pop(name, None)
        return proc.stop(timeout) if proc else None

    def stop_all(self, timeout=45):
        """Stop every daemon; ``{name: exit status}``."""
        # SIGTERM to all first, so that they wind down in parallel.
        for proc in self.processes.values():
            if proc.running:
                proc.send_signal(signal.SIGTERM)
        codes = {name: self.stop(name, timeout)
                 for name in reversed(list(self.processes))}
        if self._socket_dir:
            shutil.rmtree(self._socket_dir, ignore_errors=True)
            self._socket_dir = None
        return codes


def http_status(url, headers=None, timeout=5):
    """The HTTP status of GET url, or None if nothing answers."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except (urllib.error.URLError, OSError):
        return None
