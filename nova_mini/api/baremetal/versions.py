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

"""The bare-metal API's microversion history: one entry per version.

The versions are Ironic's, 1.1 to 1.37; everything nova_mini serves
behaves at each of them as Ironic does (see doc/source/reference/
baremetal-api.rst). Add a version by appending one line here and naming it
below if code checks it; tests check the order, names and newest version.
"""

from nova_mini.api import microversion
from nova_mini import exception

HISTORY = [
    ('1.1', 'Initial version of the v1 API.'),
    ('1.2', 'The "available" provision state is shown by name.'),
    ('1.3', 'driver_internal_info of nodes.'),
    ('1.4', 'manage and provide provision targets; manageable state.'),
    ('1.5', 'Node names, and nodes found by name.'),
    ('1.6', 'inspect provision target.'),
    ('1.7', 'clean_step of nodes.'),
    ('1.8', 'fields= query parameter on node list and show.'),
    ('1.9', 'provision_state filter of node lists.'),
    ('1.10', 'Node names of any unreserved URL characters.'),
    ('1.11', 'New nodes start in the enroll state.'),
    ('1.12', 'RAID configuration of nodes.'),
    ('1.13', 'abort provision target.'),
    ('1.14', 'states links of nodes; driver properties links.'),
    ('1.15', 'Manual cleaning.'),
    ('1.16', 'driver filter of node lists.'),
    ('1.17', 'adopt provision target.'),
    ('1.18', 'internal_info of ports.'),
    ('1.19', 'Advanced networking fields of ports.'),
    ('1.20', 'network_interface of nodes.'),
    ('1.21', 'resource_class of nodes, and its filter.'),
    ('1.22', 'Ramdisk lookup and heartbeat endpoints.'),
    ('1.23', 'Port groups.'),
    ('1.24', 'Port group subresources of nodes.'),
    ('1.25', 'A node\'s chassis_uuid may be unset.'),
    ('1.26', 'Port group mode and properties.'),
    ('1.27', 'Soft power off and soft reboot.'),
    ('1.28', 'VIFs subresource of nodes.'),
    ('1.29', 'Inject NMI.'),
    ('1.30', 'Dynamic drivers.'),
    ('1.31', 'Dynamic interfaces of nodes.'),
    ('1.32', 'Volume resources.'),
    ('1.33', 'storage_interface of nodes.'),
    ('1.34', 'physical_network of ports.'),
    ('1.35', 'Config drive on rebuild.'),
    ('1.36', 'Agent version in heartbeats.'),
    ('1.37', 'Node traits.'),
]

# Versions that code checks, by what they changed. A range that ends
# where a change begins is written with the change's version (a
# validation schema list, or ``version < X``), never the one before.
AVAILABLE_STATE = microversion.APIVersion('1.2')
MANAGEMENT_VERBS = microversion.APIVersion('1.4')
NODE_NAME = microversion.APIVersion('1.5')
FIELDS_SELECTOR = microversion.APIVersion('1.8')
PROVISION_STATE_FILTER = microversion.APIVersion('1.9')
UNRESTRICTED_NODE_NAME = microversion.APIVersion('1.10')
ENROLL_STATE = microversion.APIVersion('1.11')
STATES_LINKS = microversion.APIVersion('1.14')
DRIVER_FILTER = microversion.APIVersion('1.16')
RESOURCE_CLASS = microversion.APIVersion('1.21')
NODE_TRAITS = microversion.APIVersion('1.37')

BAREMETAL_API = microversion.VersionedAPI(
    service_type='baremetal',
    legacy_header='X-OpenStack-Ironic-API-Version',
    history=HISTORY,
    headers=microversion.IronicHeaders(),
    malformed=exception.MalformedAPIVersion,
    unsupported=exception.BaremetalAPIVersionNotSupported,
    latest_any_case=True)
