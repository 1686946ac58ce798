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

The versions are Ironic's, 1.1 to 1.65; everything nova_mini serves
behaves at each of them as Ironic does, and every node and port field of
each version is served (see doc/source/reference/baremetal-api.rst,
which lists the resources of these versions nova_mini does not have).
Add a version by appending one line here and naming it below if code
checks it (``req.since(versions.X)``, see nova_mini.api.microversion), or
by adding it to one of the tables of what came later (node filters, port
fields, provision targets); tests check the order, names and newest
version.
"""

from nova_mini.api import microversion
from nova_mini import exception
from nova_mini import states

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
    ('1.38', 'rescue and unrescue provision targets.'),
    ('1.39', 'inspect wait provision state.'),
    ('1.40', 'BIOS settings of nodes.'),
    ('1.41', 'abort of inspection.'),
    ('1.42', 'fault of nodes.'),
    ('1.43', 'detail= query parameter of lists.'),
    ('1.44', 'deploy_step of nodes.'),
    ('1.45', 'reset_interfaces parameter of node patches.'),
    ('1.46', 'conductor_group of nodes.'),
    ('1.47', 'automated_clean of nodes.'),
    ('1.48', 'protected of nodes.'),
    ('1.49', 'conductor of nodes; conductors resource.'),
    ('1.50', 'owner of nodes, and its filter.'),
    ('1.51', 'description of nodes.'),
    ('1.52', 'Allocations.'),
    ('1.53', 'Smart NIC ports.'),
    ('1.54', 'Events.'),
    ('1.55', 'Deploy templates.'),
    ('1.56', 'Config drives built from JSON.'),
    ('1.57', 'Allocation updates.'),
    ('1.58', 'Allocation backfilling.'),
    ('1.59', 'Vendor data in config drives.'),
    ('1.60', 'owner of allocations.'),
    ('1.61', 'retired and retired_reason of nodes.'),
    ('1.62', 'Agent tokens.'),
    ('1.63', 'Indicators.'),
    ('1.64', 'network_type of port local link connections.'),
    ('1.65', 'lessee of nodes, and its filter.'),
]

# Versions that code checks, by what they changed. A range that ends
# where a change begins is written with the change's version (a
# validation schema list, or ``not req.since(X)``), never the one before.
AVAILABLE_STATE = microversion.APIVersion('1.2')
DRIVER_INTERNAL_INFO = microversion.APIVersion('1.3')
MANAGEMENT_VERBS = microversion.APIVersion('1.4')
NODE_NAME = microversion.APIVersion('1.5')
INSPECTION_TIMES = microversion.APIVersion('1.6')
CLEAN_STEP = microversion.APIVersion('1.7')
FIELDS_SELECTOR = microversion.APIVersion('1.8')
PROVISION_STATE_FILTER = microversion.APIVersion('1.9')
UNRESTRICTED_NODE_NAME = microversion.APIVersion('1.10')
ENROLL_STATE = microversion.APIVersion('1.11')
RAID_CONFIG = microversion.APIVersion('1.12')
ABORT_VERB = microversion.APIVersion('1.13')
STATES_LINKS = microversion.APIVersion('1.14')
MANUAL_CLEAN = microversion.APIVersion('1.15')
DRIVER_FILTER = microversion.APIVersion('1.16')
ADOPT_VERB = microversion.APIVersion('1.17')
PORT_INTERNAL_INFO = microversion.APIVersion('1.18')
PORT_LOCAL_LINK = microversion.APIVersion('1.19')
NETWORK_INTERFACE = microversion.APIVersion('1.20')
RESOURCE_CLASS = microversion.APIVersion('1.21')
RAMDISK_ENDPOINTS = microversion.APIVersion('1.22')
PORTGROUPS = microversion.APIVersion('1.23')
PORT_PORTGROUP = microversion.APIVersion('1.24')
UNSET_CHASSIS = microversion.APIVersion('1.25')
PORTGROUP_MODE = microversion.APIVersion('1.26')
SOFT_POWER_OFF = microversion.APIVersion('1.27')
VIFS = microversion.APIVersion('1.28')
INJECT_NMI = microversion.APIVersion('1.29')
DYNAMIC_DRIVERS = microversion.APIVersion('1.30')
HARDWARE_INTERFACES = microversion.APIVersion('1.31')
VOLUME = microversion.APIVersion('1.32')
STORAGE_INTERFACE = microversion.APIVersion('1.33')
PHYSICAL_NETWORK = microversion.APIVersion('1.34')
REBUILD_CONFIG_DRIVE = microversion.APIVersion('1.35')
AGENT_VERSION = microversion.APIVersion('1.36')
NODE_TRAITS = microversion.APIVersion('1.37')
RESCUE_INTERFACE = microversion.APIVersion('1.38')
BIOS_INTERFACE = microversion.APIVersion('1.40')
FAULT = microversion.APIVersion('1.42')
DETAIL_QUERY = microversion.APIVersion('1.43')
DEPLOY_STEP = microversion.APIVersion('1.44')
RESET_INTERFACES = microversion.APIVersion('1.45')
CONDUCTOR_GROUP = microversion.APIVersion('1.46')
AUTOMATED_CLEAN = microversion.APIVersion('1.47')
PROTECTED = microversion.APIVersion('1.48')
CONDUCTOR = microversion.APIVersion('1.49')
NODE_OWNER = microversion.APIVersion('1.50')
DESCRIPTION = microversion.APIVersion('1.51')
ALLOCATION = microversion.APIVersion('1.52')
SMART_NIC = microversion.APIVersion('1.53')
EVENTS = microversion.APIVersion('1.54')
DEPLOY_TEMPLATES = microversion.APIVersion('1.55')
BUILD_CONFIG_DRIVE = microversion.APIVersion('1.56')
ALLOCATION_UPDATE = microversion.APIVersion('1.57')
ALLOCATION_BACKFILL = microversion.APIVersion('1.58')
CONFIG_DRIVE_VENDOR_DATA = microversion.APIVersion('1.59')
ALLOCATION_OWNER = microversion.APIVersion('1.60')
RETIRED = microversion.APIVersion('1.61')
AGENT_TOKEN = microversion.APIVersion('1.62')
INDICATORS = microversion.APIVersion('1.63')
LOCAL_LINK_NETWORK_TYPE = microversion.APIVersion('1.64')
NODE_LESSEE = microversion.APIVersion('1.65')

# What came after 1.1, by name, and the version that brought each (a name
# absent came with 1.1): req.since(TABLE.get(name)).

# Node list filters.
NODE_FILTERS = {
    'provision_state': PROVISION_STATE_FILTER,
    'driver': DRIVER_FILTER,
    'resource_class': RESOURCE_CLASS,
    'owner': NODE_OWNER,
    'lessee': NODE_LESSEE,
    'fault': FAULT,
    'conductor_group': CONDUCTOR_GROUP,
    'conductor': CONDUCTOR,
    'description_contains': DESCRIPTION,
    'retired': RETIRED,
}

# Port fields.
PORT_FIELDS = {
    'internal_info': PORT_INTERNAL_INFO,
    'local_link_connection': PORT_LOCAL_LINK,
    'pxe_enabled': PORT_LOCAL_LINK,
    'portgroup_uuid': PORT_PORTGROUP,
    'physical_network': PHYSICAL_NETWORK,
    'is_smartnic': SMART_NIC,
}

# Provision targets (Ironic answers 406 to one of a later version).
PROVISION_TARGETS = {
    states.MANAGE: MANAGEMENT_VERBS,
    states.PROVIDE: MANAGEMENT_VERBS,
    states.ABORT: ABORT_VERB,
    states.RESCUE_TARGET: RESCUE_INTERFACE,
    states.UNRESCUE: RESCUE_INTERFACE,
    # Inspection came with its node times.
    states.INSPECT: INSPECTION_TIMES,
    states.ADOPT: ADOPT_VERB,
    states.CLEAN: MANUAL_CLEAN,
}

# Interface types of driver details (the first ones came with dynamic
# drivers, 1.30).
DRIVER_INTERFACES = {
    'storage': STORAGE_INTERFACE,
    'rescue': RESCUE_INTERFACE,
    'bios': BIOS_INTERFACE,
}


def not_acceptable(req):
    """Return the 406 of a request asking what its version does not have.

    :param req: the request.
    :returns: an exception to raise.
    """
    return exception.NotAcceptable(version=str(req.api_version))


BAREMETAL_API = microversion.VersionedAPI(
    service_type='baremetal',
    legacy_header='X-OpenStack-Ironic-API-Version',
    history=HISTORY,
    headers=microversion.IronicHeaders(),
    malformed=exception.MalformedAPIVersion,
    unsupported=exception.BaremetalAPIVersionNotSupported,
    latest_any_case=True)
