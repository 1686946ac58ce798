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

"""Definitions of the image properties about guest devices: disk, CD-ROM
and rescue buses, SCSI, network, video, sound, USB, input, RNG, serial
ports, watchdog, ephemeral encryption.

SCSI and VIF models are read case-insensitively, with the names of the
legacy VMware adapter types (``lsiLogicsas``, ``VirtualE1000`` ...), as
Nova does.
"""

from nova_mini.api.validation.image_properties import base

_LIBVIRT = ('libvirt',)
_VMWARE = ('vmware',)
DISK_BUSES = ('fdc', 'ide', 'sata', 'scsi', 'usb', 'virtio', 'xen', 'lxc',
              'uml')
SCSI_MODELS = ('buslogic', 'ibmvscsi', 'lsilogic', 'lsisas1068',
               'lsisas1078', 'virtio-scsi', 'vmpvscsi')
SCSI_ALIASES = {'lsilogicsas': 'lsisas1068', 'paravirtual': 'vmpvscsi'}
VIF_MODELS = ('virtio', 'ne2k_pci', 'pcnet', 'rtl8139', 'e1000', 'e1000e',
              'netfront', 'spapr-vlan', 'lan9118', 'sriov', 'vmxnet',
              'vmxnet3', 'igb')
VIF_ALIASES = {'virtuale1000': 'e1000', 'virtuale1000e': 'e1000e',
               'virtualpcnet32': 'pcnet', 'virtualsriovethernetcard': 'sriov',
               'virtualvmxnet': 'vmxnet', 'virtualvmxnet3': 'vmxnet3'}


def _bus(name, device):
    return base.ImageProperty(
        name=name,
        description='Bus the guest\'s %s is attached to.' % device,
        value=base.Value(str, enum=DISK_BUSES),
        drivers=_LIBVIRT,
        example='virtio' if 'disk' in device else 'sata',
    )


DEFINITIONS = [
    _bus('hw_disk_bus', 'disks'),
    _bus('hw_cdrom_bus', 'CD-ROM drive'),
    _bus('hw_floppy_bus', 'floppy drive'),
    base.ImageProperty(
        name='hw_rescue_bus',
        description=(
            'Bus the rescue disk is attached to when the server is '
            'rescued with this image (stable device rescue).'),
        value=base.Value(str, enum=DISK_BUSES),
        drivers=_LIBVIRT,
        example='usb',
    ),
    base.ImageProperty(
        name='hw_rescue_device',
        description=(
            'Kind of device the rescue image is attached as (stable '
            'device rescue).'),
        value=base.Value(str, enum=('cdrom', 'disk', 'floppy', 'fs',
                                    'lun')),
        drivers=_LIBVIRT,
        example='cdrom',
    ),
    base.ImageProperty(
        name='hw_disk_type',
        description=(
            'How the VMware driver provisions the image\'s disk '
            '(``thin``, ``sparse``, ``preallocated``, ``streamOptimized``). '
            'Nova takes any text.'),
        value=base.Value(str),
        drivers=_VMWARE,
        example='thin',
    ),
    base.ImageProperty(
        name='hw_scsi_model',
        description='Model of the SCSI controller the disks are on.',
        value=base.Value(str, enum=SCSI_MODELS),
        coerce=base.folded_enum(SCSI_MODELS, SCSI_ALIASES),
        drivers=_LIBVIRT + _VMWARE,
        requires=('hw_disk_bus=scsi',),
        example='virtio-scsi',
    ),
    base.ImageProperty(
        name='hw_vif_model',
        description='Model of the guest\'s network interfaces.',
        value=base.Value(str, enum=VIF_MODELS),
        coerce=base.folded_enum(VIF_MODELS, VIF_ALIASES),
        drivers=_LIBVIRT + _VMWARE,
        example='virtio',
    ),
    base.ImageProperty(
        name='hw_vif_multiqueue_enabled',
        description=(
            'Give virtio network interfaces one queue per guest CPU.'),
        value=base.Value(bool),
        mirrors='hw:vif_multiqueue_enabled',
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_virtio_packed_ring',
        description='Use packed virtqueues for the guest\'s virtio devices.',
        value=base.Value(bool),
        mirrors='hw:virtio_packed_ring',
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_video_model',
        description='Model of the guest\'s video device.',
        value=base.Value(str, enum=('cirrus', 'qxl', 'vga', 'vmvga', 'xen',
                                    'virtio', 'gop', 'none', 'bochs')),
        drivers=_LIBVIRT,
        example='virtio',
    ),
    base.ImageProperty(
        name='hw_video_ram',
        description=(
            'Video memory in MiB; at most the flavor\'s '
            '``hw_video:ram_max_mb``.'),
        value=base.Value(int),
        drivers=_LIBVIRT,
        requires=('hw_video:ram_max_mb',),
        example='64',
    ),
    base.ImageProperty(
        name='hw_sound_model',
        description='Model of the guest\'s sound device.',
        value=base.Value(str, enum=('sb16', 'es1370', 'pcspk', 'ac97',
                                    'ich6', 'ich9', 'usb', 'virtio')),
        mirrors='hw:sound_model',
        drivers=_LIBVIRT,
        example='ich9',
    ),
    base.ImageProperty(
        name='hw_usb_model',
        description='Model of the guest\'s USB controller.',
        value=base.Value(str, enum=('none', 'nec-xhci', 'qemu-xhci')),
        mirrors='hw:usb_model',
        drivers=_LIBVIRT,
        example='qemu-xhci',
    ),
    base.ImageProperty(
        name='hw_redirected_usb_ports',
        description=(
            'Number of USB ports redirected from a SPICE console client.'),
        value=base.Value(int),
        mirrors='hw:redirected_usb_ports',
        drivers=_LIBVIRT,
        example='2',
    ),
    base.ImageProperty(
        name='hw_input_bus',
        description='Bus of the guest\'s keyboard and pointer.',
        value=base.Value(str, enum=('usb', 'virtio')),
        drivers=_LIBVIRT,
        example='virtio',
    ),
    base.ImageProperty(
        name='hw_pointer_model',
        description=(
            'Pointer device of the guest; ``usbtablet`` gives absolute '
            'positioning in graphical consoles.'),
        value=base.Value(str, enum=('usbtablet',)),
        drivers=_LIBVIRT,
        example='usbtablet',
    ),
    base.ImageProperty(
        name='hw_rng_model',
        description=(
            'Give the guest a random number generator device of this '
            'model; the flavor must allow it with ``hw_rng:allowed``.'),
        value=base.Value(str, enum=('virtio',)),
        drivers=_LIBVIRT,
        requires=('hw_rng:allowed=true',),
        example='virtio',
    ),
    base.ImageProperty(
        name='hw_serial_port_count',
        description=(
            'Number of serial ports of the guest; at most the flavor\'s '
            '``hw:serial_port_count``.'),
        value=base.Value(int),
        mirrors='hw:serial_port_count',
        drivers=_LIBVIRT,
        example='2',
    ),
    base.ImageProperty(
        name='hw_watchdog_action',
        description=(
            'Give the guest a watchdog device and what the hypervisor does '
            'when it fires (``disabled``: no device).'),
        value=base.Value(str, enum=('none', 'pause', 'poweroff', 'reset',
                                    'disabled')),
        mirrors='hw:watchdog_action',
        drivers=_LIBVIRT,
        example='reset',
    ),
    base.ImageProperty(
        name='hw_device_id',
        description='Device number of the guest\'s disk (XenAPI).',
        value=base.Value(int),
        drivers=(),
        support=base.XENAPI_ONLY,
        example='2',
    ),
    base.ImageProperty(
        name='hw_ephemeral_encryption',
        description='Encrypt the server\'s ephemeral disks.',
        value=base.Value(bool),
        mirrors='hw:ephemeral_encryption',
        drivers=_LIBVIRT,
        example='true',
    ),
    base.ImageProperty(
        name='hw_ephemeral_encryption_format',
        description='Encryption format of the ephemeral disks.',
        value=base.Value(str, enum=('plain', 'luks', 'luksv2')),
        mirrors='hw:ephemeral_encryption_format',
        drivers=_LIBVIRT,
        requires=('hw_ephemeral_encryption=true',),
        example='luks',
    ),
    base.ImageProperty(
        name='hw_ephemeral_encryption_secret_uuid',
        description=(
            'UUID of the Barbican secret holding the passphrase of the '
            'encrypted ephemeral disks. Nova keeps a malformed UUID (it '
            'only warns).'),
        value=base.Value(str, description='A UUID.'),
        coerce=base.any_uuid,
        drivers=_LIBVIRT,
        requires=('hw_ephemeral_encryption=true',),
        example='2d2b1f8e-7a2b-4f4e-9d8f-0c7e3f1f9a10',
    ),
]
