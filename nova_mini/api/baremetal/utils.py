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

"""What the bare-metal handlers share: version predicates, and the node
(with its policy checks), project scope, page size and fields selector a
request names.

The predicates read the version of the request being served
(``pecan.request.api_version``) and are named after what the version
brought, as Ironic's ``allow_*`` helpers.
"""

from oslo_utils import uuidutils
import pecan

from nova_mini.api.baremetal import node_view
from nova_mini.api.baremetal import versions
from nova_mini.api import pagination
from nova_mini import exception
from nova_mini import objects
from nova_mini.policies import nodes as policies
from nova_mini import states

# Node list filters that came after 1.1, and the version of each.
_FILTER_VERSIONS = {
    'provision_state': versions.PROVISION_STATE_FILTER,
    'driver': versions.DRIVER_FILTER,
    'resource_class': versions.RESOURCE_CLASS,
    'owner': versions.NODE_OWNER,
    'lessee': versions.NODE_LESSEE,
    'fault': versions.FAULT,
    'conductor_group': versions.CONDUCTOR_GROUP,
    'conductor': versions.CONDUCTOR,
    'description_contains': versions.DESCRIPTION,
    'retired': versions.RETIRED,
}


# Port fields that came after 1.1, and the version of each.
PORT_FIELD_VERSIONS = {
    'internal_info': versions.PORT_INTERNAL_INFO,
    'local_link_connection': versions.PORT_LOCAL_LINK,
    'pxe_enabled': versions.PORT_LOCAL_LINK,
    'portgroup_uuid': versions.PORT_PORTGROUP,
    'physical_network': versions.PHYSICAL_NETWORK,
    'is_smartnic': versions.SMART_NIC,
}


def _since(version):
    return pecan.request.api_version >= version


def allow_management_verbs():
    """Return whether ``manage`` and ``provide`` are provision targets."""
    return _since(versions.MANAGEMENT_VERBS)


# Provision targets that came after 1.1, and the version of each.
_TARGET_VERSIONS = {
    states.MANAGE: versions.MANAGEMENT_VERBS,
    states.PROVIDE: versions.MANAGEMENT_VERBS,
    states.ABORT: versions.ABORT_VERB,
    states.RESCUE_TARGET: versions.RESCUE_INTERFACE,
    states.UNRESCUE: versions.RESCUE_INTERFACE,
    # Inspection came with its node times.
    states.INSPECT: versions.INSPECTION_TIMES,
    states.ADOPT: versions.ADOPT_VERB,
    states.CLEAN: versions.MANUAL_CLEAN,
}


def allow_provision_target(target):
    """Return whether ``target`` is a provision target at this version
    (Ironic answers 406 to one of a later version).
    """
    needed = _TARGET_VERSIONS.get(target)
    return needed is None or _since(needed)


def allow_node_names():
    """Return whether nodes have names, and are found by them."""
    return _since(versions.NODE_NAME)


def allow_fields_selector():
    """Return whether node show and list take ``fields=``."""
    return _since(versions.FIELDS_SELECTOR)


def allow_unrestricted_node_names():
    """Return whether a node name may hold any unreserved URL character,
    rather than be a host name.
    """
    return _since(versions.UNRESTRICTED_NODE_NAME)


def allow_enroll_state():
    """Return whether new nodes start in ``enroll`` (else ``available``)."""
    return _since(versions.ENROLL_STATE)


def allow_node_filter(name):
    """Return whether node lists take the filter ``name`` (one of the
    query parameters; those of the first version are always taken).
    """
    needed = _FILTER_VERSIONS.get(name)
    return needed is None or _since(needed)


def allow_node_traits():
    """Return whether nodes have traits: the traits sub-resource, field and
    list filters.
    """
    return _since(versions.NODE_TRAITS)


def allow_detail_query():
    """Return whether ``GET /nodes`` takes ``detail=`` (the detailed list
    without the ``/detail`` path).
    """
    return _since(versions.DETAIL_QUERY)


def allow_node_owner():
    """Return whether nodes have an owner: the field and its filter."""
    return _since(versions.NODE_OWNER)


def allow_node_lessee():
    """Return whether nodes have a lessee: the field and its filter."""
    return _since(versions.NODE_LESSEE)


def allow_unset_chassis():
    """Return whether a patch may remove a node's ``chassis_uuid``."""
    return _since(versions.UNSET_CHASSIS)


def allow_soft_power_off():
    """Return whether soft power off and soft reboot are power targets."""
    return _since(versions.SOFT_POWER_OFF)


def allow_reset_interfaces():
    """Return whether node patches take ``reset_interfaces``."""
    return _since(versions.RESET_INTERFACES)


def allow_port_field(name):
    """Return whether ports have the field ``name`` at this version."""
    needed = PORT_FIELD_VERSIONS.get(name)
    return needed is None or _since(needed)


def not_acceptable():
    """Return the 406 of a request asking what its version does not have.

    :returns: an exception to raise.
    """
    return exception.NotAcceptable(version=str(pecan.request.api_version))


def _load_node(context, ident):
    if uuidutils.is_uuid_like(ident):
        return objects.Node.get_by_uuid(context, ident)
    if allow_node_names():
        return objects.Node.get_by_name(context, ident)
    raise exception.NodeNotFound(node=ident)


def get_node(ident, *rules):
    """Return the node named by ``ident`` (a UUID, or a name from 1.5)
    if the caller may see it and passes ``rules`` on it.

    Seeing a node is ``baremetal:node:get`` on its owner and lessee: a
    node a project may not see is not found, as if it did not exist
    (Ironic's answer to project-scoped callers); a rule refused on a node
    it sees is 403.

    :param ident: the node's UUID or name, as in the URL.
    :param rules: the rules of the action, checked in order on the node.
    :returns: a Node.
    :raises NodeNotFound: no such node (a name before 1.5 finds nothing,
        as in Ironic), or the caller may not see it.
    :raises PolicyNotAuthorized: a rule refused.
    """
    context = pecan.request.ctxt
    node = _load_node(context, ident)
    target = node_view.node_target(context, node)
    if not context.can(policies.GET, target, fatal=False):
        if context.project_id:
            raise exception.NodeNotFound(node=ident)
        raise exception.PolicyNotAuthorized(action=policies.GET)
    for rule in rules:
        context.can(rule, target)
    return node


def list_project(requested=None):
    """Return the project a node list is limited to, Ironic's way.

    Callers passing ``baremetal:node:list_all`` list every node, or those
    of ``requested``; the others (``baremetal:node:list``) only those their
    project owns or leases.

    :param requested: the ``project`` the request asked for, if any.
    :returns: a project ID, or None for every node.
    :raises PolicyNotAuthorized: neither rule passes, or ``requested`` is
        another project and list_all does not pass.
    """
    context = pecan.request.ctxt
    target = node_view.node_target(context, None)
    if context.can(policies.LIST_ALL, target, fatal=False):
        return requested
    if not context.project_id or (requested and
                                  requested != context.project_id):
        raise exception.PolicyNotAuthorized(action=policies.LIST_ALL)
    context.can(policies.LIST, target)
    return context.project_id


def get_limit():
    """Return the page size of a node list: ``limit``, Ironic's way.

    :returns: the limit, at most ``[api] max_limit`` (that if none).
    :raises Invalid: the limit is not positive.
    """
    return pagination.limit(pecan.request, minimum=1,
                            below_minimum='Limit must be positive')


def get_fields(view):
    """Return the fields selected with ``fields=``, or None for all.

    :param view: the request's NodeView, which knows the fields.
    :returns: a list of field names, or None.
    :raises NotAcceptable: ``fields`` before 1.8, or a field of a later
        version.
    :raises Invalid: an unknown field.
    """
    text = pecan.request.GET.get('fields')
    if text is None:
        return None
    if not allow_fields_selector():
        raise not_acceptable()
    fields = [name.strip() for name in text.split(',') if name.strip()]
    view.check_fields(fields)
    return fields
