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

"""The port groups resource (from 1.23; earlier it is not found, as in
Ironic): /portgroups, /portgroups/detail, /portgroups/{uuid or name}, its
ports /portgroups/{ident}/ports[/detail] and a node's port groups
/nodes/{node_ident}/portgroups[/detail] (both from 1.24). ``mode`` and
``properties`` come with 1.26.
"""

from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import chassis as chassis_api
from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal import ports
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal.schemas import portgroups as schema
from nova_mini.api.baremetal.schemas import ports as port_schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import portgroups as portgroups_views
from nova_mini.api import microversion
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import portgroup as portgroup_obj
from nova_mini.policies.baremetal import portgroups as policies

_check_patched = validation.value_checker(schema.patched, 'portgroup')
_PATCHABLE = ('name', 'address', 'node_uuid', 'extra',
              'standalone_ports_supported', 'mode', 'properties')
# What a field removed or set to null becomes.
_EMPTY = {'extra': {}, 'properties': {}, 'standalone_ports_supported': True}
_MODE_FIELDS = ('mode', 'properties')
_since_portgroups = microversion.versioned(min_version=versions.PORTGROUPS)
_since_subresources = microversion.versioned(
    min_version=versions.PORT_PORTGROUP)


def get_portgroup(ident, *rules):
    """The port group of uuid or name ``ident`` if the caller may see it
    (else not found, as nodes), after checking ``rules`` on it.
    """
    context = pecan.request.ctxt
    group = objects.Portgroup.get(context, ident)
    lookup.authorize(
        context, lookup.project_target(context, group.node_owner,
                                       group.node_lessee),
        policies.GET, exception_baremetal.PortgroupNotFound(portgroup=ident), rules)
    return group


def _check_values(values):
    req = pecan.request
    for name in _MODE_FIELDS:
        if values.get(name) is not None and \
                not req.since(versions.PORTGROUP_MODE):
            raise versions.not_acceptable(req)
    if values.get('name') and uuidutils.is_uuid_like(values['name']):
        raise exception.Invalid('Cannot use a UUID as the port group name '
                                '%s.' % values['name'])
    if values.get('address') is not None:
        values['address'] = ports.mac(values['address'])


def _list(req, detail, path, node=None):
    context = req.ctxt
    view = portgroups_views.PortgroupView(req)
    fields, detail, limit, marker, sort_key, sort_dir = \
        chassis_api.list_params(req, view, portgroup_obj.SORT_KEYS, detail)
    filters = {}
    if not context.can(policies.LIST_ALL,
                       {'project_id': context.project_id}, fatal=False):
        context.can(policies.LIST, {'project_id': context.project_id})
        filters['project'] = context.project_id
    if node is None and req.GET.get('node') is not None:
        node = lookup.get_node(req.GET['node'])
    if node is not None:
        filters['node_id'] = node.id
    if req.GET.get('address') is not None:
        filters['address'] = req.GET['address'].lower()
    items = objects.PortgroupList.get_all(
        context, filters=filters, sort_key=sort_key, sort_dir=sort_dir,
        limit=limit, marker=marker)
    query = [(name, req.GET[name]) for name in req.GET
             if name not in ('limit', 'marker', 'fields')]
    return view.collection(items.objects, limit, path, fields=fields,
                           detail=detail, query=query)


class NodePortgroupsController(rest.RestController):
    """/nodes/{node_ident}/portgroups[/detail] (from 1.24)."""

    _custom_actions = {'detail': ['GET']}

    def __init__(self, node_ident):
        self.node_ident = node_ident

    def _list(self, detail):
        node = lookup.get_node(self.node_ident)
        return _list(pecan.request, detail, 'nodes/%s/portgroups%s' % (
            self.node_ident, '/detail' if detail else ''), node=node)

    @wsgi.expose()
    @_since_subresources
    @validation.query(schema.node_query)
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @_since_subresources
    @validation.query(schema.node_query)
    def detail(self):
        return self._list(detail=True)


class PortgroupPortsController(rest.RestController):
    """/portgroups/{ident}/ports[/detail] (from 1.24)."""

    _custom_actions = {'detail': ['GET']}

    def __init__(self, group_ident):
        self.group_ident = group_ident

    def _list(self, detail):
        group = get_portgroup(self.group_ident)
        return ports.port_list(pecan.request, detail, 'portgroups/%s/ports%s'
                               % (self.group_ident,
                                  '/detail' if detail else ''),
                               portgroup=group)

    @wsgi.expose()
    @_since_subresources
    @validation.query(port_schema.node_ports_query)
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @_since_subresources
    @validation.query(port_schema.node_ports_query)
    def detail(self):
        return self._list(detail=True)


class PortgroupsController(rest.RestController):
    """/portgroups, /portgroups/detail and /portgroups/{uuid or name}."""

    _custom_actions = {'detail': ['GET']}

    @wsgi.expose()
    @_since_portgroups
    @validation.query(schema.list_query)
    def get_all(self):
        return _list(pecan.request, False, 'portgroups')

    @wsgi.expose()
    @_since_portgroups
    @validation.query(schema.list_query)
    def detail(self):
        return _list(pecan.request, True, 'portgroups/detail')

    @wsgi.expose()
    @_since_portgroups
    @validation.query(node_schema.show_query)
    def get_one(self, group_ident):
        view = portgroups_views.PortgroupView(pecan.request)
        return view.render(get_portgroup(group_ident),
                           lookup.get_fields(view))

    @wsgi.expose(status=201)
    @_since_portgroups
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        body = {name: value for name, value in req.json.items()
                if value is not None}
        _check_values(body)
        node = lookup.get_node(body.pop('node_uuid'))
        req.ctxt.can(policies.CREATE, lookup.node_target(req.ctxt, node))
        group = objects.Portgroup(req.ctxt, node_id=node.id, **body)
        group.create()
        view = portgroups_views.PortgroupView(req)
        response = wsgi.json_response(view.render(group), status=201)
        response.location = view.link('portgroups/%s' % group.uuid)
        return response

    @wsgi.expose()
    @_since_portgroups
    @validation.body(node_schema.patch)
    def patch(self, group_ident):
        req = pecan.request
        json_patch.check_fields(req.json, _PATCHABLE)
        group = get_portgroup(group_ident, policies.UPDATE)
        view = portgroups_views.PortgroupView(req)
        document = {name: getattr(group, name) for name in _PATCHABLE}
        patched = json_patch.apply_to(document, req.json,
                                      removed=dict.fromkeys(_PATCHABLE),
                                      empty=_EMPTY)
        if patched['mode'] is None or patched['node_uuid'] is None:
            raise exception.Invalid('A port group must keep its mode and '
                                    'node_uuid: replace them, do not remove '
                                    'them.')
        _check_patched(patched)
        changed = json_patch.changes(document, patched)
        _check_values(changed)
        if 'node_uuid' in changed:
            node = lookup.get_node(changed.pop('node_uuid'))
            req.ctxt.can(policies.UPDATE,
                         lookup.node_target(req.ctxt, node))
            changed['node_id'] = node.id
        for name, value in changed.items():
            setattr(group, name, value)
        group.save()
        return view.render(group)

    @wsgi.expose(status=204)
    @_since_portgroups
    def delete(self, group_ident):
        get_portgroup(group_ident, policies.DELETE).destroy()

    @pecan.expose()
    def _lookup(self, group_ident, *remainder):
        if remainder and remainder[0] == 'ports':
            return PortgroupPortsController(group_ident), remainder[1:]
        return None
