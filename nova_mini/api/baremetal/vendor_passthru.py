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

"""Vendor passthru: /nodes/{node_ident}/vendor_passthru and
/drivers/{driver_name}/vendor_passthru, as Ironic's.

``GET .../vendor_passthru/methods`` lists the methods of the vendor
interface (the node's, or the hardware type's default); ``{GET, POST, PUT,
PATCH, DELETE} .../vendor_passthru?method=<name>`` (or
``.../vendor_passthru/<name>``) calls one with the request body as its
arguments: 202 and no body for an asynchronous method, 200 and its result
for a synchronous one. The methods are in vendor_interfaces.py.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal import vendor_interfaces
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.policies.baremetal import vendor_passthru as policies


def _check_query(allowed=()):
    unexpected = sorted(set(pecan.request.GET) - set(allowed))
    if unexpected:
        raise exception.Invalid('Unexpected arguments: %s'
                                % ', '.join(unexpected))


def _method_name(name):
    """The method called: the path segment, else ``?method=``."""
    _check_query(('method',))
    if name is None:
        name = pecan.request.GET.get('method')
    if name is None:
        raise exception.Invalid('Missing mandatory parameter: method')
    return name


class _PassthruController(rest.RestController):
    """What node and driver vendor passthru share; a subclass says which
    vendor interface serves the request (``_interface``), after its policy.
    """

    _custom_actions = {'methods': ['GET']}
    _methods = None      # vendor_interfaces.NODE_METHODS or DRIVER_METHODS
    _driver_level = False

    def _interface(self):
        raise NotImplementedError()

    @wsgi.expose()
    def methods(self):
        _check_query()
        interface = self._interface()
        return {name: method.metadata(self._driver_level)
                for name, method in self._methods[interface].items()}

    def _call(self, name):
        name = _method_name(name)
        interface = self._interface()
        if not name:
            raise exception.Invalid(
                'Method not specified: give its name in ?method=.')
        req = pecan.request
        is_async, result = vendor_interfaces.call(
            self._methods, interface, name, req.method.upper(), req.json)
        if is_async:
            return wsgi.json_response(None, status=202)
        return wsgi.json_response(result)

    @wsgi.expose()
    def get_all(self):
        return self._call(None)

    @wsgi.expose()
    def get_one(self, name):
        return self._call(name)

    @wsgi.expose()
    def post(self, name=None):
        return self._call(name)

    @wsgi.expose()
    def put(self, name=None):
        return self._call(name)

    @wsgi.expose()
    def patch(self, name=None):
        return self._call(name)

    @wsgi.expose()
    def delete(self, name=None):
        return self._call(name)


class NodeVendorPassthruController(_PassthruController):
    """/nodes/{node_ident}/vendor_passthru[/methods]: the methods of the
    node's vendor interface.
    """

    _methods = vendor_interfaces.NODE_METHODS

    def __init__(self, node_ident):
        self.node_ident = node_ident

    def _interface(self):
        node = lookup.get_node(self.node_ident, policies.NODE)
        return node.vendor_interface


class DriverVendorPassthruController(_PassthruController):
    """/drivers/{driver_name}/vendor_passthru[/methods]: the driver-level
    methods of the hardware type's default vendor interface.
    """

    _methods = vendor_interfaces.DRIVER_METHODS
    _driver_level = True

    def __init__(self, driver_name):
        self.driver_name = driver_name

    def _interface(self):
        req = pecan.request
        req.ctxt.can(policies.DRIVER)
        interfaces = node_interfaces.HARDWARE_TYPES.get(self.driver_name)
        # As Ironic's, a hardware type no alive conductor drives is not
        # found.
        if interfaces is None or not conductor.alive_hostnames(
                req.ctxt, driver=self.driver_name):
            raise exception_baremetal.HardwareTypeNotFound(driver=self.driver_name)
        return interfaces['vendor'][0]
