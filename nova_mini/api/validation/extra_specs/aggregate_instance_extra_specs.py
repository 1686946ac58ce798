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

"""Definitions of the ``aggregate_instance_extra_specs`` extra specs, read by
the ``AggregateInstanceExtraSpecsFilter`` scheduler filter.

Only the namespaced form is defined. The bare form (``ssd=true`` matched
against aggregate metadata) has been deprecated since Havana, as in Nova; a
deployment that still relies on it can store such keys with
``validation=permissive``.
"""

from nova_mini.api.validation.extra_specs import base

DEFINITIONS = [
    base.ExtraSpec(
        name='aggregate_instance_extra_specs:{key}',
        description=(
            'Only schedule to hosts in a host aggregate whose metadata has '
            '``{key}`` with a value that satisfies this one; hosts that are '
            'in no such aggregate are filtered out. Needs the '
            '``AggregateInstanceExtraSpecsFilter`` scheduler filter.\n\n'
            'When the host is in several aggregates, one satisfying value '
            'is enough. The value is either a literal (compared as is) or '
            'an operator followed by an operand: ``=`` (numerically at '
            'least), ``==``, ``!=``, ``>=``, ``<=`` (numeric comparisons), '
            '``s==``, ``s!=``, ``s<``, ``s<=``, ``s>``, ``s>=`` (string '
            'comparisons), ``<in>`` (the operand is a substring), '
            '``<all-in>`` (every operand is among the items) and ``<or>`` '
            '(any of several operands, e.g. ``<or> ssd <or> nvme``).'
        ),
        parameters=[
            base.Parameter(
                'key', r'.+',
                'The aggregate metadata key to compare with (any text).'),
        ],
        value=base.Value(
            str, description='A literal or an operator expression.'),
        example='aggregate_instance_extra_specs:ssd=true',
    ),
]
