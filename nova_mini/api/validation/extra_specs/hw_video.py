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
