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

"""The flavors resource: /flavors, /flavors/detail, /flavors/{id}.

Sub-resources (os-extra_specs, os-flavor-access, action) live in their own
modules and are reached through ``_lookup``.
"""

import uuid

from oslo_utils import strutils
import pecan
from pecan import rest

from nova_mini.api.compute import flavor_access
from nova_mini.api.compute import flavor_extra_specs
from nova_mini.api.compute.schemas import flavors as schema
from nova_mini.api.compute import versions
from nova_mini.api.compute.views import flavors as flavor_views
from nova_mini.api import microversion
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import flavor as flavor_obj
from nova_mini.policies.compute import flavors as policies

_SUB_RESOURCES = {
    'os-extra_specs': flavor_extra_specs.FlavorExtraSpecsController,
    'os-flavor-access': flavor_access.FlavorAccessController,
    'action': flavor_access.FlavorActionController,
}

# GET /flavors and /flavors/detail take the same query.
_validate_list_query = validation.query([
    (None, schema.index_query),
    (versions.STRICT_VALIDATION, schema.index_query_v275),
])


# Past any flavor size (the columns are 32-bit integers).
_SIZE_BOUND = 2 ** 31


def _parse_int_filter(req, name):
    value = req.GET.get(name)
    if value is None:
        return None
    try:
        value = int(value)
    except ValueError:
        raise exception.Invalid('Invalid %s filter [%s]' % (name, value))
    # A flavor's sizes are 32-bit integers: a bound past them selects what
    # 2**31 does (SQLite cannot bind an integer past 64 bits: a 500).
    return max(-_SIZE_BOUND, min(value, _SIZE_BOUND))


def _parse_is_public_filter(req, context):
    if not context.is_admin:
        return True
    value = req.GET.get('is_public')
    if value is None:
        return True
    if value.lower() == 'none':
        return None
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError:
        raise exception.Invalid('Invalid is_public filter [%s]' % value)


class FlavorsController(rest.RestController):
    """/flavors, /flavors/detail and /flavors/{id}; the sub-resources
    through ``_lookup``.
    """

    _custom_actions = {'detail': ['GET']}

    def _list(self, detail):
        req = pecan.request
        context = req.ctxt
        context.can(policies.LIST)
        filters = {'is_public': _parse_is_public_filter(req, context)}
        if not context.is_admin:
            filters['disabled'] = False
        filters['min_memory_mb'] = _parse_int_filter(req, 'minRam')
        filters['min_root_gb'] = _parse_int_filter(req, 'minDisk')
        limit = pagination.limit(req)
        # Records, not Flavor objects: the list is only displayed.
        flavors = flavor_obj.list_flavors(
            context, filters=filters,
            sort_key=req.GET.get('sort_key') or 'flavorid',
            sort_dir=req.GET.get('sort_dir') or 'asc',
            limit=limit, marker=req.GET.get('marker'))
        return flavor_views.FlavorView(req).index(
            flavors, detail,
            next_marker_wanted=len(flavors) == limit,
            link_params=schema.index_query['properties'])

    @wsgi.expose()
    @_validate_list_query
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @_validate_list_query
    def detail(self):
        return self._list(detail=True)

    @wsgi.expose()
    def get_one(self, flavor_id):
        req = pecan.request
        req.ctxt.can(policies.SHOW)
        flavor = objects.Flavor.get_by_flavor_id(req.ctxt, flavor_id)
        return flavor_views.FlavorView(req).show(flavor)

    @wsgi.expose()
    @validation.body([(None, schema.create),
                      (versions.FLAVOR_DESCRIPTION, schema.create_v255)])
    def post(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.CREATE)
        body = req.json['flavor']
        # A missing, null or otherwise false id (0) gets a generated one.
        flavor_id = body.get('id') or str(uuid.uuid4())
        flavor = objects.Flavor(context)
        flavor.flavorid = str(flavor_id)
        flavor.name = body['name']
        flavor.memory_mb = int(body['ram'])
        flavor.vcpus = int(body['vcpus'])
        flavor.root_gb = int(body['disk'])
        flavor.ephemeral_gb = int(body.get('OS-FLV-EXT-DATA:ephemeral', 0))
        flavor.swap = int(body.get('swap', 0))
        flavor.rxtx_factor = float(body.get('rxtx_factor', 1.0))
        flavor.is_public = strutils.bool_from_string(
            body.get('os-flavor-access:is_public', True), strict=True)
        flavor.disabled = False
        flavor.description = body.get('description')
        flavor.extra_specs = {}
        flavor.create()
        return flavor_views.FlavorView(req).show(flavor)

    @wsgi.expose()
    @microversion.versioned(min_version=versions.FLAVOR_DESCRIPTION)
    @validation.body(schema.update_v255)
    def put(self, flavor_id):
        req = pecan.request
        context = req.ctxt
        context.can(policies.UPDATE)
        flavor = objects.Flavor.get_by_flavor_id(context, flavor_id)
        flavor.description = req.json['flavor']['description']
        flavor.save()
        return flavor_views.FlavorView(req).show(flavor)

    @wsgi.expose(status=202)
    def delete(self, flavor_id):
        context = pecan.request.ctxt
        context.can(policies.DELETE)
        objects.Flavor.get_by_flavor_id(context, flavor_id).destroy()

    @pecan.expose()
    def _lookup(self, flavor_id, *remainder):
        if remainder and remainder[0] in _SUB_RESOURCES:
            return _SUB_RESOURCES[remainder[0]](flavor_id), remainder[1:]
        return None
