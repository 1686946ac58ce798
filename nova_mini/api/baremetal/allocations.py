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

"""The allocations resource (1.52): /allocations, /allocations/{uuid or
name}, and the allocation of a node, /nodes/{node}/allocation.

An allocation is given its node while the create request is served
(nova_mini.objects.baremetal.node_allocation): the 201 shows it as created,
``allocating``, as Ironic's does, and by the time the client reads it
again it is ``active`` with its ``node_uuid``, or ``error`` with its
``last_error``. A backfill (1.58) is answered done, as in Ironic.
"""

import re

from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import allocations as schema
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import allocations as allocations_views
from nova_mini.api import microversion
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini.objects.baremetal import node_allocation
from nova_mini.policies.baremetal import allocations as policies
from nova_mini.policies.baremetal import nodes as node_policies

_check_patched = validation.value_checker(schema.patched, 'allocation')
_PATCHABLE = ('name', 'extra')
_since_allocations = microversion.versioned(min_version=versions.ALLOCATION)
_writes_since_allocations = microversion.versioned(
    min_version=versions.ALLOCATION,
    refusal=exception.MethodNotAllowedForVersion)
_since_allocation_update = microversion.versioned(
    min_version=versions.ALLOCATION_UPDATE,
    refusal=exception.MethodNotAllowedForVersion)
_UNSORTABLE = ('extra', 'candidate_nodes', 'traits')
CONF = conf.CONF


def _target(owner):
    return {'project_id': owner}


def _load(ident):
    context = pecan.request.ctxt
    if uuidutils.is_uuid_like(ident):
        return objects.Allocation.get_by_uuid(context, ident)
    return objects.Allocation.get_by_name(context, ident)


def get_allocation(ident, rule):
    """Return the allocation ``ident`` (uuid or name) if the caller passes
    ``rule`` on it; one it may not see is not found, as Ironic conceals
    them from projects.
    """
    context = pecan.request.ctxt
    allocation = _load(ident)
    if not context.can(policies.GET, _target(allocation.owner),
                       fatal=False):
        if context.project_id:
            raise exception_baremetal.AllocationNotFound(allocation=ident)
        raise exception.PolicyNotAuthorized(action=policies.GET)
    context.can(rule, _target(allocation.owner))
    return allocation


def _valid_name(name):
    # A logical name (RFC 3986 unreserved characters); a UUID would be
    # found as one.
    return (re.match(schema.NAME_PATTERN, name) is not None
            and not uuidutils.is_uuid_like(name))


def _check_name(name):
    if name is not None and not _valid_name(name):
        raise exception.Invalid("Cannot create allocation with invalid "
                                "name '%s'" % name)


def _list_owner(requested):
    """The filter limiting a list to an owner, Ironic's way: ``owner``
    (the one requested by a caller who may list all), ``project`` (the
    caller's own project, its markers too), or none.
    """
    context = pecan.request.ctxt
    if context.can(policies.LIST_ALL, _target(context.project_id),
                   fatal=False):
        return {} if requested is None else {'owner': requested}
    context.can(policies.LIST, _target(context.project_id))
    if requested is not None and requested != context.project_id:
        raise exception.PolicyNotAuthorized(action=policies.LIST_ALL)
    return {'project': context.project_id}


def _list(req, node=None):
    view = allocations_views.AllocationView(req)
    fields = lookup.get_fields(view)
    owner = req.GET.get('owner')
    if owner is not None and not req.since(versions.ALLOCATION_OWNER):
        raise versions.not_acceptable(req)
    filters = {}
    if node is None:
        filters.update(_list_owner(owner))
        ident = req.GET.get('node')
        if ident is not None:
            try:
                node = lookup.get_node(ident)
            except exception_baremetal.NodeNotFound as error:
                raise exception.Invalid(str(error))
    if node is not None:
        filters['node_id'] = node.id
    for name in ('resource_class', 'state'):
        if req.GET.get(name) is not None:
            filters[name] = req.GET[name]
    sort_key = req.GET.get('sort_key', 'id')
    if sort_key in _UNSORTABLE or sort_key not in allocation_obj.SORT_KEYS:
        raise exception.Invalid('The sort_key value %s is an invalid field '
                                'for sorting' % sort_key)
    limit = pagination.ironic_limit(req)
    items = objects.AllocationList.get_all(
        req.ctxt, filters=filters, sort_key=sort_key,
        sort_dir=req.GET.get('sort_dir', 'asc'), limit=limit,
        marker=req.GET.get('marker'))
    query = [(name, req.GET[name]) for name in req.GET
             if name not in ('limit', 'marker', 'fields')]
    return view, fields, items.objects, limit, query


def _create_values(req):
    body = {name: value for name, value in req.json.items()
            if value is not None}
    context = req.ctxt
    if 'owner' in body and not req.since(versions.ALLOCATION_OWNER):
        raise versions.not_acceptable(req)
    if context.can(policies.CREATE, _target(body.get('owner')),
                   fatal=False):
        restricted = False
    else:
        context.can(policies.CREATE_RESTRICTED,
                    _target(context.project_id))
        if body.get('owner') not in (None, context.project_id):
            raise exception.PolicyNotAuthorized(action=policies.CREATE)
        body['owner'] = context.project_id
        restricted = True
        _check_owned_count(context)
    _check_name(body.get('name'))
    node = None
    if 'node' in body:
        if not req.since(versions.ALLOCATION_BACKFILL):
            raise exception.Invalid('Cannot set node when creating an '
                                    'allocation in this API version')
        try:
            node = lookup.get_node(body.pop('node'))
        except exception_baremetal.NodeNotFound as error:
            raise exception.Invalid(str(error))
    if not body.get('resource_class'):
        if node is None:
            raise exception.Invalid('The resource_class field is mandatory '
                                    'when not backfilling')
        body['resource_class'] = node.resource_class
    if body.get('candidate_nodes'):
        body['candidate_nodes'] = _candidate_uuids(
            body['candidate_nodes'], restricted)
    if 'uuid' not in body:
        if node is not None and node.instance_uuid:
            body['uuid'] = node.instance_uuid
        else:
            body['uuid'] = uuidutils.generate_uuid()
    return body, node


def _check_owned_count(context):
    """403 when the caller's project owns [api]
    max_allocations_per_project allocations already (a member's create).
    """
    limit = CONF.api.max_allocations_per_project
    if limit < 0:
        return
    if allocation_obj.count_of_owner(context, context.project_id) >= limit:
        raise exception.Forbidden(
            'Project %s has %d allocations, the most it may have: delete '
            'some (those in state "error" found no node) before creating '
            'another.' % (context.project_id, limit))


def _candidate_uuids(idents, restricted):
    """The uuids of the candidate nodes named (uuids or names); a node
    the caller may not see is refused as unknown (400).
    """
    result = []
    for ident in idents:
        try:
            node = lookup.get_node(ident)
        except exception_baremetal.NodeNotFound as error:
            raise exception.Invalid(str(error))
        if restricted and pecan.request.ctxt.project_id not in (
                node.owner, node.lessee):
            raise exception.Invalid('Node %s could not be found.' % ident)
        result.append(node.uuid)
    return result


def _node_exists(context, ident):
    """Whether a node of uuid or name ``ident`` exists, seen or not."""
    try:
        if uuidutils.is_uuid_like(ident):
            objects.Node.get_by_uuid(context, ident)
        else:
            objects.Node.get_by_name(context, ident)
    except exception_baremetal.NodeNotFound:
        return False
    return True


class NodeAllocationController(rest.RestController):
    """/nodes/{node}/allocation: the allocation holding the node."""

    def __init__(self, node_ident):
        self.node_ident = node_ident

    def _allocation(self, rule):
        node = lookup.get_node(self.node_ident, node_policies.GET)
        try:
            allocation = objects.Allocation.get_by_node_id(
                pecan.request.ctxt, node.id)
        except exception_baremetal.AllocationNotFound:
            raise exception_baremetal.NodeAllocationNotFound(node=self.node_ident)
        return get_allocation(allocation.uuid, rule)

    @wsgi.expose()
    @_since_allocations
    @validation.query(schema.show_query)
    def get_all(self):
        req = pecan.request
        view = allocations_views.AllocationView(req)
        fields = lookup.get_fields(view)
        try:
            allocation = self._allocation(policies.GET)
        except exception_baremetal.NodeNotFound as error:
            # As Ironic, reading the allocation of a node that does not
            # exist is a bad request (400); a node hidden from the
            # caller stays not found (404).
            if not _node_exists(req.ctxt, self.node_ident):
                raise exception.Invalid(str(error))
            raise
        return view.render(allocation, fields)

    @wsgi.expose(status=204)
    @_since_allocations
    def delete(self):
        self._allocation(policies.DELETE).destroy()


class AllocationsController(rest.RestController):
    """/allocations and /allocations/{uuid or name}."""

    @wsgi.expose()
    @_since_allocations
    @validation.query(schema.list_query)
    def get_all(self):
        req = pecan.request
        view, fields, items, limit, query = _list(req)
        return view.collection(items, limit, 'allocations', fields=fields,
                               detail=not fields, query=query)

    @wsgi.expose()
    @_since_allocations
    @validation.query(schema.show_query)
    def get_one(self, ident):
        req = pecan.request
        view = allocations_views.AllocationView(req)
        fields = lookup.get_fields(view)
        return view.render(get_allocation(ident, policies.GET), fields)

    @wsgi.expose(status=201)
    @_writes_since_allocations
    @validation.body(schema.create)
    def post(self):
        req = pecan.request
        body, node = _create_values(req)
        allocation = objects.Allocation(req.ctxt, **body)
        created, given = node_allocation.create(allocation, node)
        view = allocations_views.AllocationView(req)
        # As Ironic, a backfill is answered done (or failed), another
        # allocation as created, ``allocating``; it has its node (or its
        # error) before the answer leaves, for the client's next read.
        answer = view.render(given if node is not None else created)
        response = wsgi.json_response(answer, status=201)
        response.location = view.link('allocations/%s' % allocation.uuid)
        return response

    @wsgi.expose()
    @_since_allocation_update
    @validation.body(node_schema.patch)
    def patch(self, ident):
        req = pecan.request
        json_patch.check_fields(req.json, _PATCHABLE)
        allocation = get_allocation(ident, policies.UPDATE)
        document = {name: getattr(allocation, name) for name in _PATCHABLE}
        patched = json_patch.apply_to(document, req.json,
                                      removed={'name': None},
                                      empty={'extra': {}})
        _check_patched(patched)
        if patched['name'] is not None and not _valid_name(patched['name']):
            raise exception.Invalid("Cannot update allocation with invalid "
                                    "name '%s'" % patched['name'])
        for name, value in json_patch.changes(document, patched).items():
            setattr(allocation, name, value)
        allocation.save()
        return allocations_views.AllocationView(req).render(allocation)

    @wsgi.expose(status=204)
    @_writes_since_allocations
    def delete(self, ident):
        get_allocation(ident, policies.DELETE).destroy()
