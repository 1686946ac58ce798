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

from nova_mini.policies import allocations
from nova_mini.policies import base
from nova_mini.policies import chassis
from nova_mini.policies import conductors
from nova_mini.policies import deploy_templates
from nova_mini.policies import drivers
from nova_mini.policies import events
from nova_mini.policies import extensions
from nova_mini.policies import flavor_access
from nova_mini.policies import flavor_extra_specs
from nova_mini.policies import flavors
from nova_mini.policies import instance_actions
from nova_mini.policies import keypairs
from nova_mini.policies import limits
from nova_mini.policies import node_traits
from nova_mini.policies import node_vifs
from nova_mini.policies import nodes
from nova_mini.policies import portgroups
from nova_mini.policies import ports
from nova_mini.policies import quota_sets
from nova_mini.policies import ramdisk
from nova_mini.policies import server_actions
from nova_mini.policies import server_groups
from nova_mini.policies import server_metadata
from nova_mini.policies import servers
from nova_mini.policies import vendor_passthru
from nova_mini.policies import volumes


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        flavors.list_rules(),
        flavor_extra_specs.list_rules(),
        flavor_access.list_rules(),
        nodes.list_rules(),
        node_traits.list_rules(),
        node_vifs.list_rules(),
        chassis.list_rules(),
        drivers.list_rules(),
        vendor_passthru.list_rules(),
        conductors.list_rules(),
        allocations.list_rules(),
        deploy_templates.list_rules(),
        ports.list_rules(),
        portgroups.list_rules(),
        ramdisk.list_rules(),
        events.list_rules(),
        volumes.list_rules(),
        servers.list_rules(),
        extensions.list_rules(),
        keypairs.list_rules(),
        server_actions.list_rules(),
        instance_actions.list_rules(),
        server_metadata.list_rules(),
        server_groups.list_rules(),
        quota_sets.list_rules(),
        limits.list_rules(),
    ))
