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

"""The sample vendordata service (nova-mini-vendordata-sample) of a
stack: its own config file and process, ready once it has sent READY=1
and answers GET /healthcheck.

Its process joins the NovaMini's, so ``NovaMini.stop_all`` (and a stack's
``down``) stops it with the daemons.
"""

import hashlib
import json
import os

from nova_mini_deploy import nova
from nova_mini_deploy import util

SCRIPT = 'nova-mini-vendordata-sample'


class VendordataSample(object):
    """One sample service of the NovaMini ``nova_mini``.

    :param keystone: None for ``auth_strategy = noauth``, else a dict with
        ``auth_url``, ``username`` and ``password`` (of a user with the
        admin role in project ``service``, to validate tokens with).
    :param options: more ``[vendordata_sample]`` options.
    """

    def __init__(self, nova_mini, port=None, name=SCRIPT, keystone=None,
                 options=None):
        self.nova = nova_mini
        self.port = port or util.free_port()
        self.name = name
        self.keystone = keystone
        self.options = dict(options or {})
        self.conf_path = os.path.join(nova_mini.etc_dir, name + '.conf')
        self.log_path = os.path.join(nova_mini.log_dir, name + '.log')

    @property
    def url(self):
        """The URL of the DynamicJSON target."""
        return 'http://%s:%d/' % (util.LOCALHOST, self.port)

    def config_sections(self):
        sections = {
            'DEFAULT': {'debug': str(self.nova.debug).lower()},
            'vendordata_sample': dict({
                'bind_host': util.LOCALHOST,
                'bind_port': self.port,
                'auth_strategy': 'keystone' if self.keystone else 'noauth',
            }, **self.options),
        }
        if self.keystone:
            sections['keystone_authtoken'] = {
                'www_authenticate_uri': self.keystone['auth_url'],
                'auth_url': self.keystone['auth_url'],
                'auth_type': 'password',
                'username': self.keystone.get('username', 'nova'),
                'password': self.keystone['password'],
                'project_name': 'service',
                'user_domain_name': 'Default',
                'project_domain_name': 'Default',
            }
        return sections

    def write_config(self):
        os.makedirs(self.nova.etc_dir, exist_ok=True)
        nova.write_ini(self.conf_path, self.config_sections())
        os.chmod(self.conf_path, 0o600)
        return self.conf_path

    def start(self, timeout=60):
        """Write the config, start the service, wait until it answers."""
        self.write_config()
        if util.port_open(util.LOCALHOST, self.port):
            raise util.ServiceError('port %d is taken: cannot start %s'
                                    % (self.port, self.name))
        proc = self.nova.daemon(SCRIPT, self.name, [self.conf_path])
        proc.start(ready_timeout=timeout)
        health = self.url + 'healthcheck'
        try:
            util.wait_until(lambda: nova.http_status(health) == 200,
                            timeout, 'GET %s' % health, interval=0.2,
                            abort=proc._exited)
        except util.ServiceError as exc:
            proc.stop(10)
            raise util.ServiceError('%s did not answer: %s%s' % (
                self.name, exc, util._log_hint(proc.log_path)))
        self.nova.processes[self.name] = proc
        return proc

    def adopt(self):
        """Take over the service a previous ``up`` left running."""
        proc = util.Process.adopt(
            self.name, os.path.join(self.nova.run_dir, self.name + '.pid'),
            self.log_path, expect=SCRIPT)
        if proc:
            self.nova.processes[self.name] = proc
        return proc

    @property
    def running(self):
        proc = self.nova.processes.get(self.name)
        return bool(proc and proc.running)

    def stop(self, timeout=30):
        return self.nova.stop(self.name, timeout)

    def calls(self, instance_id=None):
        """How many POSTs the service has answered (for ``instance_id``
        only, if given), counted in its log.
        """
        marker = 'Vendordata of instance %s' % (instance_id or '')
        try:
            with open(self.log_path, errors='replace') as f:
                return sum(1 for line in f if marker in line)
        except FileNotFoundError:
            return 0


# -- the stack of tools/stack.sh

# A StaticJSON document for a deployment to replace with its own.
STATIC_VENDORDATA = {
    'cloud-name': 'nova_mini',
    'ntp-servers': ['0.debian.pool.ntp.org', '1.debian.pool.ntp.org'],
    'support': 'https://example.org/cloud-support',
}


def for_stack(stack, port):
    """The sample of ``stack`` on ``port``, and the stack's metadata
    service configured for it: StaticJSON (a file of the state directory)
    and DynamicJSON with the target ``sample``, called with a token of the
    ``nova`` service user. Call ``write_static`` before the metadata
    service starts.
    """
    keystone = {'auth_url': stack.keystone.auth_url, 'username': 'nova',
                'password': stack.passwords['nova']}
    # Stable across runs of stack.sh, different for every stack.
    join_secret = hashlib.sha256(
        ('vendordata-join:%s' % stack.metadata_secret).encode()).hexdigest()
    sample = VendordataSample(stack.nova, port=port, keystone=keystone,
                              options={'join_secret': join_secret})
    sample.static_path = os.path.join(stack.nova.etc_dir,
                                      'vendordata-static.json')
    stack.nova.extra_sections.update({
        'api': {
            'vendordata_providers': 'StaticJSON,DynamicJSON',
            'vendordata_jsonfile_path': sample.static_path,
            'vendordata_dynamic_targets': 'sample@%s' % sample.url,
        },
        'vendordata_dynamic_auth': {
            'auth_type': 'password',
            'auth_url': keystone['auth_url'],
            'username': 'nova',
            'password': keystone['password'],
            'project_name': 'service',
            'user_domain_name': 'Default',
            'project_domain_name': 'Default',
        },
    })
    return sample


def write_static(sample):
    """The StaticJSON file, unless the deployer has written one."""
    if not os.path.exists(sample.static_path):
        os.makedirs(os.path.dirname(sample.static_path), exist_ok=True)
        with open(sample.static_path, 'w') as f:
            json.dump(STATIC_VENDORDATA, f, indent=2, sort_keys=True)
            f.write('\n')
    return sample.static_path
