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

"""NodeState: a candidate node row as the scheduler's filters and weighers
see it (built by scheduler.candidates).

``host_view()`` is the node as Nova's scheduler sees the host the Ironic
driver reports for a node, which ``capabilities:<name>`` extra specs are
matched against (see scheduler.filters.compute_capabilities):

* ``stats``: ``cpu_arch`` (the node's property as it is) and each
  ``key:value`` of ``properties['capabilities']``;
* ``cpus``, ``vcpus``, ``vcpus_total``; ``memory_mb``,
  ``total_usable_ram_mb``, ``free_ram_mb``; ``local_gb``,
  ``total_usable_disk_gb``, ``free_disk_gb``, ``disk_available_least``,
  ``free_disk_mb``: the node's size (its capacity columns, which are its
  ``properties``; Nova's Ironic driver reports 0 for these since
  resource classes replaced them, nova_mini keeps the sizes meaningful);
  ``vcpus_used``, ``memory_mb_used``, ``local_gb_used``, ``disk_mb_used``,
  ``num_instances``, ``running_vms``, ``num_io_ops``,
  ``current_workload``, ``failed_builds``: 0 (a candidate is free);
* ``uuid``, ``hypervisor_hostname``, ``host``, ``nodename``: the node's
  uuid (each node is its own host); ``hypervisor_type``: ``ironic``,
  ``hypervisor_version``: 1 (the Ironic driver's);
* ``supported_instances``: ``[[cpu_arch, 'baremetal', 'hvm']]``, the
  architecture canonical (none if it is not one Nova knows);
* ``resource_class``: the node's.

Host attributes of virtualised hosts (``cpu_info``, ``numa_topology``,
``pci_stats``, ``metrics``, ``aggregates``, ...) are not reported, as for
an Ironic node in Nova, so a requirement on them matches no node.
"""

from nova_mini import exception
from nova_mini.objects import image_meta

HYPERVISOR_TYPE = 'ironic'
HYPERVISOR_VERSION = 1
# Nova's HVType and VMMode of what a bare-metal node runs.
HV_TYPE = 'baremetal'
VM_MODE = 'hvm'


def parse_capabilities(text):
    """Return Ironic's ``properties['capabilities']`` as a dict.

    :param text: ``"k:v,k2:v2"`` (spaces around keys and values are
        ignored; entries without a colon or a key are skipped), or a dict,
        taken as is.
    :returns: ``{key: value}``, all strings.
    """
    if isinstance(text, dict):
        return {str(k): str(v) for k, v in text.items()}
    result = {}
    for item in (text or '').split(','):
        key, sep, value = item.partition(':')
        if sep and key.strip():
            result[key.strip()] = value.strip()
    return result


class NodeState(object):
    """The scheduler's read-only view of one candidate node.

    ``cpus``, ``memory_mb`` and ``local_gb`` are the node's capacity
    columns (objects.baremetal.node.capacity_of), the numbers the database compared
    with the request, so filters and the SQL agree.
    """

    __slots__ = ('id', 'uuid', 'name', 'resource_class', 'properties',
                 'cpus', 'memory_mb', 'local_gb', 'traits', '_capabilities',
                 '_host_view')

    def __init__(self, id, uuid, name, resource_class, properties,
                 cpus=0, memory_mb=0, local_gb=0, traits=None):
        self.id = id
        self.uuid = uuid
        self.name = name
        self.resource_class = resource_class
        self.properties = properties or {}
        self.cpus = cpus
        self.memory_mb = memory_mb
        self.local_gb = local_gb
        # None: not loaded (no enabled filter needs them).
        self.traits = None if traits is None else frozenset(traits)
        self._capabilities = None
        self._host_view = None

    @property
    def cpu_arch(self):
        return self.properties.get('cpu_arch')

    @property
    def canonical_cpu_arch(self):
        """The node's architecture under Nova's name, or None (none, or
        not one Nova knows).
        """
        try:
            return image_meta.canonical_architecture(self.cpu_arch)
        except exception.InvalidRequestSpec:
            return None

    @property
    def supported_instances(self):
        """``[(architecture, hv type, vm mode)]`` the node runs, as the
        Ironic driver reports them (empty without a known architecture).
        """
        arch = self.canonical_cpu_arch
        return [(arch, HV_TYPE, VM_MODE)] if arch else []

    def host_view(self):
        """Return the node as the host Nova's scheduler sees (see the
        module): the attributes ``capabilities:`` extra specs name.

        :returns: a dict (the same one on each call).
        """
        if self._host_view is None:
            stats = {'cpu_arch': self.cpu_arch}
            stats.update(self.capabilities)
            cpus, memory_mb, local_gb = (self.cpus or 0, self.memory_mb or 0,
                                         self.local_gb or 0)
            view = dict.fromkeys(
                ('vcpus_used', 'memory_mb_used', 'local_gb_used',
                 'disk_mb_used', 'num_instances', 'running_vms',
                 'num_io_ops', 'current_workload', 'failed_builds'), 0)
            view.update(dict.fromkeys(('cpus', 'vcpus', 'vcpus_total'),
                                      cpus))
            view.update(dict.fromkeys(
                ('memory_mb', 'total_usable_ram_mb', 'free_ram_mb'),
                memory_mb))
            view.update(dict.fromkeys(
                ('local_gb', 'total_usable_disk_gb', 'free_disk_gb',
                 'disk_available_least'), local_gb))
            view.update(dict.fromkeys(
                ('uuid', 'hypervisor_hostname', 'host', 'nodename'),
                self.uuid))
            view.update(
                free_disk_mb=local_gb * 1024,
                hypervisor_type=HYPERVISOR_TYPE,
                hypervisor_version=HYPERVISOR_VERSION,
                supported_instances=[list(supported) for supported in
                                     self.supported_instances],
                resource_class=self.resource_class,
                stats=stats)
            self._host_view = view
        return self._host_view

    @property
    def capabilities(self):
        if self._capabilities is None:
            self._capabilities = parse_capabilities(
                self.properties.get('capabilities'))
        return self._capabilities

    def __repr__(self):
        return '<NodeState %s (%s)>' % (self.uuid, self.name)
