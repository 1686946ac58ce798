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
networking service and one network interface, ``noop``, which plugs
nothing. Where Ironic 39's ``noop`` accepts an attachment and forgets it
(its list is always empty), nova_mini keeps it on the node
(nova_mini.objects.baremetal.node_vifs): an attached VIF is listed until it is
detached, and attaching it twice is a conflict. A detachment of a VIF
that is not attached changes nothing and answers 204, as Ironic's
``noop`` does. The id and the policies are checked first, as Ironic does.
"""

from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import node_vifs as schema
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.objects.baremetal import node_vifs
from nova_mini.policies.baremetal import node_vifs as policies

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
    plug; the attachments are kept on the node.
    """

    @staticmethod
    def vif_list(node):
        return node_vifs.vif_list(node)

    @staticmethod
    def vif_attach(context, node, vif):
        node_vifs.attach(context, node, vif['id'])

    @staticmethod
    def vif_detach(context, node, vif_id):
        node_vifs.detach(context, node, vif_id)


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
        node = lookup.get_node(self.node_ident, policies.LIST)
        return {'vifs': _network(node).vif_list(node)}

    @wsgi.expose(status=204)
    @_since_vifs
    @validation.body(schema.attach)
    def post(self):
        vif = pecan.request.json
        _check_vif_id(vif['id'], 'id')
        node = lookup.get_node(self.node_ident, policies.ATTACH)
        _network(node).vif_attach(pecan.request.ctxt, node, vif)

    @wsgi.expose(status=204)
    @_since_vifs
    def delete(self, vif_id):
        _check_vif_id(vif_id, 'vif_id')
        node = lookup.get_node(self.node_ident, policies.DETACH)
        _network(node).vif_detach(pecan.request.ctxt, node, vif_id)
