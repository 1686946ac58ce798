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

"""Definitions of the image properties about guest CPUs, NUMA topology and
memory. Most mirror an ``hw:`` flavor extra spec; the image may only ask
for what the flavor allows (the boot-time conflict rules are not part of
the registry).

Nova reads ``hw_numa_cpus.{id}`` and ``hw_numa_mem.{id}`` from ``0``
upwards, up to 127, and stops at the first missing number: the registry
ignores the keys past a gap as Nova does (and reports them in strict
mode).
"""

from nova_mini.api.validation.image_properties import base

_LIBVIRT = ('libvirt',)
# The most guest NUMA nodes Nova reads from an image.
NUMA_NODES_MAX = 128
_NODE = base.Parameter(
    'id', r'0|[1-9]\d*',
    'Number of the guest NUMA node, from 0 up to ``hw_numa_nodes`` - 1, '
    'without leading zeros.')


def _topology(part, what):
    return [
        base.ImageProperty(
            name='hw_cpu_%s' % part,
            description=(
                'Preferred number of %s in the guest CPU topology. The '
                'flavor\'s ``hw:cpu_max_%s`` caps it.' % (what, part)),
            value=base.Value(int),
            mirrors='hw:cpu_%s' % part,
            drivers=_LIBVIRT,
            example='2',
        ),
        base.ImageProperty(
            name='hw_cpu_max_%s' % part,
            description=(
                'Largest number of %s the guest CPU topology may have; '
                'cannot exceed the flavor\'s ``hw:cpu_max_%s``.'
                % (what, part)),
            value=base.Value(int),
            mirrors='hw:cpu_max_%s' % part,
            drivers=_LIBVIRT,
            example='4',
        ),
    ]


DEFINITIONS = [
    base.ImageProperty(
        name='hw_cpu_policy',
        description=(
            'How guest CPUs map to host CPUs: ``shared`` lets them float, '
            '``dedicated`` pins each one to a host CPU of its own, '
            '``mixed`` pins some. The flavor\'s ``hw:cpu_policy`` wins '
            'when it is set, but Nova refuses an image asking for '
            '``dedicated`` or ``mixed`` with a ``shared`` flavor, or for '
            '``dedicated`` with a ``mixed`` one.'),
        value=base.Value(str, enum=('dedicated', 'shared', 'mixed')),
        mirrors='hw:cpu_policy',
        drivers=_LIBVIRT,
        example='dedicated',
    ),
    base.ImageProperty(
        name='hw_cpu_thread_policy',
        description=(
            'How pinned guest CPUs use host hyperthread siblings: '
            '``prefer`` them, ``require`` a host with SMT, or ``isolate`` '
            'each guest CPU on a core of its own.'),
        value=base.Value(str, enum=('prefer', 'isolate', 'require')),
        mirrors='hw:cpu_thread_policy',
        drivers=_LIBVIRT,
        requires=('hw_cpu_policy=dedicated',),
        example='isolate',
    ),
    base.ImageProperty(
        name='hw_cpu_realtime_mask',
        description=(
            'Which guest CPUs run with real-time scheduling (or, with a '
            '``^``, which do not), e.g. ``^0-1``. Nova stores any text '
            'here and checks it when it computes the topology.'),
        value=base.Value(str, description='A CPU set, e.g. ``^0``.'),
        mirrors='hw:cpu_realtime_mask',
        drivers=_LIBVIRT,
        requires=('hw:cpu_realtime=yes',),
        example='^0',
    ),
    *_topology('sockets', 'sockets'),
    *_topology('cores', 'cores per socket'),
    *_topology('threads', 'threads per core'),
    base.ImageProperty(
        name='hw_numa_nodes',
        description=(
            'Number of NUMA nodes to give the guest. Nova refuses an image '
            'that sets it for a flavor with ``hw:numa_nodes``.'),
        value=base.Value(int),
        mirrors='hw:numa_nodes',
        drivers=_LIBVIRT,
        example='2',
    ),
    base.ImageProperty(
        name='hw_numa_cpus.{id}',
        description=(
            'Guest CPUs that belong to guest NUMA node ``{id}``, for an '
            'uneven split between nodes. Nova refuses it for a flavor with '
            '``hw:numa_cpus.N``.'),
        parameters=[_NODE],
        value=base.Value(str, description=(
            'A set of guest CPU numbers: numbers and ranges, comma '
            'separated, ``^`` excluding one, e.g. ``0-3,^2``.')),
        coerce=base.cpu_set,
        mirrors='hw:numa_cpus.{num}',
        field='hw_numa_cpus',
        sequence=NUMA_NODES_MAX,
        drivers=_LIBVIRT,
        requires=('hw_numa_nodes', 'hw_numa_mem.{id}'),
        example='hw_numa_cpus.0=0-1',
    ),
    base.ImageProperty(
        name='hw_numa_mem.{id}',
        description=(
            'Memory in MiB of guest NUMA node ``{id}``, for an uneven '
            'split between nodes. Nova refuses it for a flavor with '
            '``hw:numa_mem.N``.'),
        parameters=[_NODE],
        value=base.Value(int),
        mirrors='hw:numa_mem.{num}',
        field='hw_numa_mem',
        sequence=NUMA_NODES_MAX,
        drivers=_LIBVIRT,
        requires=('hw_numa_nodes', 'hw_numa_cpus.{id}'),
        example='hw_numa_mem.0=1024',
    ),
    base.ImageProperty(
        name='hw_mem_page_size',
        description=(
            'Size of the host memory pages backing guest memory: '
            '``small``, ``large``, ``any`` or a size (``2MB``, ``1GB``, '
            'or KiB as a number). Nova refuses an image asking for a page '
            'size unless the flavor\'s ``hw:mem_page_size`` is ``large`` '
            'or ``any``. Nova stores any text here and checks it when it '
            'computes the topology.'),
        value=base.Value(str, description=(
            '``small``, ``large``, ``any`` or a page size.')),
        mirrors='hw:mem_page_size',
        drivers=_LIBVIRT,
        example='large',
    ),
    base.ImageProperty(
        name='hw_pci_numa_affinity_policy',
        description=(
            'How strictly PCI devices of the guest must share its NUMA '
            'node: ``required``, ``preferred``, ``legacy`` (required when '
            'the device reports a node) or ``socket``.'),
        value=base.Value(str, enum=('required', 'legacy', 'preferred',
                                    'socket')),
        mirrors='hw:pci_numa_affinity_policy',
        drivers=_LIBVIRT,
        example='preferred',
    ),
    base.ImageProperty(
        name='hw_locked_memory',
        description=(
            'Lock guest memory in host RAM so that it is never swapped '
            'out. Nova requires a memory page size (from the flavor or '
            'the image) and refuses a value that contradicts the '
            'flavor\'s ``hw:locked_memory``.'),
        value=base.Value(bool),
        mirrors='hw:locked_memory',
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_mem_encryption',
        description=(
            'Encrypt guest memory with the host\'s memory encryption '
            '(AMD SEV and its successors, Intel TDX); the guest is then '
            'scheduled on a host with a free encryption context.'),
        value=base.Value(bool),
        mirrors='hw:mem_encryption',
        drivers=_LIBVIRT,
        requires=('hw_firmware_type=uefi', 'hw_machine_type=q35'),
        example='true',
    ),
    base.ImageProperty(
        name='hw_mem_encryption_model',
        description='Which memory encryption technology to use.',
        value=base.Value(str, enum=('amd-sev', 'amd-sev-es', 'amd-sev-snp',
                                    'intel-tdx')),
        mirrors='hw:mem_encryption_model',
        drivers=_LIBVIRT,
        requires=('hw_mem_encryption=true',),
        example='amd-sev',
    ),
    base.ImageProperty(
        name='hw_pmu',
        description=(
            'Give the guest a virtual performance monitoring unit '
            '(true) or none (false); real-time guests usually want none. '
            'Nova refuses an image that contradicts the flavor\'s '
            '``hw:pmu``.'),
        value=base.Value(bool),
        mirrors='hw:pmu',
        drivers=_LIBVIRT,
        example='false',
    ),
    base.ImageProperty(
        name='hw_maxphysaddr_mode',
        description=(
            'How the guest learns the number of physical address bits: '
            '``passthrough`` the host\'s, or ``emulate`` the number in '
            '``hw_maxphysaddr_bits``.'),
        value=base.Value(str, enum=('passthrough', 'emulate')),
        mirrors='hw:maxphysaddr_mode',
        drivers=_LIBVIRT,
        example='emulate',
    ),
    base.ImageProperty(
        name='hw_maxphysaddr_bits',
        description='Number of physical address bits the guest sees.',
        value=base.Value(int),
        mirrors='hw:maxphysaddr_bits',
        drivers=_LIBVIRT,
        requires=('hw_maxphysaddr_mode=emulate',),
        example='42',
    ),
]
