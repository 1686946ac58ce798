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

"""A node's indicators: GET /nodes/{node_ident}/management/indicators,
GET/PUT .../indicators/{indicator_ident} (from 1.63), the indicator named
``<name>@<component>`` as Ironic names it. What the fake hardware has and
keeps: objects/baremetal/node_indicators.py.

A node of a conductor's hardware type (redfish) has its BMC's
indicators, read and set by its conductor (RPC API 1.1:
get_supported_indicators, get_indicator_state, set_indicator_state), in
the same shapes.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import conductor_rpc
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import node_states as schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini.objects.baremetal import node_indicators
from nova_mini.policies.baremetal import nodes as policies


def _supported(node):
    """``{component: {name: {'readonly', 'states'}}}`` of ``node``."""
    if conductor_rpc.conductor_driven(node):
        return conductor_rpc.call('get_supported_indicators', node)
    return node_indicators.supported()


class IndicatorsController(rest.RestController):
    """/nodes/{node_ident}/management/indicators[/{indicator_ident}]."""

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    @microversion.versioned(min_version=versions.INDICATORS)
    def get_all(self):
        node = lookup.get_node(self.node_ident, policies.GET_INDICATOR_STATE)
        view = node_views.NodeView(pecan.request)
        indicators = []
        for component, names in sorted(_supported(node).items()):
            for name, info in sorted(names.items()):
                ident = '%s@%s' % (name, component)
                # As Ironic's, the links name the node as the URL does.
                path = 'nodes/%s/management/indicators/%s' % (
                    self.node_ident, ident)
                indicators.append({
                    'name': ident, 'component': component,
                    'readonly': info['readonly'], 'states': info['states'],
                    'links': [
                        {'href': view.link(path), 'rel': 'self'},
                        {'href': view.link(path, bookmark=True),
                         'rel': 'bookmark'}]})
        return {'indicators': indicators}

    @wsgi.expose()
    @microversion.versioned(min_version=versions.INDICATORS)
    def get_one(self, indicator_ident):
        node = lookup.get_node(self.node_ident, policies.GET_INDICATOR_STATE)
        if conductor_rpc.conductor_driven(node):
            name, component = node_indicators.split(indicator_ident)
            return {'state': conductor_rpc.call(
                'get_indicator_state', node, component, name)}
        return {'state': node_indicators.get_state(node, indicator_ident)}

    @wsgi.expose(status=204)
    @microversion.versioned(min_version=versions.INDICATORS)
    @validation.body(schema.indicator_state)
    def put(self, indicator_ident):
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.SET_INDICATOR_STATE)
        if conductor_rpc.conductor_driven(node):
            name, component = node_indicators.split(indicator_ident)
            conductor_rpc.call('set_indicator_state', node, component, name,
                               req.json['state'])
            return
        node_indicators.set_state(req.ctxt, node, indicator_ident,
                                  req.json['state'])
