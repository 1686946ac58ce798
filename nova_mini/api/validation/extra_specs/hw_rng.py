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

"""Definitions of the ``hw_rng`` extra specs: the guest's virtio random
number generator (libvirt)."""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='hw_rng:allowed',
        description=(
            'Whether images may ask for a virtio RNG device through their '
            '``hw_rng_model`` property. Since 21.0.0 (Ussuri) the device is '
            'allowed unless this is false; earlier releases needed it set '
            'to true to allow the device at all.'
        ),
        value=base.Value(bool),
        drivers=('libvirt',),
        example='false',
    ),
    base.ExtraSpec(
        name='hw_rng:rate_bytes',
        description=(
            'How many bytes of host entropy the guest may read in each '
            'period given by ``hw_rng:rate_period``; 0 means no limit.'
        ),
        value=base.Value(int, min=0, description='Bytes per period.'),
        drivers=('libvirt',),
        requires=('hw_rng:rate_period',),
        example='2048',
    ),
    base.ExtraSpec(
        name='hw_rng:rate_period',
        description=(
            'Length, in milliseconds, of the period over which '
            '``hw_rng:rate_bytes`` is counted.'
        ),
        value=base.Value(int, min=0, description='Milliseconds.'),
        drivers=('libvirt',),
        requires=('hw_rng:rate_bytes',),
        example='1000',
    ),
]
