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

"""RequestGroup: one request group of a flavor, and how a flavor's extra
specs and an image make the groups of a request.

Placement's granular syntax names a group by the suffix of its keys:
``resources:VCPU`` and ``trait:X`` are the unnumbered group,
``resources1:CUSTOM_GPU`` and ``trait1:Y`` group ``1``,
``trait_nic:Z`` group ``_nic``. Placement lets each numbered group land on
a provider of its own; a bare-metal node is a single resource provider,
so on nova_mini every group is met by the one node chosen: the request
asks for the union of the groups' traits and the per-class sum of their
resources (``merge``). Requests no single provider can meet are refused
(``InvalidRequestSpec``) when the spec is built:

* a trait one group requires and another forbids;
* two or more numbered groups without ``group_policy`` (Placement refuses
  the query then);
* ``group_policy=isolate`` with two or more numbered groups (each would
  need a provider of its own);
* more than one unit of a custom resource class over all groups (a node
  has one of its own class), or a standard class other than VCPU,
  MEMORY_MB and DISK_GB (``PCPU``, ``VGPU``, ...: bare-metal nodes have
  none).
"""

import collections
import re

from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import fields

REQUIRED = 'required'
FORBIDDEN = 'forbidden'
GROUP_POLICY = 'group_policy'
GROUP_POLICIES = ('none', 'isolate')

# resources[$S]:<CLASS> and trait[$S]:<NAME>, $S as Placement 1.33 takes
# it (the extra spec validators use the same suffix).
KEY_PATTERN = re.compile(r'^(resources|trait)([a-zA-Z0-9_-]{1,64})?:(.*)$')

# The flavor's own sizes, asked for in the unnumbered group unless some
# group names the class; bare-metal nodes have them (their cpus,
# memory_mb and local_gb properties).
FLAVOR_CLASSES = ('VCPU', 'MEMORY_MB', 'DISK_GB')
CUSTOM_PREFIX = 'CUSTOM_'
# How much of its own (custom) resource class a node has.
NODE_UNITS = 1


@base.NovaMiniObjectRegistry.register
class RequestGroup(base.NovaMiniObject):
    """The resources and traits one request group asks for."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        # None: the unnumbered group.
        'suffix': fields.StringField(nullable=True),
        'resources': fields.DictOfIntegersField(default={}),
        'required_traits': fields.ListOfStringsField(default=[]),
        'forbidden_traits': fields.ListOfStringsField(default=[]),
    }

    @property
    def numbered(self):
        """Whether this is a numbered (suffixed) group."""
        return self.suffix is not None


def _amount(key, value):
    try:
        amount = int(value)
    except (TypeError, ValueError):
        amount = -1
    if amount < 0:
        raise exception.InvalidRequestSpec(
            reason='%s=%r is not an amount (a whole number, 0 or more)'
            % (key, value))
    return amount


def _group_name(suffix):
    return 'the unnumbered group' if suffix is None else 'group %s' % suffix


def _check_single_provider(groups, group_policy):
    required = {}
    forbidden = {}
    for group in groups:
        for trait in group.required_traits:
            required.setdefault(trait, group.suffix)
        for trait in group.forbidden_traits:
            forbidden.setdefault(trait, group.suffix)
    both = sorted(set(required) & set(forbidden))
    if both:
        trait = both[0]
        raise exception.InvalidRequestSpec(
            reason='trait %s is required by %s and forbidden by %s; a '
            'bare-metal node is a single resource provider that either has '
            'the trait or not: remove one of the two' % (
                trait, _group_name(required[trait]),
                _group_name(forbidden[trait])))
    numbered = [g.suffix for g in groups if g.numbered]
    if len(numbered) < 2:
        return
    if group_policy is None:
        raise exception.InvalidRequestSpec(
            reason='the flavor has %d numbered request groups (%s) but no '
            'group_policy extra spec, which Placement requires then: set '
            'group_policy=none (on bare metal every group is met by the one '
            'node chosen)' % (len(numbered), ', '.join(numbered)))
    if group_policy == 'isolate':
        raise exception.InvalidRequestSpec(
            reason='group_policy=isolate asks for each numbered request '
            'group (%s) on a different resource provider, and a bare-metal '
            'node is a single provider: no node can meet it; use '
            'group_policy=none' % ', '.join(numbered))


def from_extra_specs(flavor, image_traits=()):
    """Return the request groups and group policy of a flavor and image.

    Zero amounts are left out and groups that ask for nothing dropped, as
    Nova does; the flavor's vCPUs, RAM and disk go to the unnumbered group
    for each of VCPU, MEMORY_MB and DISK_GB that no group names. The
    image's required traits go to the unnumbered group.

    :param flavor: the Flavor.
    :param image_traits: the traits the image requires.
    :returns: ``(groups, group_policy)``: a list of RequestGroup, the
        unnumbered one first, then by suffix; ``'none'``, ``'isolate'`` or
        None.
    :raises nova_mini.exception.InvalidRequestSpec: a malformed amount or
        trait value, a group policy other than none or isolate, or groups
        no bare-metal node can meet (see the module).
    """
    resources = collections.defaultdict(dict)
    required = collections.defaultdict(set)
    forbidden = collections.defaultdict(set)
    group_policy = None
    for key, value in flavor.extra_specs.items():
        if key == GROUP_POLICY:
            if value not in GROUP_POLICIES:
                raise exception.InvalidRequestSpec(
                    reason='group_policy=%r is neither none nor isolate'
                    % value)
            group_policy = value
            continue
        match = KEY_PATTERN.match(key)
        if not match:
            continue
        prefix, suffix, name = match.groups()
        if prefix == 'resources':
            resources[suffix][name] = _amount(key, value)
        elif value == REQUIRED:
            required[suffix].add(name)
        elif value == FORBIDDEN:
            forbidden[suffix].add(name)
        else:
            raise exception.InvalidRequestSpec(
                reason='%s=%r is neither required nor forbidden'
                % (key, value))
    named = {rc for amounts in resources.values() for rc in amounts}
    flavor_sizes = {
        'VCPU': flavor.vcpus,
        'MEMORY_MB': flavor.memory_mb,
        'DISK_GB': (flavor.root_gb + flavor.ephemeral_gb
                    + -(-flavor.swap // 1024)),
    }
    for rc in FLAVOR_CLASSES:
        if rc not in named:
            resources[None][rc] = flavor_sizes[rc]
    required[None].update(image_traits)
    suffixes = set(resources) | set(required) | set(forbidden)
    groups = []
    for suffix in sorted(suffixes, key=lambda s: (s is not None, s or '')):
        both = required[suffix] & forbidden[suffix]
        if both:
            raise exception.InvalidRequestSpec(
                reason='traits both required and forbidden in %s: %s'
                % (_group_name(suffix), ', '.join(sorted(both))))
        group = RequestGroup(
            suffix=suffix,
            resources={rc: n for rc, n in sorted(resources[suffix].items())
                       if n},
            required_traits=sorted(required[suffix]),
            forbidden_traits=sorted(forbidden[suffix]))
        if group.resources or group.required_traits or \
                group.forbidden_traits:
            groups.append(group)
    _check_single_provider(groups, group_policy)
    _check_node_resources(groups)
    return groups, group_policy


def _check_node_resources(groups):
    resources, _required, _forbidden = merge(groups)
    for rc, amount in resources.items():
        if rc.startswith(CUSTOM_PREFIX):
            if amount > NODE_UNITS:
                raise exception.InvalidRequestSpec(
                    reason='the request groups ask for %d of %s in all; a '
                    'bare-metal node has %d of its resource class: ask for '
                    '%d in one group only' % (amount, rc, NODE_UNITS,
                                              NODE_UNITS))
        elif rc not in FLAVOR_CLASSES:
            raise exception.InvalidRequestSpec(
                reason='the request groups ask for %s, which bare-metal '
                'nodes do not have: remove the resources extra specs of '
                'it or set them to 0' % rc)


def merge(groups):
    """Return what a single provider must have to meet every group.

    :param groups: RequestGroups.
    :returns: ``(resources, required_traits, forbidden_traits)``: the
        amounts summed per class, the sorted unions of the traits.
    """
    resources = collections.Counter()
    required = set()
    forbidden = set()
    for group in groups:
        resources.update(group.resources)
        required.update(group.required_traits)
        forbidden.update(group.forbidden_traits)
    return (dict(sorted(resources.items())), sorted(required),
            sorted(forbidden))
