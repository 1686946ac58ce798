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

"""Access to private flavors: /flavors/{id}/os-flavor-access and the
addTenantAccess / removeTenantAccess actions."""

import pecan
from pecan import rest

from nova_mini.api.compute.schemas import flavor_access as schema
from nova_mini.api.compute import versions
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.policies.compute import flavor_access as policies


def _access_list(flavor):
    return {'flavor_access': [{'flavor_id': flavor.flavorid,
                               'tenant_id': project_id}
                              for project_id in flavor.projects]}


class FlavorAccessController(rest.RestController):
    """GET /flavors/{id}/os-flavor-access: the projects a private flavor
    is shared with.
    """

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @wsgi.expose()
    def get_all(self):
        context = pecan.request.ctxt
        context.can(policies.LIST)
        flavor = objects.Flavor.get_by_flavor_id(context, self.flavor_id)
        if flavor.is_public:
            raise exception.NotFound(
                'Access list not available for public flavors.')
        return _access_list(flavor)


class FlavorActionController(rest.RestController):
    """POST /flavors/{id}/action: the body's only key names the action."""

    _ACTIONS = {'addTenantAccess': '_add', 'removeTenantAccess': '_remove'}

    def __init__(self, flavor_id):
        self.flavor_id = flavor_id

    @wsgi.expose()
    def post(self):
        body = pecan.request.json
        # As Nova: anything but a one-key object is malformed; one unknown
        # key is an unknown action.
        if not isinstance(body, dict) or len(body) != 1:
            raise exception.MalformedRequestBody()
        name = next(iter(body))
        if name not in self._ACTIONS:
            raise exception.Invalid('There is no such action: %s' % name)
        return getattr(self, self._ACTIONS[name])()

    @validation.body(schema.add_tenant_access)
    def _add(self):
        req = pecan.request
        req.ctxt.can(policies.ADD)
        flavor = objects.Flavor.get_by_flavor_id(req.ctxt, self.flavor_id)
        # Before 2.7 a public flavor took access entries without complaint.
        flavor.add_access(req.json['addTenantAccess']['tenant'],
                          allow_public=not req.since(
                              versions.PUBLIC_FLAVOR_ACCESS_CONFLICT))
        return _access_list(flavor)

    @validation.body(schema.remove_tenant_access)
    def _remove(self):
        req = pecan.request
        req.ctxt.can(policies.REMOVE)
        flavor = objects.Flavor.get_by_flavor_id(req.ctxt, self.flavor_id)
        flavor.remove_access(req.json['removeTenantAccess']['tenant'])
        return _access_list(flavor)
