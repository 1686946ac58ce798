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

"""Extra specs of a fictional out-of-tree scheduler filter."""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='sample_scheduler:rack_affinity',
        description='Keep servers of this flavor on racks whose label is '
                    'given here (read by the sample RackAffinityFilter).',
        value=base.Value(str, pattern=r'[a-z][a-z0-9-]{0,62}',
                         description='A rack label.'),
        example='rack-a1',
    ),
    base.ExtraSpec(
        name='sample_scheduler:max_per_rack',
        description='How many servers of this flavor one rack may hold.',
        value=base.Value(int, min=1, max=64),
        example='4',
    ),
]

# Names nova_mini defines itself: the in-tree definition must win.
CLASHING = [
    base.ExtraSpec(
        name='hw:cpu_policy',
        description='A plugin trying to redefine an in-tree extra spec.',
        value=base.Value(str, enum=('anything',)),
    ),
]
