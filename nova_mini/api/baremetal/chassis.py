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

"""The chassis resource: /chassis, /chassis/detail, /chassis/{uuid} and
the nodes of a chassis, /chassis/{uuid}/nodes.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import chassis as schema
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import chassis as chassis_views
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.baremetal import chassis as chassis_obj
from nova_mini.policies.baremetal import chassis as policies

_check_patched = validation.value_checker(schema.patched, 'chassis')
_PATCHABLE = ('description', 'extra')


def _get_chassis(ident):
    req = pecan.request
    # Chassis are found by uuid only (they have no name).
    return objects.Chassis.get_by_uuid(req.ctxt, ident)


def list_params(req, view, sort_keys, detail):
    """Return ``(fields, detail, limit, marker, sort_key, sort_dir)`` of
    a chassis or port list request, checked as Ironic checks them.
    """
    asked = req.GET.get('detail')
    if asked is not None:
        if not req.since(versions.DETAIL_QUERY):
            raise versions.not_acceptable(req)
        if detail:
            raise exception.Invalid('The detail parameter cannot be used '
                                    'with a /detail path.')
        detail = asked.lower() in ('1', 't', 'true', 'on', 'y', 'yes')
    fields = lookup.get_fields(view)
    if detail and fields:
        raise exception.Invalid('The fields parameter cannot be used with '
                                'a detailed list.')
    sort_key = req.GET.get('sort_key', 'id')
    if sort_key not in sort_keys:
        raise exception.Invalid('The sort_key value %s is an invalid field '
                                'for sorting' % sort_key)
    return (fields, detail, pagination.ironic_limit(req), req.GET.get('marker'),
            sort_key, req.GET.get('sort_dir', 'asc'))


def _next_query(req):
    return [(name, req.GET[name]) for name in req.GET
            if name not in ('limit', 'marker', 'fields')]


class ChassisNodesController(rest.RestController):
    """/chassis/{uuid}/nodes[/detail]: the nodes a chassis holds."""

    _custom_actions = {'detail': ['GET']}

    def __init__(self, chassis_ident):
        self.chassis_ident = chassis_ident

    def _list(self, detail):
        req = pecan.request
        req.ctxt.can(policies.GET)
        chassis = _get_chassis(self.chassis_ident)
        project = lookup.list_project()
        view = node_views.NodeView(req)
        fields = lookup.get_fields(view)
        nodes = objects.NodeList.get_all(
            req.ctxt, filters={'chassis_id': chassis.id, 'project': project},
            limit=pagination.ironic_limit(req), marker=req.GET.get('marker'),
            with_traits=view.wants_traits(fields, detail))
        return view.collection(
            nodes.objects, pagination.ironic_limit(req),
            'chassis/%s/nodes%s' % (chassis.uuid,
                                    '/detail' if detail else ''),
            fields=fields, detail=detail, query=_next_query(req))

    @wsgi.expose()
    @validation.query(node_schema.list_query)
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @validation.query(node_schema.list_query)
    def detail(self):
        return self._list(detail=True)


class ChassisController(rest.RestController):
    """/chassis, /chassis/detail and /chassis/{uuid}."""

    _custom_actions = {'detail': ['GET']}

    def _list(self, detail):
        req = pecan.request
        req.ctxt.can(policies.GET)
        view = chassis_views.ChassisView(req)
        fields, detail, limit, marker, sort_key, sort_dir = list_params(
            req, view, chassis_obj.SORT_KEYS, detail)
        items = objects.ChassisList.get_all(
            req.ctxt, sort_key=sort_key, sort_dir=sort_dir, limit=limit,
            marker=marker)
        return view.collection(items.objects, limit,
                               'chassis/detail' if detail else 'chassis',
                               fields=fields, detail=detail,
                               query=_next_query(req))

    @wsgi.expose()
    @validation.query(schema.list_query)
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @validation.query(schema.list_query)
    def detail(self):
        return self._list(detail=True)

    @wsgi.expose()
    @validation.query(schema.show_query)
    def get_one(self, chassis_ident):
        req = pecan.request
        req.ctxt.can(policies.GET)
        view = chassis_views.ChassisView(req)
        return view.render(_get_chassis(chassis_ident),
                           lookup.get_fields(view))

    @wsgi.expose(status=201)
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        req.ctxt.can(policies.CREATE)
        body = {name: value for name, value in req.json.items()
                if value is not None}
        chassis = objects.Chassis(req.ctxt, **body)
        chassis.create()
        view = chassis_views.ChassisView(req)
        response = wsgi.json_response(view.render(chassis), status=201)
        response.location = view.link('chassis/%s' % chassis.uuid)
        return response

    @wsgi.expose()
    @validation.body(node_schema.patch)
    def patch(self, chassis_ident):
        req = pecan.request
        req.ctxt.can(policies.UPDATE)
        json_patch.check_fields(req.json, _PATCHABLE)
        chassis = _get_chassis(chassis_ident)
        document = {name: getattr(chassis, name) for name in _PATCHABLE}
        patched = json_patch.apply_to(document, req.json,
                                      removed={'description': None},
                                      empty={'extra': {}})
        _check_patched(patched)
        for name, value in json_patch.changes(document, patched).items():
            setattr(chassis, name, value)
        chassis.save()
        return chassis_views.ChassisView(req).render(chassis)

    @wsgi.expose(status=204)
    def delete(self, chassis_ident):
        req = pecan.request
        req.ctxt.can(policies.DELETE)
        _get_chassis(chassis_ident).destroy()

    @pecan.expose()
    def _lookup(self, chassis_ident, *remainder):
        if remainder and remainder[0] == 'nodes':
            return ChassisNodesController(chassis_ident), remainder[1:]
        return None
