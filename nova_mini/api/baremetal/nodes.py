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

"""The nodes resource: /nodes, /nodes/detail, /nodes/{node_ident} and
its validate action; traits and states live in their own modules.
"""

from oslo_utils import strutils
from oslo_utils import uuidutils
import pecan
from pecan import rest

from nova_mini.api.baremetal import allocations
from nova_mini.api.baremetal import conductor_rpc
from nova_mini.api.baremetal import json_patch
from nova_mini.api.baremetal import lookup
from nova_mini.api.baremetal import node_bios
from nova_mini.api.baremetal import node_management
from nova_mini.api.baremetal import node_patch
from nova_mini.api.baremetal import node_query
from nova_mini.api.baremetal import node_states
from nova_mini.api.baremetal import node_traits
from nova_mini.api.baremetal import node_vifs
from nova_mini.api.baremetal import portgroups
from nova_mini.api.baremetal import ports
from nova_mini.api.baremetal.schemas import nodes as schema
from nova_mini.api.baremetal import vendor_passthru
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api.baremetal import volume
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import node as node_obj
from nova_mini.objects.baremetal import node_deploy
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.objects.baremetal import node_provision
from nova_mini.policies.baremetal import nodes as policies
from nova_mini import states

_SUB_RESOURCES = {
    'traits': node_traits.NodeTraitsController,
    'states': node_states.NodeStatesController,
    'management': node_management.NodeManagementController,
    'ports': ports.NodePortsController,
    'portgroups': portgroups.NodePortgroupsController,
    'allocation': allocations.NodeAllocationController,
    'volume': volume.VolumeController,
    'bios': node_bios.NodeBiosController,
    'vifs': node_vifs.NodeVIFsController,
    'vendor_passthru': vendor_passthru.NodeVendorPassthruController,
}
# Fields whose every mention before their version is refused (406).
_VERSIONED_FIELDS = tuple(name for name in node_patch.PATCHABLE
                          if name in node_views.FIELD_VERSIONS)

# What a patch must leave: from 1.10, and before (host names).
_check_patched = validation.value_checker(schema.patched, 'node')
_check_patched_hostname = validation.value_checker(schema.patched_hostname,
                                                   'node')


def _check_name(name):
    if name is None:
        return
    req = pecan.request
    if not req.since(versions.NODE_NAME):
        raise versions.not_acceptable(req)
    if uuidutils.is_uuid_like(name):
        raise exception.Invalid('Cannot use a UUID as the node name %s.'
                                % name)
    if name in schema.RESERVED_NAMES:
        raise exception.Invalid(
            'The word "%s" is reserved and can not be used as a node name. '
            'Reserved words are: %s.' % (name,
                                         ', '.join(schema.RESERVED_NAMES)))


def _check_versioned_values(req, values):
    view = node_views.NodeView(req)
    for name in _VERSIONED_FIELDS:
        if values.get(name) is not None and not view.allowed(name):
            raise versions.not_acceptable(req)
    _check_name(values.get('name'))


def _chassis_id(chassis_uuid):
    """The id of the chassis named by a node body (None: none)."""
    if chassis_uuid is None:
        return None
    try:
        return objects.Chassis.get_by_uuid(pecan.request.ctxt,
                                           chassis_uuid).id
    except exception_baremetal.ChassisNotFound as exc:
        # Ironic's answer: the body is wrong (400), not the URL.
        raise exception.Invalid(exc.format_message())


def _reset_interfaces(req):
    """The ``reset_interfaces`` query parameter of a patch (1.45)."""
    value = req.GET.get('reset_interfaces')
    if value is None:
        return None
    if not req.since(versions.RESET_INTERFACES):
        raise versions.not_acceptable(req)
    try:
        return strutils.bool_from_string(value, strict=True)
    except ValueError as exc:
        raise exception.Invalid(str(exc))


def _patch_interfaces(node, patched, changed, reset, registered=None):
    """Check the driver and interfaces a patch leaves against what the
    alive conductors of the driver registered (``registered``, read if
    None), and add the defaults of the interfaces it unset to
    ``changed``.
    """
    if 'driver' not in changed and reset:
        raise exception.Invalid('The reset_interfaces parameter can only '
                                'be used when changing the node\'s driver.')
    if 'driver' in changed:
        node_interfaces.check_driver(changed['driver'])
    elif not any(name in changed for name in node_interfaces.FIELDS):
        return
    if registered is None:
        registered = conductor_rpc.check_conductor(
            pecan.request.ctxt, patched['driver'],
            patched.get('conductor_group'), node.uuid)
    wanted = {name: (None if reset else patched.get(name))
              for name in node_interfaces.FIELDS}
    for name, impl in node_interfaces.resolve_registered(
            registered, wanted, node=node.uuid).items():
        if impl != getattr(node, name):
            changed[name] = impl
        else:
            changed.pop(name, None)


# The provision states in which a node's interfaces may change outside
# maintenance (Ironic's conductor: not while it is deployed or busy; its
# inspection states too, which nova_mini's nodes never reach).
_INTERFACE_UPDATE_STATES = (states.ENROLL, states.MANAGEABLE,
                            states.AVAILABLE)


def _check_interface_change(node, patched, changed):
    """Refuse a change of interfaces in a state that does not allow it."""
    if patched.get('maintenance') or \
            node.provision_state in _INTERFACE_UPDATE_STATES:
        return
    for name in node_interfaces.FIELDS:
        if name in changed:
            raise exception_baremetal.InvalidState(
                reason='Node %s cannot have its %s changed in provision '
                       'state "%s": put it in maintenance first, or change '
                       'it in one of the states %s.' % (
                           node.uuid, name, node.provision_state,
                           ', '.join(_INTERFACE_UPDATE_STATES)))


def _check_flags(node, changed):
    """Ironic's rules of protected and retired, on the patched node."""
    for flag, allowed in (('protected',
                           lambda s: s in (states.ACTIVE, states.RESCUE)),
                          ('retired', lambda s: s != states.AVAILABLE)):
        reason = flag + '_reason'
        if changed.get(flag) is False:
            changed[reason] = None
        elif changed.get(flag) and not allowed(node.provision_state):
            raise exception_baremetal.InvalidState(
                reason='Node %s cannot be made %s in provision state "%s".'
                       % (node.uuid, flag, node.provision_state))
        if changed.get(reason) and \
                not changed.get(flag, getattr(node, flag)):
            raise exception.Invalid('The %s field can only be set when %s '
                                    'is True.' % (reason, flag))


class NodesController(rest.RestController):
    """/nodes, /nodes/detail, /nodes/{node_ident} and its validate action;
    the sub-resources through ``_lookup``.
    """

    _custom_actions = {'detail': ['GET'], 'validate': ['GET']}

    def _list(self, detail):
        req = pecan.request
        asked = node_query.query_bool(req, 'detail')
        if asked is not None:
            if not req.since(versions.DETAIL_QUERY):
                raise versions.not_acceptable(req)
            if detail:
                raise exception.Invalid('The detail parameter cannot be '
                                        'used with /nodes/detail.')
            detail = asked
        project = lookup.list_project(req.GET.get('project'))
        view = node_views.NodeView(req)
        fields = lookup.get_fields(view)
        if detail and fields:
            raise exception.Invalid('The fields parameter cannot be used '
                                    'with /nodes/detail.')
        sort_key = req.GET.get('sort_key', 'id')
        sort_dir = req.GET.get('sort_dir', 'asc')
        if sort_key not in node_obj.SORT_KEYS:
            raise exception.Invalid(
                'The sort_key value %s is an invalid field for sorting'
                % sort_key)
        view.check_fields([sort_key] if sort_key in node_views.FIELDS
                          else [])
        limit = pagination.ironic_limit(req)
        filters = node_query.filters(req)
        filters['project'] = project
        nodes = objects.NodeList.get_all(
            req.ctxt, filters=filters, sort_key=sort_key,
            sort_dir=sort_dir, limit=limit, marker=req.GET.get('marker'),
            with_traits=view.wants_traits(fields, detail))
        # The next link repeats the filters, as Ironic's does.
        query = [(name, req.GET[name]) for name in req.GET
                 if name not in ('limit', 'marker', 'fields')]
        return view.collection(nodes.objects, limit,
                               'nodes/detail' if detail and asked is None
                               else 'nodes',
                               fields=fields, detail=detail, query=query)

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
    def get_one(self, node_ident):
        req = pecan.request
        node = lookup.get_node(node_ident)
        view = node_views.NodeView(req)
        return view.render(node, lookup.get_fields(view))

    @wsgi.expose(status=201)
    @validation.body([(None, schema.create_hostname),
                      (versions.UNRESTRICTED_NODE_NAME, schema.create)])
    def post(self):
        req = pecan.request
        req.ctxt.can(policies.CREATE)
        body = dict(req.json)
        _check_versioned_values(req, body)
        node_interfaces.check_driver(body['driver'])
        if not body.get('uuid'):
            # As Ironic's API: the node has its uuid before its interfaces
            # are checked (their messages name it).
            body['uuid'] = uuidutils.generate_uuid()
        # As Ironic's: the conductor first (no alive one of the driver:
        # 400), then the interfaces, against what the conductors of the
        # driver registered (the defaults theirs).
        registered = conductor_rpc.check_conductor(
            req.ctxt, body['driver'], body.get('conductor_group'),
            body['uuid'])
        body.update(node_interfaces.resolve_registered(
            registered, body, node=body['uuid']))
        body['chassis_id'] = _chassis_id(body.pop('chassis_uuid', None))
        node = objects.Node(req.ctxt, **body)
        node.maintenance = False
        node.provision_state = (states.ENROLL if req.since(versions.ENROLL_STATE)
                                else states.AVAILABLE)
        node.create()
        view = node_views.NodeView(req)
        response = wsgi.json_response(view.render(node), status=201)
        response.location = view.link('nodes/%s' % node.uuid)
        return response

    @wsgi.expose()
    @validation.body(schema.patch)
    def patch(self, node_ident):
        req = pecan.request
        view = node_views.NodeView(req)
        rules = []
        for operation in req.json:
            field = json_patch.field_of(operation)
            if field == 'traits':
                raise exception.Invalid('Node traits cannot be changed by '
                                        'a patch: use /nodes/%s/traits.'
                                        % node_ident)
            if field not in node_patch.PATCHABLE:
                raise exception.Invalid("'/%s' is an internal attribute and "
                                        "can not be updated" % field)
            if field in _VERSIONED_FIELDS and not view.allowed(field):
                raise versions.not_acceptable(req)
            if field == 'chassis_uuid' and operation['op'] == 'remove' and \
                    not req.since(versions.UNSET_CHASSIS):
                raise versions.not_acceptable(req)
            rule = node_patch.operation_rule(field, operation)
            if rule not in rules:
                rules.append(rule)
        reset = _reset_interfaces(req)
        node = lookup.get_node(node_ident, *rules)
        # The stored node, not the view of it (masked, redacted).
        document = node_patch.stored_document(
            node, view.value(node, 'chassis_uuid'))
        patched = json_patch.apply_to(
            document, req.json, removed=node_patch.REMOVED,
            empty=node_patch.EMPTY, masked=node_patch.MASKED)
        if req.since(versions.UNRESTRICTED_NODE_NAME):
            _check_patched(patched)
        else:
            _check_patched_hostname(patched)
        changed = json_patch.changes(document, patched)
        _check_versioned_values(req, changed)
        _check_interface_change(node, patched, changed)
        registered = None
        if 'driver' in changed or 'conductor_group' in changed:
            # As Ironic's API, the hash ring first (no conductor: 400),
            # then the interfaces (its conductor's check).
            registered = conductor_rpc.check_conductor(
                req.ctxt, patched['driver'], patched.get('conductor_group'),
                node.uuid)
        _patch_interfaces(node, patched, changed, reset, registered)
        conductor_rpc.check_unreserved(node)
        if 'chassis_uuid' in changed:
            changed['chassis_id'] = _chassis_id(changed.pop('chassis_uuid'))
        _check_flags(node, changed)
        if 'instance_uuid' in changed and node.instance_uuid and \
                patched.get('instance_uuid'):
            raise exception_baremetal.NodeAssociated(node=node.uuid,
                                                     instance_uuid=node.instance_uuid)
        if 'owner' in changed and \
                node.provision_state == states.ACTIVE and \
                not req.ctxt.can(policies.UPDATE_OWNER_PROVISIONED,
                                 lookup.node_target(req.ctxt, node),
                                 fatal=False):
            raise exception_baremetal.InvalidState(
                reason='Cannot update owner of node %s while it is in '
                       'state "%s".' % (node.uuid, node.provision_state))
        if changed.get('maintenance') is False:
            changed['maintenance_reason'] = None
        for name, value in changed.items():
            setattr(node, name, value)
        node.save()
        return node_views.NodeView(req).render(node)

    @wsgi.expose(status=204)
    def delete(self, node_ident):
        node = lookup.get_node(node_ident, policies.DELETE)
        conductor_rpc.check_unreserved(node)
        if node.protected:
            raise exception_baremetal.NodeProtected(node=node.uuid)
        if node.instance_uuid:
            raise exception_baremetal.NodeAssociated(node=node.uuid,
                                                     instance_uuid=node.instance_uuid)
        if node.provision_state not in states.DELETE_ALLOWED and \
                not node.maintenance:
            raise exception_baremetal.InvalidState(
                reason='Can not delete node %s while it is in provision '
                       'state "%s". Valid provision states to start '
                       'deletion are: %s.' % (
                           node.uuid, node.provision_state,
                           ', '.join(states.DELETE_ALLOWED)))
        node.destroy()

    @wsgi.expose()
    def validate(self, node_ident):
        node = lookup.get_node(node_ident, policies.VALIDATE)
        result = {}
        driven = conductor_rpc.conductor_driven(node)
        if driven:
            # The conductor validates what talks to the BMC (from the
            # node's driver_info and instance_info, as Ironic's).
            result.update(conductor_rpc.call('validate_driver_interfaces',
                                             node))
        for name in node_interfaces.TYPES:
            if name == 'vendor' or name in result:
                continue
            if node_interfaces.implemented(node, name):
                # Ironic's conductor gives no reason for a success.
                result[name] = ({'result': True} if driven
                                else {'result': True, 'reason': None})
            else:
                result[name] = {
                    'result': False,
                    'reason': exception_baremetal.UnsupportedDriverExtension(
                        driver=node.driver,
                        extension=name).format_message()}
        if result['deploy']['result'] is False:
            return result
        try:
            missing = node_provision.missing_traits(
                node.instance_info, node.traits.get_trait_names())
        except exception.Invalid as exc:
            result['deploy'] = {'result': False,
                                'reason': exc.format_message()}
        else:
            if missing:
                result['deploy'] = {
                    'result': False,
                    'reason': exception_baremetal.MissingNodeTraits(
                        node=node.uuid,
                        missing=', '.join(missing)).format_message()}
            else:
                reason = node_deploy.validation_error(
                    pecan.request.ctxt, node,
                    node_provision.required_traits(node.instance_info))
                if reason is not None:
                    result['deploy'] = {'result': False, 'reason': reason}
        return result

    @pecan.expose()
    def _lookup(self, node_ident, *remainder):
        # Ironic also answers /nodes/states/console/{node} (its console
        # controller is reached with the node after it), which
        # ironic-tempest-plugin's client uses.
        if node_ident == 'states' and len(remainder) == 2 and \
                remainder[0] == 'console':
            return node_states.NodeConsoleController(remainder[1]), ()
        if remainder and remainder[0] in _SUB_RESOURCES:
            return _SUB_RESOURCES[remainder[0]](node_ident), remainder[1:]
        return None
