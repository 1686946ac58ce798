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

"""Definitions of the image properties about the guest platform: CPU
architecture, hypervisor and VM mode (which the scheduler's image
properties filter reads), machine type, firmware and boot, secure boot,
TPM, IOMMU.

Architecture, hypervisor type and VM mode are read case-insensitively with
Nova's aliases (``amd64`` is ``x86_64``, ``xapi`` is ``xen``, ``hv`` is
``hvm``), as ``nova_mini.objects.image_meta`` canonicalizes them.
"""

from nova_mini.api.validation.image_properties import base
from nova_mini.objects import image_meta

_LIBVIRT = ('libvirt',)
_SCHEDULER = ('scheduler (ImagePropertiesFilter)',)

DEFINITIONS = [
    base.ImageProperty(
        name='hw_architecture',
        description=(
            'CPU architecture the image runs on. The scheduler places the '
            'server only on nodes of that architecture (bare metal nodes '
            'report theirs through Ironic\'s ``cpu_arch``).'),
        value=base.Value(str, enum=image_meta.ARCHITECTURES),
        coerce=base.folded_enum(image_meta.ARCHITECTURES,
                                image_meta._ARCHITECTURE_ALIASES),
        drivers=_SCHEDULER + ('ironic', 'libvirt'),
        example='x86_64',
    ),
    base.ImageProperty(
        name='hw_emulation_architecture',
        description=(
            'Architecture to emulate when it differs from the host\'s '
            '(e.g. ``aarch64`` guests on ``x86_64`` hosts).'),
        value=base.Value(str, enum=image_meta.ARCHITECTURES),
        coerce=base.folded_enum(image_meta.ARCHITECTURES,
                                image_meta._ARCHITECTURE_ALIASES),
        drivers=_LIBVIRT,
        example='aarch64',
    ),
    base.ImageProperty(
        name='img_hv_type',
        description=(
            'Hypervisor the image is built for; the scheduler places the '
            'server only on nodes with that hypervisor type (``ironic`` '
            'for bare metal).'),
        value=base.Value(str, enum=image_meta.HV_TYPES),
        coerce=base.folded_enum(image_meta.HV_TYPES,
                                image_meta._HV_TYPE_ALIASES),
        drivers=_SCHEDULER,
        example='ironic',
    ),
    base.ImageProperty(
        name='img_hv_requested_version',
        description=(
            'Hypervisor versions the image works with, as comparisons '
            'the scheduler checks against each node\'s hypervisor '
            'version.'),
        value=base.Value(str, description=(
            'Comparisons separated by commas, e.g. ``>=6000,<7000``.')),
        coerce=base.version_predicate,
        drivers=_SCHEDULER,
        example='>=6000',
    ),
    base.ImageProperty(
        name='hw_vm_mode',
        description=(
            'Guest ABI the image expects: ``hvm`` (full virtualization, '
            'also bare metal), ``xen`` (Xen paravirtualization), ``uml`` '
            'or ``exe`` (containers). The scheduler places the server '
            'only on nodes that support it.'),
        value=base.Value(str, enum=image_meta.VM_MODES),
        coerce=base.folded_enum(image_meta.VM_MODES,
                                image_meta._VM_MODE_ALIASES),
        drivers=_SCHEDULER,
        example='hvm',
    ),
    base.ImageProperty(
        name='hw_machine_type',
        description=(
            'Machine type of the virtual hardware (``q35``, ``pc``, '
            '``virt`` ...), overriding the compute host\'s default. Nova '
            'takes any text.'),
        value=base.Value(str),
        drivers=_LIBVIRT,
        example='q35',
    ),
    base.ImageProperty(
        name='hw_firmware_type',
        description=(
            'Firmware the guest boots with: ``bios`` or ``uefi``. '
            'Ironic\'s node ``boot_mode`` capability is the bare metal '
            'counterpart.'),
        value=base.Value(str, enum=('uefi', 'bios')),
        drivers=_LIBVIRT,
        example='uefi',
    ),
    base.ImageProperty(
        name='hw_firmware_stateless',
        description=(
            'Boot UEFI firmware without a persistent variable store.'),
        value=base.Value(bool),
        drivers=_LIBVIRT,
        requires=('hw_firmware_type=uefi',),
        example='true',
    ),
    base.ImageProperty(
        name='os_secure_boot',
        description=(
            'UEFI Secure Boot: ``required`` refuses hosts without it, '
            '``optional`` uses it when the host has it, ``disabled`` '
            'never does. Nova refuses an image whose value differs from '
            'the flavor\'s ``os:secure_boot`` when both are set.'),
        value=base.Value(str, enum=('required', 'disabled', 'optional')),
        mirrors='os:secure_boot',
        drivers=_LIBVIRT,
        requires=('hw_firmware_type=uefi',),
        example='required',
    ),
    base.ImageProperty(
        name='hw_boot_menu',
        description='Show the firmware boot menu at boot.',
        value=base.Value(bool),
        mirrors='hw:boot_menu',
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_ipxe_boot',
        description='Boot the guest over the network with iPXE.',
        value=base.Value(bool),
        drivers=(),
        support=base.Support(note='Read by no driver of Nova 34.'),
        example='true',
    ),
    base.ImageProperty(
        name='hw_time_hpet',
        description=(
            'Give the guest a High Precision Event Timer (x86 only).'),
        value=base.Value(bool),
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_qemu_guest_agent',
        description=(
            'The image runs the QEMU guest agent: give the guest its '
            'channel (needed to quiesce file systems for snapshots).'),
        value=base.Value(bool),
        drivers=_LIBVIRT,
        example='yes',
    ),
    base.ImageProperty(
        name='hw_tpm_model',
        description='Model of the emulated TPM device.',
        value=base.Value(str, enum=('tpm-tis', 'tpm-crb')),
        mirrors='hw:tpm_model',
        drivers=_LIBVIRT,
        requires=('hw_tpm_version',),
        example='tpm-crb',
    ),
    base.ImageProperty(
        name='hw_tpm_version',
        description='Version of the emulated TPM device.',
        value=base.Value(str, enum=('1.2', '2.0')),
        mirrors='hw:tpm_version',
        drivers=_LIBVIRT,
        example='2.0',
    ),
    base.ImageProperty(
        name='hw_viommu_model',
        description='Model of the virtual IOMMU given to the guest.',
        value=base.Value(str, enum=('intel', 'smmuv3', 'virtio', 'auto')),
        mirrors='hw:viommu_model',
        drivers=_LIBVIRT,
        example='auto',
    ),
    base.ImageProperty(
        name='img_hide_hypervisor_id',
        description=(
            'Hide the hypervisor signature from the guest (some GPU '
            'drivers refuse to run in a VM that shows it).'),
        value=base.Value(bool),
        mirrors='hw:hide_hypervisor_id',
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_auto_disk_config',
        description=(
            'Nova\'s field for the image\'s disk config policy. Nova\'s '
            'compute API reads the legacy name ``auto_disk_config`` '
            '(``disabled`` refuses servers asking for the AUTO disk '
            'config), not this one. Nova takes any text.'),
        value=base.Value(str),
        drivers=(),
        example='disabled',
    ),
]
