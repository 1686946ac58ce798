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

"""A node's states: GET /nodes/{node_ident}/states and
PUT /nodes/{node_ident}/states/provision.

A provision change is answered 202 with a Location of the node's states,
as Ironic does, though here it is complete when the answer is sent.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import node_view
from nova_mini.api.baremetal.schemas import node_states as schema
from nova_mini.api.baremetal import utils
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.policies import nodes as policies
from nova_mini import states


class NodeStatesController(rest.RestController):
    """/nodes/{node_ident}/states and its provision action."""

    _custom_actions = {'provision': ['PUT']}

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    def get_all(self):
        req = pecan.request
        node = utils.get_node(self.node_ident, policies.GET_STATES)
        view = node_view.NodeView(req)
        return {name: view.value(node, name) for name in (
            'power_state', 'target_power_state', 'provision_state',
            'target_provision_state', 'provision_updated_at',
            'last_error')} | {'console_enabled': False}

    @wsgi.expose(status=202)
    @validation.body(schema.provision)
    def provision(self):
        req = pecan.request
        target = req.json['target']
        if target in (states.MANAGE, states.PROVIDE) and \
                not utils.allow_management_verbs():
            raise utils.not_acceptable()
        node = utils.get_node(self.node_ident,
                              policies.SET_PROVISION_STATE)
        if node.maintenance and target == states.DEPLOY:
            raise exception.NodeInMaintenance(action=target, node=node.uuid)
        node.set_provision_state(target)
        # An empty answer with no Content-Type, as Ironic's: clients
        # would try to decode an empty "JSON" body.
        response = wsgi.json_response(None, status=202)
        del response.headers['Content-Type']
        response.location = node_view.NodeView(req).link(
            'nodes/%s/states' % self.node_ident)
        return response
