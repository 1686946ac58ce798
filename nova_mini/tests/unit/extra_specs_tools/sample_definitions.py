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

"""A few definitions covering every feature the tools render, and text
that is awkward as reStructuredText.
"""

from nova_mini.api.validation.extra_specs import base

# Not valid reStructuredText: a lone backquote, an unclosed ``**`` and a
# reference to a target that does not exist.
AWKWARD = ('Multiply by 2 * n; the `tick is unbalanced, **kwargs too, '
           'and hw_ looks like a link.')

DEFINITIONS = [
    base.ExtraSpec(
        name='hw:cpu_policy',
        description='How **guest** CPUs map to host CPUs, see '
                    ':extra-spec:`hw:numa_cpus.{id}`.',
        value=base.Value(str, enum=('shared', 'dedicated', 'mixed'),
                         description='The policy, ``shared`` by default.'),
        drivers=('libvirt', 'ironic'),
        example='dedicated',
    ),
    base.ExtraSpec(
        name='hw:numa_nodes',
        description='Number of guest NUMA nodes.',
        value=base.Value(int, min=1, max=8),
        requires=('hw:cpu_policy=dedicated',),
        example='2',
    ),
    base.ExtraSpec(
        name='hw:numa_cpus.{id}',
        description='Guest CPUs of the guest NUMA node ``{id}``.',
        value=base.Value(str, pattern=r'\^?\d+((-\d+)?(,\^?\d+(-\d+)?)?)*'),
        parameters=[base.Parameter('id', r'\d+',
                                   'The **guest** NUMA node.')],
        example='hw:numa_cpus.0=0-3',
    ),
    base.ExtraSpec(
        name='hw:old_policy',
        description='The former name of the CPU policy.',
        value=base.Value(bool),
        support=base.deprecated('2.0', replacement='hw:cpu_policy',
                                note='Removed in *3.0*.'),
    ),
    base.ExtraSpec(
        name='hw:awkward',
        description=AWKWARD,
        value=base.Value(str, pattern=r'`[*]+`|a``b',
                         description=AWKWARD),
        support=base.Support(base.EXPERIMENTAL, note=AWKWARD),
        example='`**`',
    ),
    base.ExtraSpec(
        name='quota:disk_read_bytes_sec',
        description='Read bandwidth limit.',
        value=base.Value(int, min=0),
    ),
    base.ExtraSpec(
        name='resources{group}:{resource_class}',
        description='An amount of a resource class.',
        value=base.Value(int, min=0),
        parameters=[
            base.Parameter('group', r'(\d+|_[a-zA-Z0-9_-]{1,64})?',
                           'The request group.'),
            base.Parameter('resource_class', r'[A-Z][A-Z0-9_]*',
                           'A standard or ``CUSTOM_`` resource class.'),
        ],
    ),
    base.ExtraSpec(
        name='group_policy',
        description='How numbered groups share providers.',
        value=base.Value(str, enum=('isolate', 'none')),
        example='none',
    ),
    base.ExtraSpec(
        name='rack:affinity',
        description='A rack label.',
        value=base.Value(str, pattern=r'(?P<row>[a-z])-\d+'),
        source='sample_scheduler',
    ),
]
