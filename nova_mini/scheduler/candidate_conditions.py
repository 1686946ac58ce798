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

"""Which nodes a request may get, as SQL conditions: available, not in
maintenance, without an instance, of the request's resource class, big
enough (the capacity columns), with every required trait and no
forbidden one, minus the nodes it ignores (or only those it forces); and
the capability requirements the SQL can narrow down before the
ComputeCapabilitiesFilter decides. The statements that read, rank and
page the candidates with them: candidates.
"""

import re

import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.objects.baremetal import node_filters
from nova_mini.objects import request_spec
from nova_mini.scheduler import node_state
from nova_mini import states

_NODES = models.Node.__table__

# Resource class of a request -> the node column holding its size.
CAPACITY = {'VCPU': _NODES.c.cpus, 'MEMORY_MB': _NODES.c.memory_mb,
            'DISK_GB': _NODES.c.local_gb}


# How much of its resource class a node has (Ironic's inventory).
NODE_UNITS = 1


def normalized_resource_class():
    """SQL for the placement name of a node's resource class: Ironic's
    ``baremetal-gold`` is ``CUSTOM_BAREMETAL_GOLD``.
    """
    name = _NODES.c.resource_class
    for char in ('-', '.', ' '):
        name = sa.func.replace(name, char, '_')
    return sa.literal(request_spec.CUSTOM_PREFIX) + sa.func.upper(name)


def _named(values):
    values = list(values)
    return sa.or_(_NODES.c.uuid.in_(values), _NODES.c.name.in_(values))


def conditions(spec_obj, dialect=None, requirements=True, probe=False):
    """Return the SQL conditions of ``spec_obj``.

    :param spec_obj: the RequestSpec.
    :param dialect: the database's dialect name (it shapes the trait
        conditions, see node_filters).
    :param requirements: False leaves out the capacity and trait
        conditions: the nodes that could serve the request at all, which
        the filters are run over to explain a failure.
    :param probe: whether other conditions pick a few nodes already.
    :returns: a list of SQL conditions, or None if no node can match.
    """
    found = [_NODES.c.provision_state == states.AVAILABLE,
             _NODES.c.maintenance.is_(False),
             _NODES.c.instance_uuid.is_(None)]
    custom = spec_obj.custom_resource_classes
    if len(custom) > 1:
        # A node has one resource class.
        return None
    if custom:
        found.append(normalized_resource_class() == custom[0])
    if requirements:
        for resource_class, amount in spec_obj.resources.items():
            if resource_class in CAPACITY:
                continue
            if resource_class.startswith(request_spec.CUSTOM_PREFIX):
                # A node has one unit of its resource class (its whole
                # self), whichever groups ask for it.
                if amount > NODE_UNITS:
                    return None
            elif amount > 0:
                # A bare-metal node has no other standard class (PCPU,
                # VGPU, ...) to give.
                return None
        for resource_class, column in sorted(CAPACITY.items()):
            wanted = spec_obj.resources.get(resource_class, 0)
            if wanted > 0:
                found.append(column >= wanted)
        found.extend(node_filters.conditions({
            'traits': spec_obj.required_traits,
            'not_traits': spec_obj.forbidden_traits}, dialect, probe))
    ignored = set(spec_obj.ignore_hosts)
    if spec_obj.retry is not None:
        ignored.update(spec_obj.retry.nodes)
    if ignored:
        found.append(sa.not_(sa.or_(
            _NODES.c.uuid.in_(sorted(ignored)),
            sa.and_(_NODES.c.name.isnot(None),
                    _NODES.c.name.in_(sorted(ignored))))))
    if spec_obj.force_nodes:
        found.append(_named(spec_obj.force_nodes))
    return found


# Capability requirements (``capabilities:<name>`` extra specs) the SQL
# narrows down before the ComputeCapabilitiesFilter decides: the node's
# ``properties`` text must hold the name and, after it, the operand(s)
# (case aside). That holds for every node the filter would pass, as long
# as the name is one entry of the node's stats (``cpu_arch``, or a key of
# ``properties['capabilities']``, not an attribute of NodeState.host_view)
# and the name and operands are plain words that JSON writes as they are.
# Only what this text test cannot wrongly refuse is turned into SQL:
# plain values, ``s==``, ``<in>``, ``<all-in>`` and ``<or>``.
_PLAIN_WORD = re.compile(r'^[A-Za-z0-9_.-]+$')
_HOST_ATTRIBUTES = frozenset(node_state.NodeState(
    0, '', '', '', {}).host_view()) - {'stats'}


def capability_words(name, requirement):
    """The operands the node's text must hold for ``requirement`` on
    capability ``name``: a list of alternatives, each a list of words all
    required; None when the text test could refuse a node that matches.
    """
    if not _PLAIN_WORD.match(name) or name in _HOST_ATTRIBUTES:
        return None
    words = requirement.split()
    if not words or any(not _PLAIN_WORD.match(w) for w in words
                        if w not in ('s==', '<in>', '<all-in>', '<or>')):
        return None
    op, operands = words[0], words[1:]
    if len(words) == 1 and op not in ('s==', '<in>', '<all-in>', '<or>'):
        return [[op]]
    if op in ('s==', '<in>') and operands:
        return [[operands[0]]]
    if op == '<all-in>' and operands:
        return [operands]
    if op == '<or>' and operands:
        return [[value] for value in operands[::2]]
    return None


def capability_conditions(spec_obj):
    """SQL conditions every node passing the capability requirements of
    ``spec_obj`` meets (see capability_words).
    """
    text = sa.type_coerce(_NODES.c.properties, sa.Text)
    found = []
    for name, requirement in sorted(spec_obj.capabilities.items()):
        alternatives = capability_words(name, requirement)
        if alternatives is None:
            continue
        found.append(sa.or_(*[
            sa.and_(*[text.ilike('%%%s%%%s%%' % (name, word))
                      for word in words]) for words in alternatives]))
    return found
