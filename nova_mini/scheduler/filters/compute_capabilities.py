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

"""ComputeCapabilitiesFilter: ``capabilities:<name>`` extra specs against
the node's ``properties['capabilities']`` (``"k:v,k2:v2"``).

A requirement is a value, or an operator and operands, as in Nova:

* ``v`` (no operator): the strings are equal.
* ``= n``: the node has at least n; ``== n``, ``!= n``, ``>= n``,
  ``<= n``: numeric comparisons.
* ``s== v``, ``s!= v``, ``s< v``, ``s<= v``, ``s> v``, ``s>= v``: string
  comparisons.
* ``<in> v``: v is a substring of the node's value.
* ``<is> True``: boolean equality (case-insensitive).
* ``<or> a <or> b``: the node's value is one of them.
"""

import operator

from nova_mini.scheduler import filters

_NUMERIC = {'=': operator.ge, '==': operator.eq, '!=': operator.ne,
            '>=': operator.ge, '<=': operator.le}
_STRING = {'s==': operator.eq, 's!=': operator.ne, 's<': operator.lt,
           's<=': operator.le, 's>': operator.gt, 's>=': operator.ge}


def matches(value, requirement):
    """Return whether the node's capability ``value`` meets ``requirement``.

    :param value: the node's value (text).
    :param requirement: a flavor's value: text, or an operator and its
        operand (``>= 4``, ``s== x``, ``<or> a <or> b``).
    :returns: a bool.
    """
    words = requirement.split()
    if not words:
        return value == requirement
    op = words[0]
    if op == '<or>':
        return value in [w for w in words[1::2]]
    if len(words) != 2:
        return value == requirement
    operand = words[1]
    if op in _NUMERIC:
        try:
            return _NUMERIC[op](float(value), float(operand))
        except ValueError:
            return False
    if op in _STRING:
        return _STRING[op](value, operand)
    if op == '<in>':
        return operand in value
    if op == '<is>':
        return value.lower() == operand.lower()
    return value == requirement


class ComputeCapabilitiesFilter(filters.BaseNodeFilter):

    def check(self, node, spec_obj):
        has = node.capabilities
        for name, requirement in spec_obj.capabilities.items():
            if name not in has:
                return 'capability %s missing' % name
            if not matches(has[name], requirement):
                return 'capability %s is %r, %r wanted' % (
                    name, has[name], requirement)
        return None
