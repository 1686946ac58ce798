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

"""The stack's ``redfish`` nodes: the systems of a sushy-tools emulator
(nova_mini_deploy.redfish_emulator) enrolled through the bare-metal API,
managed (the conductor reads their power from the BMC) and provided; and
the small ISO 9660 image a server on them boots from virtual media.

Enrollment talks to the API over HTTP with a token (no openstack CLI: a
dozen CLI runs would cost seconds each) and is idempotent: a node of the
name that exists is left as it is.
"""

import io
import time

from nova_mini_deploy import util

# The resource class of the stack's redfish nodes: flavors ask for
# resources:CUSTOM_BAREMETAL_REDFISH=1 (the fake-hardware nodes' is
# "baremetal").
RESOURCE_CLASS = 'baremetal-redfish'
NODE_PREFIX = 'rf-'
ISO_IMAGE = 'nova-mini-boot-iso'
API_VERSION = '1.65'
PROPERTIES = {'cpus': 8, 'memory_mb': 16384, 'local_gb': 100,
              'cpu_arch': 'x86_64'}


def boot_iso(label='NOVA_MINI', payload=b'nova_mini boot image\n'):
    """A tiny ISO 9660 image (Glance checks an iso image's data) holding
    one file.
    """
    import pycdlib

    image = pycdlib.PyCdlib()
    image.new(interchange_level=3, vol_ident=label)
    image.add_fp(io.BytesIO(payload), len(payload), '/README.TXT;1')
    out = io.BytesIO()
    image.write_fp(out)
    image.close()
    return out.getvalue()


def ensure_iso_image(glance, session, name=ISO_IMAGE):
    """The id of the public iso image ``name`` in Glance, uploaded if
    missing.
    """
    found = session.get(glance.url + '/v2/images',
                        params={'name': name}).json()['images']
    for image in found:
        if image['status'] == 'active':
            return image['id']
        session.delete(glance.url + '/v2/images/%s' % image['id'])
    image = session.post(glance.url + '/v2/images', json={
        'name': name, 'disk_format': 'iso', 'container_format': 'bare',
        'visibility': 'public'}).json()
    session.put(glance.url + '/v2/images/%s/file' % image['id'],
                data=boot_iso(),
                headers={'Content-Type': 'application/octet-stream'})
    return image['id']


def driver_info(emulator, system):
    """Ironic's redfish driver_info of one of ``emulator``'s systems."""
    info = {'redfish_address': emulator.url,
            'redfish_system_id': system['system_id']}
    if emulator.auth:
        info.update(redfish_username=emulator.auth[0],
                    redfish_password=emulator.auth[1])
    if emulator.tls:
        info['redfish_verify_ca'] = emulator.ca_file
    return info


class BareMetal(util.TokenAPI):
    """The bare-metal API of a stack, with a token."""

    def __init__(self, url, token, timeout=30):
        super().__init__(url.rstrip('/') + '/v1', token, timeout, headers={
            'X-OpenStack-Ironic-API-Version': API_VERSION})

    def node(self, ident):
        resp = self.request('GET', '/nodes/%s' % ident, expect=(200, 404))
        return resp.json() if resp.status_code == 200 else None

    def create(self, name, info, resource_class=RESOURCE_CLASS,
               properties=None):
        return self.request('POST', '/nodes', expect=(201,), json={
            'name': name, 'driver': 'redfish', 'driver_info': info,
            'resource_class': resource_class,
            'properties': dict(properties or PROPERTIES)}).json()

    def provision(self, ident, target):
        self.request('PUT', '/nodes/%s/states/provision' % ident,
                     expect=(202,), json={'target': target})

    def wait(self, ident, provision_state, timeout=120):
        """Poll until the node is in ``provision_state`` and unreserved;
        the node. A last_error or a state it cannot leave fails.
        """
        deadline = time.monotonic() + timeout
        while True:
            node = self.node(ident)
            if (node['provision_state'] == provision_state
                    and not node.get('reservation')
                    and not node.get('target_provision_state')):
                return node
            if (node.get('last_error') and not node.get('reservation')
                    and not node.get('target_provision_state')):
                raise util.ServiceError('node %s: %s (%s)' % (
                    ident, node['provision_state'], node['last_error']))
            if time.monotonic() > deadline:
                raise util.ServiceError(
                    'node %s not %s in %d s: %s' % (
                        ident, provision_state, timeout,
                        node['provision_state']))
            time.sleep(0.3)


def enroll(baremetal, emulator, prefix=NODE_PREFIX, log=None,
           timeout=120):
    """Enroll ``emulator``'s systems as redfish nodes ``<prefix><n>``,
    manage and provide them (all at once); ``[name]``. Nodes that exist
    are left alone.
    """
    names = []
    started = []
    for index, system in enumerate(emulator.systems):
        name = '%s%d' % (prefix, index)
        names.append(name)
        node = baremetal.node(name)
        if node is None:
            node = baremetal.create(name, driver_info(emulator, system))
        if node['provision_state'] == 'enroll':
            baremetal.provision(name, 'manage')
            started.append(name)
        elif log:
            log('node %s: exists (%s)' % (name, node['provision_state']))
    for name in started:
        baremetal.wait(name, 'manageable', timeout)
        baremetal.provision(name, 'provide')
    for name in started:
        node = baremetal.wait(name, 'available', timeout)
        if log:
            log('node %s: redfish %s, %s, %s' % (
                name, node['driver_info']['redfish_system_id'],
                node['power_state'], node['provision_state']))
    return names
