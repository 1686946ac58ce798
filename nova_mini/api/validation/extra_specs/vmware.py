"""Definitions of the ``vmware`` extra specs."""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='vmware:hw_version',
        description=(
            'Virtual hardware version of the VMs created from this flavor, '
            'e.g. ``vmx-13``. In a mix of ESXi releases this also keeps '
            'instances on hosts able to run that version.'
        ),
        value=base.Value(str, description='A vSphere hardware version.'),
        drivers=('vmware',),
        example='vmx-13',
    ),
    base.ExtraSpec(
        name='vmware:storage_policy',
        description=(
            'vSphere storage policy for the instance\'s disks. It has an '
            'effect only where Storage Policy-Based Management is enabled.'
        ),
        value=base.Value(str, description='A storage policy name.'),
        drivers=('vmware',),
        example='gold',
    ),
]
