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
