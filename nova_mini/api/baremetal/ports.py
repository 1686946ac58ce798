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

"""The ports resource: /ports, /ports/detail, /ports/{uuid}, and the ports
of a node, /nodes/{node_ident}/ports[/detail].

MAC addresses are stored in lower case (as Ironic normalises them), so
``AA:BB:..`` and ``aa:bb:..`` are the same port: a second one is 409.
A port may be in a port group of its node (``portgroup_uuid``, 1.24),
whose ports all have the same ``physical_network``. No port is a smart
NIC.
"""

from oslo_utils import netutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import chassis as chassis_api
from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal.schemas import ports as schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import ports as ports_views
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import port as port_obj
from nova_mini.policies.baremetal import ports as policies

_check_patched = validation.value_checker(schema.patched, 'port')
_PATCHABLE = ('address', 'node_uuid', 'extra', 'local_link_connection',
              'pxe_enabled', 'physical_network', 'portgroup_uuid',
              'is_smartnic')
# What a field removed or set to null becomes.
_EMPTY = {'extra': {}, 'local_link_connection': {}, 'pxe_enabled': True,
          'is_smartnic': False}


def _get_port(ident, *rules):
    """The port of uuid ``ident`` if the caller may see it (else not
    found, as nodes), after checking ``rules`` on it.
    """
    context = pecan.request.ctxt
    if not uuidutils.is_uuid_like(ident):
        raise exception_baremetal.PortNotFound(port=ident)
    port = objects.Port.get_by_uuid(context, ident)
    lookup.authorize(
        context, lookup.project_target(context, port.node_owner,
                                       port.node_lessee),
        policies.GET, exception_baremetal.PortNotFound(port=ident), rules)
    return port


def mac(address):
    """Return the MAC ``address`` in lower case; 400 if it is none."""
    if not netutils.is_valid_mac(address):
        raise exception.Invalid('Expected a MAC address but received %s.'
                                % address)
    return address.lower()


def _check_values(values):
    """Refuse what the request's version or nova_mini does not have."""
    req = pecan.request
    for name, value in values.items():
        if value is not None and \
                not req.since(versions.PORT_FIELDS.get(name)):
            raise versions.not_acceptable(req)
    if values.get('is_smartnic'):
        raise exception.Invalid('Smart NIC ports are not supported: create '
                                'the port with is_smartnic false.')
    link = values.get('local_link_connection') or {}
    if 'network_type' in link and \
            not req.since(versions.LOCAL_LINK_NETWORK_TYPE):
        raise versions.not_acceptable(req)


def _group_id(context, group_ident, node_id, physical_network, port_id):
    """The id of the port group a port of node ``node_id`` joins
    (None: none), checked as Ironic: the group is the node's, and its
    other ports have the port's physical network.
    """
    if group_ident is None:
        return None
    try:
        group = objects.Portgroup.get(context, group_ident)
    except exception_baremetal.PortgroupNotFound as exc:
        raise exception.Invalid(exc.format_message())
    if group.node_id != node_id:
        raise exception.Invalid('Port can not be added to port group %s: '
                                'it belongs to another node.' % group.uuid)
    members = objects.PortList.get_all(
        context, filters={'portgroup_id': group.id})
    networks = {port.physical_network for port in members.objects
                if port.id != port_id}
    if networks and networks != {physical_network}:
        raise exception.Invalid(
            'Port group %s has member ports with inconsistent physical '
            'networks (%s). All ports in a port group must have the same '
            'physical network.' % (group.uuid, ', '.join(
                sorted(str(n) for n in networks | {physical_network}))))
    return group.id


def _filter_portgroup(req, group_ident, node_ident, project):
    """The port group a port list is filtered by (``portgroup``, 1.24;
    before it the filter is refused, 406, as in Ironic). A group of a
    node ``project`` (if not None) neither owns nor leases is not found,
    as the node filter's nodes and the group's own port list: Ironic
    lists its ports (none the caller sees), which told the group exists.
    """
    if not req.since(versions.PORT_PORTGROUP):
        raise versions.not_acceptable(req)
    if node_ident is not None:
        # Ironic refuses both filters together (403).
        raise exception.Forbidden(
            'Filter ports by node or by port group, not both: drop one of '
            'the two query parameters.')
    group = objects.Portgroup.get(req.ctxt, group_ident)
    if project is not None and project not in (group.node_owner,
                                               group.node_lessee):
        raise exception_baremetal.PortgroupNotFound(portgroup=group_ident)
    return group


def port_list(req, detail, path, node=None, portgroup=None):
    """The body of a port list (``/ports``, a node's or a port group's).
    """
    context = req.ctxt
    view = ports_views.PortView(req)
    fields, detail, limit, marker, sort_key, sort_dir = \
        chassis_api.list_params(req, view, port_obj.SORT_KEYS, detail)
    filters = {}
    if context.can(policies.LIST_ALL, {'project_id': context.project_id},
                   fatal=False):
        filters['project'] = None
    else:
        context.can(policies.LIST, {'project_id': context.project_id})
        filters['project'] = context.project_id
    node_ident = req.GET.get('node_uuid') or req.GET.get('node')
    group_ident = req.GET.get('portgroup')
    if group_ident is not None:
        portgroup = _filter_portgroup(req, group_ident, node_ident,
                                      filters['project'])
    if node is None and node_ident is not None:
        node = lookup.get_node(node_ident)
    if node is not None:
        filters['node_id'] = node.id
    if portgroup is not None:
        filters['portgroup_id'] = portgroup.id
    if req.GET.get('address') is not None:
        filters['address'] = req.GET['address'].lower()
    items = objects.PortList.get_all(context, filters=filters,
                                     sort_key=sort_key, sort_dir=sort_dir,
                                     limit=limit, marker=marker)
    query = [(name, req.GET[name]) for name in req.GET
             if name not in ('limit', 'marker', 'fields')]
    return view.collection(items.objects, limit, path, fields=fields,
                           detail=detail, query=query)


class NodePortsController(rest.RestController):
    """/nodes/{node_ident}/ports[/detail]: a node's ports (read only)."""

    _custom_actions = {'detail': ['GET']}

    def __init__(self, node_ident):
        self.node_ident = node_ident

    def _list(self, detail):
        req = pecan.request
        node = lookup.get_node(self.node_ident)
        return port_list(req, detail, 'nodes/%s/ports%s' % (
            self.node_ident, '/detail' if detail else ''), node=node)

    @wsgi.expose()
    @validation.query(schema.node_ports_query)
    def get_all(self):
        return self._list(detail=False)

    @wsgi.expose()
    @validation.query(schema.node_ports_query)
    def detail(self):
        return self._list(detail=True)


class PortsController(rest.RestController):
    """/ports, /ports/detail and /ports/{uuid}."""

    _custom_actions = {'detail': ['GET']}

    @wsgi.expose()
    @validation.query(schema.list_query)
    def get_all(self):
        return port_list(pecan.request, False, 'ports')

    @wsgi.expose()
    @validation.query(schema.list_query)
    def detail(self):
        return port_list(pecan.request, True, 'ports/detail')

    @wsgi.expose()
    @validation.query(node_schema.show_query)
    def get_one(self, port_ident):
        view = ports_views.PortView(pecan.request)
        return view.render(_get_port(port_ident), lookup.get_fields(view))

    @wsgi.expose(status=201)
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        body = dict(req.json)
        _check_values(body)
        node = lookup.get_node(body.pop('node_uuid'))
        req.ctxt.can(policies.CREATE, lookup.node_target(req.ctxt, node))
        body['portgroup_id'] = _group_id(
            req.ctxt, body.pop('portgroup_uuid', None), node.id,
            body.get('physical_network'), None)
        body.pop('is_smartnic', None)
        body['address'] = mac(body['address'])
        for name in ('extra', 'local_link_connection'):
            if body.get(name) is None:
                body.pop(name, None)
        port = objects.Port(req.ctxt, node_id=node.id, **body)
        port.create()
        view = ports_views.PortView(req)
        response = wsgi.json_response(view.render(port), status=201)
        response.location = view.link('ports/%s' % port.uuid)
        return response

    @wsgi.expose()
    @validation.body(node_schema.patch)
    def patch(self, port_ident):
        req = pecan.request
        json_patch.check_fields(req.json, _PATCHABLE)
        port = _get_port(port_ident, policies.UPDATE)
        view = ports_views.PortView(req)
        # The stored port (not the view, which may one day mask or
        # convert); is_smartnic is not kept: always false.
        document = {name: getattr(port, name) for name in _PATCHABLE
                    if name != 'is_smartnic'}
        document['is_smartnic'] = False
        patched = json_patch.apply_to(document, req.json,
                                      removed=dict.fromkeys(_PATCHABLE),
                                      empty=_EMPTY)
        if patched['address'] is None or patched['node_uuid'] is None:
            raise exception.Invalid('A port must keep its address and '
                                    'node_uuid: replace them, do not remove '
                                    'them.')
        _check_patched(patched)
        changed = json_patch.changes(document, patched)
        _check_values(changed)
        if 'address' in changed:
            changed['address'] = mac(changed['address'])
        node_id = port.node_id
        if 'node_uuid' in changed:
            node = lookup.get_node(changed.pop('node_uuid'))
            req.ctxt.can(policies.UPDATE,
                         lookup.node_target(req.ctxt, node))
            changed['node_id'] = node_id = node.id
        if {'portgroup_uuid', 'physical_network', 'node_id'} & set(changed):
            changed['portgroup_id'] = _group_id(
                req.ctxt, patched['portgroup_uuid'], node_id,
                patched['physical_network'], port.id)
        changed.pop('portgroup_uuid', None)
        changed.pop('is_smartnic', None)
        for name, value in changed.items():
            setattr(port, name, value)
        port.save()
        return view.render(port)

    @wsgi.expose(status=204)
    def delete(self, port_ident):
        _get_port(port_ident, policies.DELETE).destroy()
