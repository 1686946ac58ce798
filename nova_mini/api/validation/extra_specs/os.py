"""Definitions of the ``os`` extra specs."""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='os:secure_boot',
        description=(
            'UEFI Secure Boot for the guest: ``required`` boots it with '
            'Secure Boot enforced (the image must use UEFI firmware), '
            '``disabled`` never enables it.'
        ),
        value=base.Value(str, enum=('disabled', 'required')),
        drivers=('libvirt',),
        example='required',
    ),
]
