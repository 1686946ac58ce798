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

"""Definitions of the ``resources`` extra specs: amounts of Placement
resource classes, overriding (or adding to) what the flavor's vCPUs, RAM and
disk ask for.

Difference with Nova 34 (doc/source/reference/extra-spec-differences.rst):
Nova accepts any integer as an amount, but its scheduler drops a negative
amount with a warning, so the flavor silently asks for something else than
what was stored. Amounts here must be 0 or more (0 removes a class from the
request, as for bare metal flavors).
"""

from nova_mini.api.validation.extra_specs import base
from nova_mini.api.validation.extra_specs import traits

try:
    import os_resource_classes
    STANDARD_CLASSES = tuple(os_resource_classes.STANDARDS)
except ImportError:  # not a requirement: the list as of its 1.1.0 release
    STANDARD_CLASSES = (
        'VCPU', 'MEMORY_MB', 'DISK_GB', 'PCI_DEVICE', 'SRIOV_NET_VF',
        'NUMA_SOCKET', 'NUMA_CORE', 'NUMA_THREAD', 'NUMA_MEMORY_MB',
        'IPV4_ADDRESS', 'VGPU', 'VGPU_DISPLAY_HEAD',
        'NET_BW_EGR_KILOBIT_PER_SEC', 'NET_BW_IGR_KILOBIT_PER_SEC', 'PCPU',
        'MEM_ENCRYPTION_CONTEXT', 'FPGA', 'PGPU',
        'NET_PACKET_RATE_KILOPACKET_PER_SEC',
        'NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC',
        'NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC',
    )

CLASS_NAME = r'CUSTOM_[A-Z0-9_]+|' + traits.name_alternation(
    STANDARD_CLASSES)

DEFINITIONS = [
    traits.ClosedNameSpec(
        name='resources{group}:{resource_class}',
        description=(
            'How much of ``{resource_class}`` to ask Placement for. For '
            '``VCPU``, ``MEMORY_MB`` and ``DISK_GB`` in the unnumbered '
            'group this replaces the amount derived from the flavor; 0 '
            'drops the class from the request. With a ``{group}`` suffix '
            'the amount goes to that numbered request group, which must be '
            'satisfied by a single provider.'
        ),
        parameters=[
            traits.GROUP,
            base.Parameter(
                'resource_class', r'CUSTOM_[A-Z0-9_]+|[A-Z][A-Z0-9_]*',
                'A resource class: ``CUSTOM_`` followed by upper-case '
                'letters, digits and underscores, or a standard class '
                '(``VCPU``, ``PCPU``, ``MEMORY_MB``, ``DISK_GB``, ``VGPU``, '
                '``SRIOV_NET_VF``, ...). Other names of that shape are '
                'rejected.'),
        ],
        exact={'resource_class': CLASS_NAME},
        rules={'resource_class': (
            'a standard resource class of os-resource-classes, such as '
            'VCPU or MEMORY_MB, or CUSTOM_ followed by capital letters '
            'A-Z, digits 0-9 and underscores')},
        value=base.Value(int, min=0),
        example='resources:VCPU=0',
    ),
]
