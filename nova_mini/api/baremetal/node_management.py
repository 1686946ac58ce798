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

"""A node's management: its boot device (GET/PUT
/nodes/{node_ident}/management/boot_device and GET .../supported), inject
NMI (PUT .../management/inject_nmi, from 1.29) and its indicators
(.../management/indicators, from 1.63: see node_indicators.py).

The boot device of a node of a conductor's hardware type (redfish) is
its BMC's, asked of its nova-mini-conductor (conductor_rpc); setting it
holds the node's reservation for the call (409 NodeLocked while another
operation holds it).
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import conductor_rpc
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal import node_indicators
from nova_mini.api.baremetal.schemas import node_states as schema
from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import node_power
from nova_mini.policies.baremetal import nodes as policies

_check_nmi_body = validation.value_checker(schema.inject_nmi, 'request body')


class BootDeviceController(rest.RestController):
    """/nodes/{node_ident}/management/boot_device[/supported]."""

    _custom_actions = {'supported': ['GET']}

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose()
    def get_all(self):
        node = lookup.get_node(self.node_ident, policies.GET_BOOT_DEVICE)
        if conductor_rpc.conductor_driven(node):
            return conductor_rpc.call('get_boot_device', node)
        return node_power.get_boot_device(node)

    @wsgi.expose(status=204)
    @validation.body(schema.boot_device)
    def put(self):
        req = pecan.request
        node = lookup.get_node(self.node_ident, policies.SET_BOOT_DEVICE)
        if conductor_rpc.conductor_driven(node):
            conductor_rpc.call('set_boot_device', node,
                               req.json['boot_device'],
                               persistent=req.json.get('persistent', False))
            return
        node_power.set_boot_device(req.ctxt, node, req.json['boot_device'],
                                   req.json.get('persistent', False))

    @wsgi.expose()
    def supported(self):
        node = lookup.get_node(self.node_ident, policies.GET_BOOT_DEVICE)
        if conductor_rpc.conductor_driven(node):
            return {'supported_boot_devices': list(conductor_rpc.call(
                'get_supported_boot_devices', node))}
        return {'supported_boot_devices':
                list(node_power.SUPPORTED_BOOT_DEVICES)}


class InjectNmiController(rest.RestController):
    """/nodes/{node_ident}/management/inject_nmi (from 1.29)."""

    def __init__(self, node_ident):
        self.node_ident = node_ident

    @wsgi.expose(status=204)
    @microversion.versioned(min_version=versions.INJECT_NMI)
    def put(self):
        req = pecan.request
        if req.body:
            _check_nmi_body(validation.request_json(req))
        node = lookup.get_node(self.node_ident, policies.INJECT_NMI)
        # As Ironic's conductor: the management interface validates the
        # node (the fake one accepts any), then is asked for the action,
        # which Ironic's fake management interface does not implement.
        raise exception_baremetal.ManagementActionUnsupported(
            driver=node.driver, extension='inject_nmi')


class NodeManagementController(rest.RestController):
    """/nodes/{node_ident}/management."""

    def __init__(self, node_ident):
        self.boot_device = BootDeviceController(node_ident)
        self.inject_nmi = InjectNmiController(node_ident)
        self.indicators = node_indicators.IndicatorsController(node_ident)
