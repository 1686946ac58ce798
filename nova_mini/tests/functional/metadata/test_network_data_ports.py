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

"""network_data.json lists the ports of the instance's node as links,
with their MAC addresses, in the order the ports were created.
"""

from nova_mini import context as nm_context
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import metadata_service


def test_links_are_the_ports_of_the_node(app, make_instance):
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, 'node-ports')
    other = builders.create_node(admin, 'node-elsewhere')
    first = builders.create_port(admin, node, '52:54:00:12:34:01')
    second = builders.create_port(admin, node, '52:54:00:12:34:02',
                                  pxe_enabled=False)
    builders.create_port(admin, other, '52:54:00:12:34:03')
    instance = make_instance(node_uuid=node.uuid)
    resp = app.get('/openstack/2015-10-15/network_data.json',
                   headers=metadata_service.headers(instance.uuid))
    assert resp.json == {
        'links': [
            {'id': 'interface0', 'vif_id': first.uuid, 'type': 'phy',
             'mtu': None, 'ethernet_mac_address': '52:54:00:12:34:01'},
            {'id': 'interface1', 'vif_id': second.uuid, 'type': 'phy',
             'mtu': None, 'ethernet_mac_address': '52:54:00:12:34:02'}],
        'networks': [], 'services': []}
