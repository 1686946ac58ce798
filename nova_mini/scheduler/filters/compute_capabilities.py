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
what the node reports (``NodeState.host_view``), with the lookup and the
operators of Nova's filter of that name.

Lookup. ``<name>`` is split on ``:``. The first part names an attribute of
the node (``cpus``, ``memory_mb``, ``supported_instances``, ...), else an
entry of its ``stats``: ``cpu_arch`` and the ``key:value`` pairs of
``properties['capabilities']`` (``capabilities:boot_mode``). Each further
part names an entry of the dict found so far (a JSON text is read as
one): ``capabilities:stats:boot_mode``. Anything missing on the way: the
node fails. The value found is compared as text (``str``).

Requirement. The flavor's value is split on white space; its first word
may be an operator:

* ``=`` n: the node's number is at least n; ``==``, ``!=``, ``>=``,
  ``<=`` n: numeric comparisons;
* ``s==``, ``s!=``, ``s<``, ``s<=``, ``s>``, ``s>=`` v: text comparisons;
* ``<in>`` v: v occurs in the node's text; ``<all-in>`` v1 v2 ...: each
  of them does;
* ``<or>`` v1 ``<or>`` v2 ...: the node's text is one of the vi (every
  second word after the first is skipped, whatever it says);

only the first operand counts (``<all-in>`` and ``<or>`` aside), and an
operator without operand matches nothing. Any other value, ``<is>``
included (not an operator in Nova), is compared as a whole with the
node's text. Nova raises when a numeric operator meets a word that is not
a number; here such a node simply fails.
"""

import operator

from oslo_serialization import jsonutils

from nova_mini.scheduler import filters


def _numeric(compare):
    def check(value, operand):
        try:
            return compare(float(value), float(operand))
        except ValueError:
            return False
    return check


OPERATORS = {
    '=': _numeric(operator.ge),
    '==': _numeric(operator.eq),
    '!=': _numeric(operator.ne),
    '>=': _numeric(operator.ge),
    '<=': _numeric(operator.le),
    's==': operator.eq,
    's!=': operator.ne,
    's<': operator.lt,
    's<=': operator.le,
    's>': operator.gt,
    's>=': operator.ge,
    '<in>': lambda value, operand: operand in value,
}
OR = '<or>'
ALL_IN = '<all-in>'


def matches(value, requirement):
    """Return whether a node's value meets a requirement (see the module).

    :param value: the node's value as text, or None (it has none).
    :param requirement: the flavor's value: text, or an operator and its
        operands (``>= 4``, ``s== x``, ``<or> a <or> b``).
    :returns: a bool.
    """
    words = requirement.split()
    op = words[0] if words else None
    if op not in OPERATORS and op not in (OR, ALL_IN):
        return value == requirement
    if value is None:
        return False
    operands = words[1:]
    if op == OR:
        return value in operands[::2]
    if not operands:
        return False
    if op == ALL_IN:
        return all(operand in value for operand in operands)
    return OPERATORS[op](value, operands[0])


def lookup(node, name):
    """Return what ``capabilities:<name>`` names on ``node`` (see the
    module), or None.

    :param node: a NodeState.
    :param name: the part of the key after ``capabilities:``.
    :returns: the value (any type), or None if the node has none.
    """
    view = node.host_view()
    parts = name.split(':')
    found = view.get(parts[0])
    if found is None:
        found = view['stats'].get(parts[0])
    for part in parts[1:]:
        if found is None:
            return None
        if isinstance(found, str):
            try:
                found = jsonutils.loads(found)
            except ValueError:
                return None
        if not isinstance(found, dict):
            return None
        found = found.get(part)
    return found


class ComputeCapabilitiesFilter(filters.BaseNodeFilter):
    """Every ``capabilities:`` extra spec of the flavor holds on the node.
    """

    def check(self, node, spec_obj):
        for name, requirement in spec_obj.capabilities.items():
            found = lookup(node, name)
            if found is None:
                return 'capability %s missing' % name
            if not matches(str(found), requirement):
                return 'capability %s is %r, %r wanted' % (
                    name, str(found), requirement)
        return None
