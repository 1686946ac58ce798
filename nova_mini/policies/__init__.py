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

"""Policy defaults in code, one module per resource."""

import itertools

from nova_mini.policies.baremetal import allocations
from nova_mini.policies.baremetal import chassis
from nova_mini.policies.baremetal import conductors
from nova_mini.policies.baremetal import deploy_templates
from nova_mini.policies.baremetal import drivers
from nova_mini.policies.baremetal import events
from nova_mini.policies.baremetal import node_traits
from nova_mini.policies.baremetal import node_vifs
from nova_mini.policies.baremetal import nodes
from nova_mini.policies.baremetal import portgroups
from nova_mini.policies.baremetal import ports
from nova_mini.policies.baremetal import ramdisk
from nova_mini.policies.baremetal import vendor_passthru
from nova_mini.policies.baremetal import volumes
from nova_mini.policies import base
from nova_mini.policies.compute import extensions
from nova_mini.policies.compute import flavor_access
from nova_mini.policies.compute import flavor_extra_specs
from nova_mini.policies.compute import flavors
from nova_mini.policies.compute import instance_actions
from nova_mini.policies.compute import keypairs
from nova_mini.policies.compute import limits
from nova_mini.policies.compute import quota_sets
from nova_mini.policies.compute import server_actions
from nova_mini.policies.compute import server_groups
from nova_mini.policies.compute import server_metadata
from nova_mini.policies.compute import servers


# Each API's rules get its scope types (base.py): a rule added to a module
# below is scoped as its API's others.
COMPUTE = (flavors, flavor_extra_specs, flavor_access, servers, extensions,
           keypairs, server_actions, instance_actions, server_metadata,
           server_groups, quota_sets, limits)
BAREMETAL = (nodes, node_traits, node_vifs, chassis, drivers,
             vendor_passthru, conductors, allocations, deploy_templates,
             ports, portgroups, ramdisk, events, volumes)


def _scoped(modules, scope_types):
    rules = list(itertools.chain.from_iterable(
        module.list_rules() for module in modules))
    for rule in rules:
        rule.scope_types = list(scope_types)
    return rules


def list_rules():
    """Return every rule default, each API's with its scope types."""
    return (list(base.list_rules())
            + _scoped(COMPUTE, base.COMPUTE_SCOPE_TYPES)
            + _scoped(BAREMETAL, base.BAREMETAL_SCOPE_TYPES))
