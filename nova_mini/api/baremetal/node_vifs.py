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

"""A node's VIFs: GET and POST /nodes/{node_ident}/vifs, DELETE
/nodes/{node_ident}/vifs/{vif_id} (from 1.28; earlier 404, as Ironic's).

Ironic hands these to the node's network interface. nova_mini has no
networking service and one network interface, ``noop``, which does what
Ironic 39's ``noop`` does: it lists no VIF, and an attachment or a
detachment, once the VIF id and the node's policies are checked, does
nothing (204). So a VIF attached is never listed, and a detachment of a
VIF never attached is no error. Ironic's interfaces that record VIFs on
ports (``flat``, ``neutron``) need Neutron.
"""

from oslo_log import log as logging
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal.schemas import node_vifs as schema
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal import utils
from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.policies import node_vifs as policies

LOG = logging.getLogger(__name__)

_since_vifs = microversion.versioned(min_version=versions.VIFS)
_check_name = validation.value_checker(
    {'type': 'string', 'maxLength': 255,
     'pattern': node_schema.NAME_PATTERN}, 'id')


def _check_vif_id(vif_id, name):
    """A VIF id is a UUID or a name (Ironic's check, and its message
    naming the parameter ``name``).
    """
    if uuidutils.is_uuid_like(vif_id):
        return
    try:
        _check_name(vif_id)
    except exception.Invalid:
        raise exception.Invalid('Expected UUID or name for %s: %s'
                                % (name, vif_id))


class NoopNetwork(object):
    """The ``noop`` network interface: no networking service, nothing to
    plug, nothing recorded.
    """

    @staticmethod
    def vif_list(node):
        return []

    @staticmethod
    def vif_attach(node, vif):
        LOG.info('VIF %(vif)s attached to node %(node)s (noop network '
                 'interface: nothing to plug)',
                 {'vif': vif['id'], 'node': node.uuid})

    @staticmethod
    def vif_detach(node, vif_id):
        LOG.info('VIF %(vif)s detached from node %(node)s (noop network '
                 'interface: nothing to unplug)',
                 {'vif': vif_id, 'node': node.uuid})


# network_interface -> its implementation.
NETWORK_INTERFACES = {'noop': NoopNetwork}


def _network(node):
    return NETWORK_INTERFACES[node.network_interface]


class NodeVIFsController(rest.RestController):
    """/nodes/{node_ident}/vifs[/{vif_id}]: list, attach, detach."""

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    @_since_vifs
    def get_all(self):
        node = utils.get_node(self.node_ident, policies.LIST)
        return {'vifs': _network(node).vif_list(node)}

    @wsgi.expose(status=204)
    @_since_vifs
    @validation.body(schema.attach)
    def post(self):
        vif = pecan.request.json
        _check_vif_id(vif['id'], 'id')
        node = utils.get_node(self.node_ident, policies.ATTACH)
        _network(node).vif_attach(node, vif)

    @wsgi.expose(status=204)
    @_since_vifs
    def delete(self, vif_id):
        _check_vif_id(vif_id, 'vif_id')
        node = utils.get_node(self.node_ident, policies.DETACH)
        _network(node).vif_detach(node, vif_id)
