"""Definitions of the ``hw_video`` extra specs: the guest's video device."""

from nova_mini.api.validation.extra_specs import base

# One entry per video setting a flavor can cap; a list so that further caps
# (e.g. a head count) are a line each.
_CAPS = (
    ('ram_max_mb',
     'Upper bound, in MiB, for the video memory an image may request '
     'through its ``hw_video_ram`` property; a request above it fails the '
     'boot. Without it images cannot set video memory at all. vGPUs are '
     'not affected.',
     '64'),
)

DEFINITIONS = [
    base.ExtraSpec(
        name='hw_video:' + key,
        description=description,
        value=base.Value(int, min=0, description='MiB.'),
        drivers=('libvirt', 'vmware'),
        example=example,
    )
    for key, description, example in _CAPS
]
