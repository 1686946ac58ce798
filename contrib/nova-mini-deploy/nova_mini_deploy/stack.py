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

"""The whole stack of one state directory: RabbitMQ, Keystone with the
users, projects and catalog nova_mini needs, and nova_mini's daemons.

Used two ways: by the live tests (free ports, a RabbitMQ virtual host and
an RPC exchange of their own, everything stopped and the virtual host
deleted at the end of the session) and by the CLI behind tools/stack.sh
(fixed ports, the default virtual host "/", processes left running,
``down`` later).
Its record, ``stack.json`` (mode 0600: it holds the passwords), lets a
later ``up`` reuse ports and passwords and a later ``down`` find the pids.

State directory layout::

    stack.json            ports, passwords, URLs
    openrc, openrc-demo   OS_* variables for the openstack CLI
    etc/nova_mini.conf    the daemons' config
    logs/<daemon>.log     their output
    run/<daemon>.pid      their pids (and notify sockets)
    keystone/             keystone.conf, SQLite db, keys, keystone.log
    glance/               glance-api.conf, SQLite db, images/, glance.log
    redfish/              the Redfish BMC emulator (sushy-tools) of the
                          redfish nodes, when asked for: its config, CA,
                          user file, systems' store, sushy-emulator.log
    nova_mini.sqlite      nova_mini's database
"""

import json
import logging
import os
import secrets
import shlex
import signal
import sys
import threading

from nova_mini_deploy import glance as glance_deploy
from nova_mini_deploy import images_server
from nova_mini_deploy import keystone as ks
from nova_mini_deploy import nova
from nova_mini_deploy import openstack_runner
from nova_mini_deploy import rabbitmq
from nova_mini_deploy import redfish_emulator
from nova_mini_deploy import redfish_nodes
from nova_mini_deploy import util
from nova_mini_deploy import vendordata_sample

LOG = logging.getLogger(__name__)

# Users besides admin: name -> (project, role).
USERS = {
    'nova': ('service', 'admin'),
    'demo': ('demo', 'member'),
    'glance': ('service', 'admin'),
}


class Stack(object):
    """:param virtual_host: the RabbitMQ virtual host of the daemons'
        transport URL (default "/"); any other one is made by ``up`` if
        missing, and deleted by ``down`` if ``up`` made it.
    :param rabbit_user: the RabbitMQ user of the daemons (default: the
        broker's guest); ``up`` makes it with a generated password kept in
        stack.json and every permission on ``virtual_host``, ``down``
        deletes it if ``up`` made it.
    """

    def __init__(self, state_dir, api_port=None, metadata_port=None,
                 keystone_port=None, exchange=None, host=None,
                 rabbit_port=5672, debug=False, fast_passwords=False,
                 virtual_host=None, vendordata_sample_port=None,
                 glance_port=None, rabbit_user=None, images_port=None,
                 redfish_systems=None, redfish_port=None,
                 redfish_power_delay=(1, 3)):
        self.state_dir = os.path.abspath(state_dir)
        self.openstack_in_process = True
        self._openstack_pool = None
        self.record_path = os.path.join(self.state_dir, 'stack.json')
        record = self._load_record()
        ports = record.get('ports', {})
        self.api_port = api_port or ports.get('api') or util.free_port()
        self.metadata_port = (metadata_port or ports.get('metadata')
                              or util.free_port())
        self.keystone_port = (keystone_port or ports.get('keystone')
                              or util.free_port())
        self.glance_port = (glance_port or ports.get('glance')
                            or util.free_port())
        self.images_port = (images_port or ports.get('images')
                            or util.free_port())
        self.passwords = record.get('passwords') or {}
        for user in ('admin', 'nova', 'demo', 'glance', 'redfish'):
            self.passwords.setdefault(user, secrets.token_urlsafe(12))
        self.metadata_secret = (record.get('metadata_proxy_shared_secret')
                                or secrets.token_hex(32))
        self.exchange = exchange or record.get('exchange') or 'nova_mini'
        self.rabbit = rabbitmq.RabbitMQ(port=rabbit_port)
        self.virtual_host = (virtual_host or record.get('virtual_host')
                             or '/')
        # Whether an ``up`` made the virtual host, which ``down`` deletes.
        self.virtual_host_made = (
            record.get('virtual_host') == self.virtual_host
            and record.get('virtual_host_made', False))
        self.rabbit_user = rabbit_user or record.get('rabbit_user')
        self.rabbit_user_made = (
            record.get('rabbit_user') == self.rabbit_user
            and record.get('rabbit_user_made', False))
        client = self.rabbit
        if self.rabbit_user:
            self.passwords.setdefault('rabbit', secrets.token_urlsafe(16))
            client = rabbitmq.RabbitMQ(port=rabbit_port,
                                       user=self.rabbit_user,
                                       password=self.passwords['rabbit'])
        self.rabbit_password = client.password
        self.transport_url = client.url(self.virtual_host)
        # Whether an ``up`` of this state directory started RabbitMQ, which
        # ``down`` then stops.
        self.rabbit_started = record.get('rabbitmq_started', False)
        self.keystone = ks.Keystone(
            os.path.join(self.state_dir, 'keystone'), self.keystone_port,
            self.passwords['admin'], hash_rounds=4 if fast_passwords else 12)
        self.glance = glance_deploy.Glance(
            os.path.join(self.state_dir, 'glance'), self.glance_port,
            self.keystone.auth_url, self.passwords['glance'])
        # {name: id} of the images every stack has (ensure_images).
        self.images = record.get('images') or {}
        self.nova = nova.NovaMini(
            self.state_dir, self.transport_url, self.api_port,
            self.metadata_port,
            keystone={'auth_url': self.keystone.auth_url,
                      'password': self.passwords['nova']},
            exchange=self.exchange, host=host, debug=debug,
            metadata_secret=self.metadata_secret)
        # The web server of the virtual media images a conductor publishes
        # for the BMCs (doc/source/admin/virtual-media-images.rst).
        self.images_server = images_server.ImagesServer(
            os.path.join(self.state_dir, 'images-server'),
            os.path.join(self.state_dir, 'httpboot'), port=self.images_port)
        self.nova.extra_sections.setdefault('deploy', {}).update({
            'http_root': self.images_server.http_root,
            'http_url': self.images_server.url,
            'iso_master_path': os.path.join(self.state_dir,
                                            'master_iso_images')})
        # The Redfish BMC emulator whose systems are the stack's redfish
        # nodes (enroll_redfish_nodes): when asked for, or when a previous
        # ``up`` set it up. Its power changes take 1 to 3 s (the
        # emulator's own 1 to 11 s would slow every deploy down).
        if redfish_systems is None:
            redfish_systems = record.get('redfish_systems', 0)
        self.redfish_systems = redfish_systems
        self.redfish = None
        if redfish_systems:
            self.redfish = redfish_emulator.RedfishEmulator(
                os.path.join(self.state_dir, 'redfish'),
                systems=redfish_systems,
                port=redfish_port or ports.get('redfish')
                or util.free_port(),
                auth=('nova-mini-bmc', self.passwords['redfish']), tls=True,
                power_delay=redfish_power_delay, keep_state=True)
            # The CA of a previous ``up`` (an adopted emulator's).
            ca_file = os.path.join(self.redfish.state_dir, 'ca.pem')
            if os.path.exists(ca_file):
                self.redfish.ca_file = ca_file
        # The sample vendordata service and the metadata service's
        # StaticJSON + DynamicJSON (tools/stack.sh): when asked for, or
        # when a previous ``up`` set them up.
        sample_port = (vendordata_sample_port
                       or ports.get('vendordata_sample'))
        self.sample = (vendordata_sample.for_stack(self, sample_port)
                       if sample_port else None)

    def _load_record(self):
        try:
            with open(self.record_path) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def _save_record(self):
        record = {
            'ports': {'api': self.api_port, 'metadata': self.metadata_port,
                      'keystone': self.keystone_port,
                      'glance': self.glance_port,
                      'images': self.images_port},
            'redfish_systems': self.redfish_systems,
            'passwords': self.passwords,
            'metadata_proxy_shared_secret': self.metadata_secret,
            'exchange': self.exchange,
            'virtual_host': self.virtual_host,
            'virtual_host_made': self.virtual_host_made,
            'rabbit_user': self.rabbit_user,
            'rabbit_user_made': self.rabbit_user_made,
            'auth_url': self.keystone.auth_url,
            'image_url': self.glance.url,
            'http_url': self.images_server.url,
            'images': self.images,
            'compute_url': self.nova.compute_url,
            'metadata_url': self.nova.metadata_url,
            'transport_url': self.transport_url,
            'config_file': self.nova.conf_path,
            'rabbitmq_started': self.rabbit_started,
        }
        if self.sample:
            record['ports']['vendordata_sample'] = self.sample.port
        if self.redfish:
            record['ports']['redfish'] = self.redfish.port
            record['redfish_url'] = self.redfish.url
        os.makedirs(self.state_dir, exist_ok=True)
        fd = os.open(self.record_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                     0o600)
        with os.fdopen(fd, 'w') as f:
            json.dump(record, f, indent=2, sort_keys=True)

    # -- bringing it up

    def up(self, log=LOG.info, start_daemons=True):
        """Start whatever is not running yet; safe to repeat. Without
        ``start_daemons`` the daemons are only configured (their database
        synced), for a service manager to start.
        """
        os.makedirs(self.state_dir, exist_ok=True)
        self._check_ports(start_daemons)
        self._save_record()
        log('RabbitMQ: %s' % self.transport_url.replace(
            ':%s@' % self.rabbit_password, ':***@'))
        self.rabbit.ensure()
        if self.rabbit.started_here:
            self.rabbit_started = True
            self._save_record()
        if self.virtual_host != '/':
            if self.rabbit.add_virtual_host(self.virtual_host):
                self.virtual_host_made = True
                self._save_record()
        if self.rabbit_user and self.rabbit.add_user(
                self.rabbit_user, self.rabbit_password, self.virtual_host):
            self.rabbit_user_made = True
            self._save_record()

        # nova_mini's side (the emulator, the database, the daemons) needs
        # neither Keystone nor Glance to start, nor does Glance need
        # Keystone but for its images: they start while Keystone does.
        failed = []
        threads = [threading.Thread(target=self._in_thread,
                                    args=(failed, target) + args,
                                    name=name, daemon=True)
                   for name, target, args in (
                       ('nova-up', self._nova_side_up,
                        (log, start_daemons)),
                       ('glance-up', self._start_glance, (log,)))]
        for thread in threads:
            thread.start()
        try:
            if self.keystone.adopt() and self._adopted_keystone_answers():
                log('Keystone: already running on %s' % self.keystone.url)
            else:
                log('Keystone: venv %s' % ks.venv_dir())
                ks.ensure_venv()
                log('Keystone: setting up %s' % self.keystone.state_dir)
                self.keystone.setup()
                self.keystone.start()
                log('Keystone: running on %s' % self.keystone.url)
            self.create_identity_resources()
        finally:
            for thread in threads:
                thread.join()
        if failed:
            raise failed[0]
        self._glance_images(log)
        if self.redfish and start_daemons:
            self.enroll_redfish_nodes(log)
        self.write_openrc()
        return self

    def _nova_up(self, log, start_daemons):
        self.nova.adopt_all()
        self.nova.write_config()
        self.nova.db_sync()
        if self.sample:
            self.sample.adopt()
            vendordata_sample.write_static(self.sample)
            self.sample.write_config()
            if start_daemons and self.sample.running:
                log('%s: already running' % self.sample.name)
            elif start_daemons:
                proc = self.sample.start()
                log('%s: ready (pid %d, READY=1 received)'
                    % (self.sample.name, proc.pid))
        # Like Keystone and Glance, not one of nova_mini's daemons: started
        # here even when a service manager starts those.
        if self.images_server.adopt():
            log('%s: already running on %s' % (images_server.NAME,
                                               self.images_server.url))
        else:
            self.images_server.start()
            log('%s: serving %s on %s' % (
                images_server.NAME, self.images_server.http_root,
                self.images_server.url))
        for name in nova.DAEMONS if start_daemons else ():
            if name in self.nova.processes:
                log('%s: already running (pid %d)'
                    % (name, self.nova.processes[name].pid))
            else:
                proc = self.nova.start(name)
                log('%s: ready (pid %d, READY=1 received)'
                    % (name, proc.pid))

    def _redfish_up(self, log):
        if self.redfish.adopt():
            if self.redfish.answers():
                log('%s: already running on %s' % (redfish_emulator.NAME,
                                                   self.redfish.url))
                return
            LOG.warning('%s does not answer, restarting it; see %s',
                        redfish_emulator.NAME, self.redfish.log_path)
            self.redfish.stop()
        log('%s: venv %s' % (redfish_emulator.NAME, self.redfish.venv))
        self.redfish.start()
        log('%s: %d systems on %s (log %s)' % (
            redfish_emulator.NAME, len(self.redfish.systems),
            self.redfish.url, self.redfish.log_path))

    def enroll_redfish_nodes(self, log=LOG.info, timeout=120):
        """Enroll the emulator's systems as redfish nodes rf-0.. (through
        the API and nova-mini-conductor: manage reads their power from the
        BMC), provided; their names.
        """
        if not self.redfish:
            return []
        baremetal = redfish_nodes.BareMetal(self.nova.baremetal_url,
                                            self.token('admin'))
        return redfish_nodes.enroll(baremetal, self.redfish, log=log,
                                    timeout=timeout)

    @staticmethod
    def _in_thread(failed, target, *args):
        """``target(*args)``, in a thread: what stops it is appended to
        ``failed``.
        """
        try:
            target(*args)
        except BaseException as exc:
            failed.append(exc)

    def _nova_side_up(self, log, start_daemons):
        """Start the Redfish emulator (if any) and nova_mini's side."""
        if self.redfish:
            self._redfish_up(log)
        self._nova_up(log, start_daemons)

    def _start_glance(self, log):
        """Start Glance unless it runs (its images come later: they need
        Keystone).
        """
        running = False
        if self.glance.adopt():
            try:
                running = util.wait_until(self.glance.answers, 60,
                                          'Glance on %s' % self.glance.url)
            except util.ServiceError:
                LOG.warning('Glance does not answer, restarting it; see %s',
                            self.glance.log_path)
                self.glance.stop()
        if running:
            log('Glance: already running on %s' % self.glance.url)
        else:
            log('Glance: venv %s' % glance_deploy.venv_dir())
            glance_deploy.ensure_venv()
            self.glance.setup()
            self.glance.start()
            log('Glance: running on %s' % self.glance.url)

    def _glance_images(self, log):
        """Upload the stack's images unless Glance has them."""
        session = self.glance.session('admin', self.passwords['admin'],
                                      'admin')
        self.images = self.glance.ensure_images(session)
        if self.redfish:
            # What a server on a redfish node boots from virtual media.
            self.images[redfish_nodes.ISO_IMAGE] = (
                redfish_nodes.ensure_iso_image(self.glance, session))
        self._save_record()
        for name, image_id in sorted(self.images.items()):
            log('Glance: image %s (%s)' % (name, image_id))

    def _check_ports(self, start_daemons):
        """Fail at once, not after minutes of set-up, if a port we are to
        listen on is taken by something other than this stack.
        """
        wanted = {service.name: (service.port, service.pid_path,
                                 service.proc_name)
                  for service in (self.keystone, self.glance)}
        wanted[images_server.NAME] = (self.images_port,
                                      self.images_server.pid_path,
                                      images_server.NAME)
        if self.redfish:
            wanted[redfish_emulator.NAME] = (
                self.redfish.port, self.redfish.pid_path,
                redfish_emulator.NAME)
        if start_daemons:
            for name, port in ((nova.API, self.api_port),
                               (nova.METADATA, self.metadata_port)):
                wanted[name] = (port, os.path.join(self.nova.run_dir,
                                                   name + '.pid'), name)
            if self.sample:
                wanted[self.sample.name] = (
                    self.sample.port, os.path.join(
                        self.nova.run_dir, self.sample.name + '.pid'),
                    vendordata_sample.SCRIPT)
        for name, (port, pid_path, expect) in wanted.items():
            ours = util.Process.adopt(name, pid_path, None, expect)
            if not ours and util.port_open(util.LOCALHOST, port):
                raise util.ServiceError('port %d is taken: cannot start %s'
                                        % (port, name))

    def _adopted_keystone_answers(self):
        try:
            return util.wait_until(self.keystone.answers, 60,
                                   'Keystone on %s' % self.keystone.url)
        except util.ServiceError:
            log_path = self.keystone.log_path
            LOG.warning('Keystone (pid %d) does not answer, restarting it;'
                        ' see %s', self.keystone.process.pid, log_path)
            self.keystone.stop()
            return False

    def create_identity_resources(self):
        """Projects, users, roles, and the compute and baremetal services in
        the catalog.
        """
        admin = self.keystone.admin_client()
        roles = {role: admin.ensure_role(role)
                 for role in ('admin', 'member', 'reader')}
        projects = {}
        for user, (project, role) in USERS.items():
            if project not in projects:
                projects[project] = admin.ensure_project(project)
            user_id = admin.ensure_user(user, self.passwords[user],
                                        projects[project])
            admin.grant(projects[project], user_id, roles[role])
        for service_type, name, description, url in (
                ('compute', 'nova', 'nova_mini Compute API',
                 self.nova.compute_url),
                ('baremetal', 'ironic', 'nova_mini Bare Metal API',
                 self.nova.baremetal_url),
                ('image', 'glance', 'Glance Image Service',
                 self.glance.url)):
            service_id = admin.ensure_service(service_type, name,
                                              description)
            admin.ensure_endpoints(service_id, url)

    # -- credentials

    def openstack(self, *args, user='admin', check=True, timeout=180,
                  **env):
        """Run ``openstack ARGS`` (python-openstackclient, unchanged) as
        ``user``, with ``env`` added to its environment; the completed
        process. With ``check``, a non-zero exit fails with the output.
        Commands run in a runner process of this stack's (see
        openstack_runner) unless ``openstack_in_process`` is False: each
        in a new process then.
        """
        env = util.clean_env(**dict(self.credentials(user), **env))
        if self.openstack_in_process:
            if self._openstack_pool is None:
                self._openstack_pool = openstack_runner.Pool(
                    nova.script('openstack'),
                    os.path.join(self.state_dir, 'openstack-runner.log'))
            proc = self._openstack_pool.run(args, env, timeout)
        else:
            proc = openstack_runner.run_process(nova.script('openstack'),
                                                args, env, timeout)
        if check:
            assert proc.returncode == 0, (
                'openstack %s: exit %d\n%s%s' % (
                    ' '.join(map(str, args)), proc.returncode, proc.stdout,
                    proc.stderr))
        return proc

    def close_openstack(self):
        """Stop the runner processes of :meth:`openstack`."""
        pool, self._openstack_pool = self._openstack_pool, None
        if pool:
            pool.close()

    def credentials(self, user='admin'):
        """The OS_* variables of ``user`` (admin or demo)."""
        project = 'admin' if user == 'admin' else USERS[user][0]
        return {
            'OS_AUTH_URL': self.keystone.auth_url,
            'OS_IDENTITY_API_VERSION': '3',
            'OS_AUTH_TYPE': 'password',
            'OS_USERNAME': user,
            'OS_PASSWORD': self.passwords[user],
            'OS_PROJECT_NAME': project,
            'OS_USER_DOMAIN_NAME': 'Default',
            'OS_PROJECT_DOMAIN_NAME': 'Default',
            'OS_REGION_NAME': ks.REGION,
            'OS_INTERFACE': 'public',
        }

    def token(self, user='admin'):
        creds = self.credentials(user)
        return ks.issue_token(creds['OS_AUTH_URL'], user,
                              creds['OS_PASSWORD'], creds['OS_PROJECT_NAME'])

    def write_openrc(self):
        bin_dir = os.path.dirname(sys.executable)
        for user, name in (('admin', 'openrc'), ('demo', 'openrc-demo')):
            lines = ['# nova_mini: credentials of %s; source this file.'
                     % user]
            lines += ['export %s=%s' % (k, shlex.quote(v))
                      for k, v in self.credentials(user).items()]
            lines.append('export PATH=%s:"$PATH"' % shlex.quote(bin_dir))
            path = os.path.join(self.state_dir, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, 'w') as f:
                f.write('\n'.join(lines) + '\n')

    def detach(self):
        """Leave everything running after this process exits."""
        for proc in list(self.nova.processes.values()) + [
                self.keystone.process, self.glance.process,
                self.images_server.process,
                self.redfish and self.redfish.process]:
            if proc:
                proc.release()

    # -- taking it down

    def adopt(self):
        """Find the processes a previous ``up`` left running."""
        self.keystone.adopt()
        self.glance.adopt()
        self.images_server.adopt()
        if self.redfish:
            self.redfish.adopt()
        self.nova.adopt_all()
        if self.sample:
            self.sample.adopt()
        return self

    def status(self):
        """``{name: pid or None}`` of the processes of this stack."""
        status = {name: (proc.pid if proc.running else None)
                  for name, proc in self.nova.processes.items()}
        for name in nova.DAEMONS:
            status.setdefault(name, None)
        if self.sample:
            status.setdefault(self.sample.name, None)
        proc = self.keystone.process
        status['keystone'] = proc.pid if proc and proc.running else None
        proc = self.glance.process
        status['glance'] = proc.pid if proc and proc.running else None
        proc = self.images_server.process
        status[images_server.NAME] = (proc.pid if proc and proc.running
                                      else None)
        if self.redfish:
            proc = self.redfish.process
            status[redfish_emulator.NAME] = (proc.pid if proc
                                             and proc.running else None)
        return status

    def down(self, stop_rabbit=True):
        """Stop the daemons and Keystone, delete the virtual host and stop
        RabbitMQ if made or started here; ``{name: exit status}`` of the
        daemons.
        """
        self.close_openstack()
        keystone = self.keystone.process
        glance = self.glance.process
        for proc in (keystone, glance):
            if proc and proc.running:
                proc.send_signal(signal.SIGTERM)     # in parallel
        try:
            codes = self.nova.stop_all()
            if self.images_server.process:
                codes[images_server.NAME] = self.images_server.stop()
            if self.redfish and self.redfish.process:
                codes[redfish_emulator.NAME] = self.redfish.stop()
            self.glance.stop()
            self.keystone.stop()
        finally:
            # Even when a daemon would not stop: a test run's virtual host
            # must not outlive it.
            self._release_rabbit(stop_rabbit)
        return codes

    def _release_rabbit(self, stop_rabbit):
        """Delete the virtual host if made here; stop RabbitMQ if started
        here and ``stop_rabbit``.
        """
        released = False
        try:
            if self.rabbit_user_made:
                self.rabbit.delete_user(self.rabbit_user)
                self.rabbit_user_made, released = False, True
            if self.virtual_host_made:
                self.rabbit.delete_virtual_host(self.virtual_host)
                self.virtual_host_made, released = False, True
        finally:
            if stop_rabbit and self.rabbit_started:
                self.rabbit.started_here = True
                self.rabbit.stop()
                self.rabbit_started, released = False, True
            if released and os.path.exists(self.record_path):
                self._save_record()

    def log_files(self):
        """Every log of this stack, for printing on failure."""
        paths = [os.path.join(self.nova.log_dir, name)
                 for name in sorted(os.listdir(self.nova.log_dir))
                 if name.endswith('.log')] if os.path.isdir(
                     self.nova.log_dir) else []
        paths += [self.keystone.log_path, self.keystone.setup_log,
                  self.glance.log_path, self.glance.setup_log,
                  self.images_server.log_path]
        if self.redfish:
            paths.append(self.redfish.log_path)
        return [p for p in paths if os.path.exists(p)]
