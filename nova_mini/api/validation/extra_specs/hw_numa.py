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

"""Definitions of the ``hw`` extra specs about guest NUMA topology and
memory: node count, per-node CPUs and memory, page size, PCI affinity.

Difference with Nova 34 (doc/source/reference/extra-spec-differences.rst):
Nova builds the name regex of ``hw:numa_cpus.{num}`` and
``hw:numa_mem.{num}`` without escaping the dot, so it also accepts keys such
as ``hw:numa_cpusX0``, which nothing reads. Names here are matched literally.
"""

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import hw_cpu

_LIBVIRT = ('libvirt',)
_NODE = base.Parameter(
    'num', r'\d+',
    'Number of the guest NUMA node, counting from 0 up to '
    '``hw:numa_nodes`` - 1.')

DEFINITIONS = [
    base.ExtraSpec(
        name='hw:numa_nodes',
        description=(
            'Number of NUMA nodes to give the guest. Each one is backed by '
            'a different host NUMA node, so the guest sees a topology '
            'that matches where its memory really is.'
        ),
        value=base.Value(int, min=1),
        drivers=_LIBVIRT,
        example='2',
    ),
    base.ExtraSpec(
        name='hw:numa_cpus.{num}',
        description=(
            'Guest CPUs that belong to guest NUMA node ``{num}``. Only '
            'needed to split CPUs unevenly between nodes, or when their '
            'count does not divide by the number of nodes; give it for '
            'every node or for none.'
        ),
        parameters=[_NODE],
        value=base.Value(
            str, pattern=hw_cpu.CPU_MASK,
            description='A set of guest CPU numbers, e.g. ``0-2,5``.'),
        drivers=_LIBVIRT,
        requires=('hw:numa_nodes', 'hw:numa_mem.{num}'),
        example='hw:numa_cpus.0=0-3',
    ),
    base.ExtraSpec(
        name='hw:numa_mem.{num}',
        description=(
            'Memory, in MiB, of guest NUMA node ``{num}``. Only needed to '
            'split memory unevenly between nodes; the amounts of all nodes '
            'must add up to the flavor\'s RAM.'
        ),
        parameters=[_NODE],
        value=base.Value(int, min=1, description='MiB.'),
        drivers=_LIBVIRT,
        requires=('hw:numa_nodes', 'hw:numa_cpus.{num}'),
        example='hw:numa_mem.0=2048',
    ),
    base.ExtraSpec(
        name='hw:pci_numa_affinity_policy',
        description=(
            'How close to the guest\'s NUMA nodes its PCI and SR-IOV '
            'devices must be. ``required``: on one of those nodes. '
            '``socket``: on the same socket as one of them. '
            '``preferred``: anywhere, nearer ones first. ``legacy`` (the '
            'default): like ``required`` for devices that report their '
            'NUMA node, anywhere for those that do not.'
        ),
        value=base.Value(
            str, enum=('required', 'preferred', 'legacy', 'socket')),
        drivers=_LIBVIRT,
        example='preferred',
    ),
    base.ExtraSpec(
        name='hw:mem_page_size',
        description=(
            'Size of the host memory pages backing the guest. ``small`` '
            'uses the smallest size (normally 4 KiB), ``large`` only huge '
            'pages, ``any`` whatever the driver prefers; or give a size '
            'such as ``2MB``, ``1GiB`` or ``2048`` (KiB). Setting it gives '
            'the guest a NUMA topology (one node unless '
            '``hw:numa_nodes`` says more).'
        ),
        value=base.Value(
            str, pattern=r'(large|small|any|\d+([kKMGT]i?)?(b|bit|B)?)',
            description='An alias or a size.'),
        drivers=_LIBVIRT,
        example='large',
    ),
    base.ExtraSpec(
        name='hw:locked_memory',
        description=(
            'Lock the guest\'s memory in host RAM so that it is never '
            'swapped out, which some devices doing DMA need. Needs an '
            'explicit page size.'
        ),
        value=base.Value(bool),
        drivers=_LIBVIRT,
        requires=('hw:mem_page_size',),
        example='true',
    ),
]
