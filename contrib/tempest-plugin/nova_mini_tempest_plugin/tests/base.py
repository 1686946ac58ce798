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

"""What the plugin's tests share: clients for a project member and an
administrator (Tempest's dynamic credentials), and resources that clean
up after themselves.
"""

from tempest import config
from tempest.lib.common.utils import data_utils
from tempest.lib.common.utils import test_utils
from tempest import test

CONF = config.CONF


def custom_name(prefix):
    """A unique name fit for a resource class or (with a CUSTOM_ prefix)
    a trait: capitals, digits and underscores.
    """
    return '%s_%s' % (prefix, data_utils.rand_uuid_hex()[:12].upper())


class BaseNovaMiniTest(test.BaseTestCase):

    credentials = ['primary', 'admin']

    @classmethod
    def skip_checks(cls):
        super().skip_checks()
        if not CONF.service_available.nova_mini:
            raise cls.skipException('nova_mini is not the compute service '
                                    '([service_available] nova_mini)')

    @classmethod
    def setup_clients(cls):
        super().setup_clients()
        cls.compute = cls.os_primary.nova_mini_compute.NovaMiniComputeClient()
        cls.admin_compute = (
            cls.os_admin.nova_mini_compute.NovaMiniComputeClient())
        cls.admin_baremetal = (
            cls.os_admin.nova_mini_baremetal.NovaMiniBaremetalClient())

    def create_flavor(self, **fields):
        fields.setdefault('name', data_utils.rand_name('nova-mini-flavor'))
        fields.setdefault('ram', 512)
        fields.setdefault('vcpus', 1)
        fields.setdefault('disk', 1)
        flavor = self.admin_compute.create_flavor(**fields)['flavor']
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.admin_compute.delete_flavor, flavor['id'])
        return flavor

    def create_node(self, resource_class, traits=()):
        """An available node of ``resource_class``, removed at the end."""
        node = self.admin_baremetal.create_node(
            driver=CONF.nova_mini.node_driver,
            name=data_utils.rand_name('nova-mini-node'),
            resource_class=resource_class,
            properties={'cpus': 4, 'memory_mb': 4096, 'local_gb': 20})
        uuid = node['uuid']
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.admin_baremetal.delete_node, uuid)
        if traits:
            self.admin_baremetal.set_traits(uuid, list(traits))
        for target, state in (('manage', 'manageable'),
                              ('provide', 'available')):
            self.admin_baremetal.set_provision_state(uuid, target)
            self.admin_baremetal.wait_for_provision_state(uuid, state)
        return uuid

    def bare_metal_flavor(self, resource_class, extra_specs=None):
        """A flavor asking for one node of ``resource_class``."""
        flavor = self.create_flavor(ram=4096, vcpus=4, disk=20)
        specs = {'resources:CUSTOM_%s' % resource_class: '1',
                 'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                 'resources:DISK_GB': '0'}
        specs.update(extra_specs or {})
        self.admin_compute.set_extra_specs(flavor['id'], specs)
        return flavor

    def boot_server(self, flavor_id, **fields):
        """Boot a server as the project member and wait for ACTIVE; it is
        deleted (and waited for) at the end.
        """
        if not CONF.compute.image_ref:
            raise self.skipException('[compute] image_ref is not set')
        server = self.compute.create_server(
            name=data_utils.rand_name('nova-mini-server'),
            flavorRef=flavor_id, imageRef=CONF.compute.image_ref,
            **fields)['server']
        self.addCleanup(self.compute.wait_for_server_gone, server['id'])
        self.addCleanup(test_utils.call_and_ignore_notfound_exc,
                        self.compute.delete_server, server['id'])
        return self.compute.wait_for_server_status(server['id'], 'ACTIVE')
