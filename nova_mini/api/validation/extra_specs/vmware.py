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
