"""Definitions of the ``accel`` extra specs: accelerators managed by Cyborg."""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='accel:device_profile',
        description=(
            'Name of a Cyborg device profile. The profile lists the '
            'accelerators (FPGAs, GPUs, ...) to claim for each instance of '
            'this flavor, much as the flavor itself lists CPUs and memory.'
        ),
        value=base.Value(str, description='A device profile name.'),
        drivers=('libvirt',),
        example='fpga-gzip',
    ),
]
