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

"""What the volume connectors and volume targets resources share (from
API 1.32): /volume/connectors and /volume/targets, their lists (also a
node's, read only, at /nodes/{node_ident}/volume/...), show, create,
patch and delete, Ironic's way.

A volume resource is its node's: the node rules decide who sees it (one
the caller may not see is not found), and its node must be powered off
for a change (see nova_mini.objects.baremetal.node_volume).
"""

from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal.schemas import nodes as node_schema
from nova_mini.api.baremetal.schemas import volumes as schema
from nova_mini.api.baremetal import versions
from nova_mini.api import microversion
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.policies.baremetal import volumes as policies

since_volume = microversion.versioned(min_version=versions.VOLUME)


def _target(context, item):
    return lookup.project_target(context, item.node_owner, item.node_lessee)


def _bool(text):
    return text.lower() in ('1', 't', 'true', 'on', 'y', 'yes')


class VolumeResourcesController(rest.RestController):
    """One kind of volume resource. Subclasses set:

    ``VIEW`` (a VolumeView class), ``OBJECT`` and ``LIST`` (the object
    class names), ``SORT_KEYS``, ``NOT_FOUND`` (its exception and its
    keyword), ``CHECK_PATCHED`` (checks a patched resource),
    ``PATCHABLE`` (the fields a patch may change) and ``DICTS`` (its
    dict fields); and ``post`` (exposed, with its body schema) calls
    ``_post``.

    :param node_ident: the node of /nodes/{node_ident}/volume/..., whose
        resources are listed; None at /volume/...
    """

    VIEW = None
    OBJECT = None
    LIST = None
    SORT_KEYS = ()
    NOT_FOUND = (None, None)
    CHECK_PATCHED = None
    PATCHABLE = ()
    DICTS = ('extra',)

    def __init__(self, node_ident=None):
        self.node_ident = node_ident

    def _view(self, req):
        return self.VIEW(req)

    def _masked(self, req, item):
        """``{field: function(stored value) -> shown value}`` of the
        fields the view masks or redacts (see json_patch.apply_to); none
        here.
        """
        return {}

    def _shown(self, item):
        """``item`` as the caller may see it (see VolumeTargets)."""
        return item

    def _not_found(self, ident):
        cls, keyword = self.NOT_FOUND
        return cls(**{keyword: ident})

    def _no_node_path(self):
        if self.node_ident is not None:
            raise exception.Invalid(
                'Malformed request URI: a node\'s volume resources are only '
                'listed here; use /v1/volume/%s instead.'
                % self.VIEW.COLLECTION)

    def _get(self, ident, *rules):
        """The resource of uuid ``ident`` if the caller may see it (else
        not found), after checking ``rules`` on it.
        """
        context = pecan.request.ctxt
        if not uuidutils.is_uuid_like(ident):
            raise exception.Invalid(
                'Expected a UUID for the volume %s, but received %s.'
                % (self.VIEW.COLLECTION[:-1], ident))
        item = getattr(objects, self.OBJECT).get_by_uuid(context, ident)
        lookup.authorize(context, _target(context, item), policies.GET,
                         self._not_found(ident), rules)
        return item

    def _list_params(self, req, view):
        detail = req.GET.get('detail')
        detail = detail is not None and _bool(detail)
        fields = lookup.get_fields(view)
        if detail and fields:
            raise exception.Invalid('The fields parameter cannot be used '
                                    'with detail=True: choose one.')
        sort_key = req.GET.get('sort_key', 'id')
        if sort_key not in self.SORT_KEYS:
            raise exception.Invalid(
                'The sort_key value %s is an invalid field for sorting; '
                'valid ones are: %s.' % (sort_key, ', '.join(self.SORT_KEYS)))
        return (fields, detail, pagination.ironic_limit(req), req.GET.get('marker'),
                sort_key, req.GET.get('sort_dir', 'asc'))

    def _list(self, req):
        context = req.ctxt
        view = self._view(req)
        fields, detail, limit, marker, sort_key, sort_dir = \
            self._list_params(req, view)
        node = None
        if self.node_ident is not None:
            node = lookup.get_node(self.node_ident)
        elif req.GET.get('node') is not None:
            node = lookup.get_node(req.GET['node'])
        filters = {'node_id': node.id if node is not None else None}
        if not context.can(policies.LIST_ALL,
                           {'project_id': context.project_id}, fatal=False):
            context.can(policies.LIST, {'project_id': context.project_id})
            filters['project'] = context.project_id
        items = getattr(objects, self.LIST).get_all(
            context, filters=filters, sort_key=sort_key, sort_dir=sort_dir,
            limit=limit, marker=marker)
        query = [(name, req.GET[name]) for name in req.GET
                 if name not in ('limit', 'marker', 'fields')]
        path = 'volume/%s' % view.COLLECTION
        if self.node_ident is not None:
            path = 'nodes/%s/%s' % (self.node_ident, path)
        return view.collection([self._shown(item) for item in items.objects],
                               limit, path, fields=fields, detail=detail,
                               query=query)

    @wsgi.expose()
    @since_volume
    @validation.query(schema.list_query)
    def get_all(self):
        return self._list(pecan.request)

    @wsgi.expose()
    @since_volume
    @validation.query(node_schema.show_query)
    def get_one(self, ident):
        self._no_node_path()
        view = self._view(pecan.request)
        return view.render(self._shown(self._get(ident)),
                           lookup.get_fields(view))

    def _node_for_create(self, req, node_uuid):
        """The node a new resource is for; the create rule is checked on
        it (on no project if it does not exist, as Ironic).
        """
        try:
            node = objects.Node.get_by_uuid(req.ctxt, node_uuid)
        except exception_baremetal.NodeNotFound:
            node = None
        target = lookup.project_target(
            req.ctxt, node and node.owner, node and node.lessee)
        req.ctxt.can(policies.CREATE, target)
        if node is None:
            raise exception.Invalid(
                'Invalid value %s for node_uuid: no such node; give the '
                'UUID of an existing node.' % node_uuid)
        return node

    def _post(self):
        """Create the resource of the request's body (its schema checked
        by the subclass's ``post``).
        """
        req = pecan.request
        self._no_node_path()
        body = {name: value for name, value in req.json.items()
                if value is not None}
        node = self._node_for_create(req, body.pop('node_uuid'))
        item = getattr(objects, self.OBJECT)(req.ctxt, node_id=node.id,
                                             **body)
        item.create()
        view = self._view(req)
        response = wsgi.json_response(view.render(self._shown(item)),
                                      status=201)
        response.location = view.link(
            'volume/%s/%s' % (view.COLLECTION, item.uuid))
        return response

    def _new_node(self, req, item, node_uuid):
        """The node a patch moves ``item`` to: one the caller sees, of
        the same owner (as Ironic); else 400, saying no more.
        """
        refusal = exception.Invalid(
            'Unable to apply the requested node_uuid %s: give the UUID of '
            'a node you may see, with the same owner.' % node_uuid)
        if not uuidutils.is_uuid_like(node_uuid):
            raise exception.Invalid('Expected a UUID for node_uuid, but '
                                    'received %s.' % node_uuid)
        try:
            node = lookup.get_node(node_uuid)
        except (exception_baremetal.NodeNotFound, exception.Forbidden):
            raise refusal
        if node.owner != item.node_owner:
            raise refusal
        return node

    @wsgi.expose()
    @since_volume
    @validation.body(node_schema.patch)
    def patch(self, ident):
        req = pecan.request
        self._no_node_path()
        json_patch.check_fields(
            req.json, self.PATCHABLE,
            'Cannot patch %(path)s. Only the following can be updated: '
            '%(patchable)s.')
        item = self._get(ident, policies.UPDATE)
        document = {name: getattr(item, name) for name in self.PATCHABLE}
        patched = json_patch.apply_to(
            document, req.json, empty=dict.fromkeys(self.DICTS, {}),
            masked=self._masked(req, item))
        if patched.get('node_uuid') is None:
            raise exception.Invalid('A volume resource must keep its '
                                    'node_uuid: replace it, do not remove '
                                    'it.')
        self.CHECK_PATCHED(patched)
        changed = json_patch.changes(document, patched)
        if 'node_uuid' in changed:
            node = self._new_node(req, item, changed.pop('node_uuid'))
            changed['node_id'] = node.id
        for name, value in changed.items():
            setattr(item, name, value)
        item.save()
        return self._view(req).render(self._shown(item))

    @wsgi.expose(status=204)
    @since_volume
    def delete(self, ident):
        self._no_node_path()
        self._get(ident, policies.DELETE).destroy()
