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

"""Definitions of the extra specs without a namespace that are still honoured.

Every other key without a namespace is unknown: Nova accepts such keys
silently, nova_mini's strict mode rejects them (see
doc/source/reference/extra-spec-differences.rst).
"""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='hide_hypervisor_id',
        description=(
            'Old spelling of ``hw:hide_hypervisor_id``. Without a namespace '
            'it is also compared with aggregate metadata by the '
            '``AggregateInstanceExtraSpecsFilter``, which then rejects '
            'every host; use the namespaced key.'
        ),
        value=base.Value(bool),
        support=base.deprecated('21.0.0 (Ussuri)',
                                replacement='hw:hide_hypervisor_id'),
        drivers=('libvirt',),
        example='true',
    ),
    base.ExtraSpec(
        name='group_policy',
        description=(
            'How numbered request groups (``resources1:...``, '
            '``trait2:...``) may share resource providers: ``isolate`` '
            'needs each group on a different provider, ``none`` lets them '
            'share. Placement requires it as soon as there are two or more '
            'numbered groups.'
        ),
        value=base.Value(str, enum=('isolate', 'none')),
        example='isolate',
    ),
]
