"""Policy defaults in code, one module per resource."""

import itertools

from nova_mini.policies import base
from nova_mini.policies import flavor_access
from nova_mini.policies import flavor_extra_specs
from nova_mini.policies import flavors
from nova_mini.policies import node_traits
from nova_mini.policies import nodes
from nova_mini.policies import server_metadata
from nova_mini.policies import servers


def list_rules():
    return list(itertools.chain(
        base.list_rules(),
        flavors.list_rules(),
        flavor_extra_specs.list_rules(),
        flavor_access.list_rules(),
        nodes.list_rules(),
        node_traits.list_rules(),
        servers.list_rules(),
        server_metadata.list_rules(),
    ))
