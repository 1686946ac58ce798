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

"""Servers show the flavor they were built with (2.47): its values and
extra specs as they were at boot, whatever happens to the flavor later.
"""

from tempest.lib import decorators

from nova_mini_tempest_plugin.tests import base


class ServerEmbeddedFlavorTest(base.BaseNovaMiniTest):

    @decorators.idempotent_id('1a7c4e9b-3d2f-4b6a-8c1e-5f9d2a7b0c31')
    def test_server_keeps_its_flavor(self):
        resource_class = base.custom_name('NMRC')
        gold = base.custom_name('CUSTOM_GOLD')
        node = self.create_node(resource_class, traits=[gold])
        flavor = self.bare_metal_flavor(
            resource_class, {'trait:%s' % gold: 'required'})
        specs = self.admin_compute.list_extra_specs(
            flavor['id'])['extra_specs']

        server = self.boot_server(flavor['id'])

        embedded = self.compute.show_server(server['id'],
                                            version='2.47')['server']
        self.assertEqual({'original_name': flavor['name'], 'vcpus': 4,
                          'ram': 4096, 'disk': 20, 'ephemeral': 0,
                          'swap': 0, 'extra_specs': specs},
                         embedded['flavor'])
        # Before 2.47 the flavor is a reference.
        older = self.compute.show_server(server['id'],
                                         version='2.46')['server']
        self.assertEqual(flavor['id'], older['flavor']['id'])
        # The server landed on the node with the trait.
        detail = self.admin_baremetal.show_node(node)
        self.assertEqual('active', detail['provision_state'])

        # The flavor changes; the server's copy does not.
        self.admin_compute.set_extra_specs(flavor['id'],
                                           {'hw:cpu_policy': 'dedicated'})
        again = self.compute.show_server(server['id'],
                                         version='2.47')['server']
        self.assertEqual(specs, again['flavor']['extra_specs'])
