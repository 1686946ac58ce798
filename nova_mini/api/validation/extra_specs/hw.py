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

"""Definitions of the ``hw`` extra specs about guest devices and features.
CPU-related ones are in ``hw_cpu``, NUMA and memory ones in ``hw_numa``."""

from nova_mini.api.validation.extra_specs import base

_LIBVIRT = ('libvirt',)


def _flag(name, description, example='true', requires=()):
    return base.ExtraSpec(name='hw:' + name, description=description,
                          value=base.Value(bool), drivers=_LIBVIRT,
                          requires=requires, example=example)


def _choice(name, description, choices, example, requires=()):
    return base.ExtraSpec(name='hw:' + name, description=description,
                          value=base.Value(str, enum=tuple(choices)),
                          drivers=_LIBVIRT, requires=requires,
                          example=example)


DEFINITIONS = [
    # On/off features.
    _flag('hide_hypervisor_id',
          'Hide from the guest the CPUID signature that tells it it runs '
          'on KVM, for guest drivers (some GPU ones) that refuse to load '
          'in a virtual machine. Replaces the un-namespaced '
          '``hide_hypervisor_id``.'),
    _flag('boot_menu',
          'Show the firmware boot menu when the guest starts, so that a '
          'console user can pick the boot device.'),
    _flag('vif_multiqueue_enabled',
          'Give virtio network interfaces one queue per guest vCPU so that '
          'network processing spreads over the vCPUs. The guest must '
          'enable the extra queues itself.'),
    _flag('mem_encryption',
          'Encrypt the guest\'s memory with the host CPU\'s memory '
          'encryption (e.g. AMD SEV); only hosts able to do so are '
          'chosen, and the image must boot with UEFI.'),
    _flag('pmu',
          'Give the guest a virtual performance monitoring unit, for '
          'profilers such as ``perf``. Left unset the hypervisor decides; '
          'real-time guests usually turn it off to save latency.',
          example='false'),
    _flag('virtio_packed_ring',
          'Let virtio devices use the packed virtqueue layout, which is '
          'faster when the guest supports it; only hosts able to offer it '
          'are chosen.'),
    _flag('ephemeral_encryption',
          'Encrypt the instance\'s local ephemeral disks.'),
    # Choices among models and actions.
    _choice('mem_encryption_model',
            'Which memory encryption technology to use when '
            '``hw:mem_encryption`` is on.',
            ('amd-sev', 'amd-sev-es', 'amd-sev-snp', 'intel-tdx'),
            'amd-sev-es', requires=('hw:mem_encryption=true',)),
    _choice('tpm_model',
            'Attach an emulated TPM of this model to the guest: '
            '``tpm-tis`` (the usual) or ``tpm-crb`` (TPM 2.0 only).',
            ('tpm-tis', 'tpm-crb'), 'tpm-crb',
            requires=('hw:tpm_version',)),
    _choice('tpm_version',
            'TPM specification version of the emulated TPM; setting it '
            'attaches one.',
            ('1.2', '2.0'), '2.0'),
    _choice('tpm_secret_security',
            'Where the secret protecting the emulated TPM\'s state is '
            'kept, and so what can be done without the instance owner: '
            '``user`` (the default; the owner\'s key manager account '
            'only), ``host`` (also on the compute host, so the instance '
            'can be restarted there by an operator) or ``deployment`` '
            '(an account of the deployment rather than of the owner).',
            ('user', 'host', 'deployment'), 'host',
            requires=('hw:tpm_version',)),
    _choice('watchdog_action',
            'Attach an emulated hardware watchdog and what to do when the '
            'guest stops feeding it: ``reset``, ``poweroff``, ``pause``, '
            '``none`` (only record it) or ``disabled`` (attach no '
            'watchdog).',
            ('none', 'pause', 'poweroff', 'reset', 'disabled'), 'reset'),
    _choice('viommu_model',
            'Give the guest a virtual IOMMU of this model; ``auto`` picks '
            'the model that suits the guest architecture.',
            ('intel', 'smmuv3', 'virtio', 'auto'), 'auto'),
    _choice('sound_model',
            'Attach an emulated sound card of this model; without it the '
            'guest has none.',
            ('sb16', 'es1370', 'pcspk', 'ac97', 'ich6', 'ich9', 'usb',
             'virtio'), 'ich9'),
    _choice('usb_model',
            'Model of the guest\'s USB controller; ``none`` removes it.',
            ('none', 'nec-xhci', 'qemu-xhci'), 'qemu-xhci'),
    _choice('ephemeral_encryption_format',
            'Format used to encrypt ephemeral disks.',
            ('plain', 'luks', 'luksv2'), 'luks',
            requires=('hw:ephemeral_encryption=true',)),
    # Counts and lists.
    base.ExtraSpec(
        name='hw:serial_port_count',
        description='Number of serial ports to give the guest.',
        value=base.Value(int, min=0),
        drivers=_LIBVIRT,
        example='2',
    ),
    base.ExtraSpec(
        name='hw:redirected_usb_ports',
        description=(
            'Number of USB redirection channels (for SPICE clients to '
            'forward their USB devices) to add to the guest, at most 15.'
        ),
        value=base.Value(int, min=0, max=15),
        drivers=_LIBVIRT,
        example='2',
    ),
    base.ExtraSpec(
        name='hw:pmem',
        description=(
            'Virtual persistent memory devices to give the guest: '
            'comma-separated labels, each one of the ``[libvirt] '
            'pmem_namespaces`` labels of the compute host. A label may '
            'appear several times.'
        ),
        # Nova's pattern is '([a-zA-Z0-9_]+(,)?)+', which backtracks
        # exponentially on an invalid value (a 23-character one takes it
        # most of a second); this one accepts the same values in linear
        # time.
        value=base.Value(str, pattern=r'[a-zA-Z0-9_]+(?:,[a-zA-Z0-9_]+)*,?',
                         description='Comma-separated labels.'),
        drivers=_LIBVIRT,
        example='SMALL,SMALL,LARGE',
    ),
]
