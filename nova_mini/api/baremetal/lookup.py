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

"""What a bare-metal request names, found and checked: the policy target
of a node and of what belongs to one (ports, port groups, volume
resources), the one visibility check of them all, the node, the project
a node list is limited to, and the fields selected with ``fields=``.

The page size is ``nova_mini.api.pagination.ironic_limit``; version
checks are ``req.since(versions.X)`` (``nova_mini.api.microversion``).
"""

from oslo_utils import uuidutils
import pecan

from nova_mini.api.baremetal import versions
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.policies.baremetal import nodes as policies


def project_target(context, owner=None, lessee=None):
    """Return the policy target of a node's projects for ``context``: a
    node's, or a port's, port group's or volume resource's (its node's).

    :param context: the caller's RequestContext.
    :param owner: the node's owner, if any.
    :param lessee: the node's lessee, if any.
    :returns: a dict: the caller's ``project_id`` and ``user_id``, and
        ``node.owner`` and ``node.lessee`` where the node has them (absent,
        no project matches them).
    """
    target = {'project_id': context.project_id, 'user_id': context.user_id}
    if owner:
        target['node.owner'] = owner
    if lessee:
        target['node.lessee'] = lessee
    return target


def node_target(context, node):
    """Return the policy target of ``node`` (None: the caller's own
    project only) for ``context`` (see project_target).
    """
    if node is None:
        return project_target(context)
    return project_target(context, node.owner, node.lessee)


def authorize(context, target, get_rule, not_found, rules=()):
    """Check that the caller may see a resource, then ``rules`` on it.

    Seeing it is ``get_rule`` on ``target``: a resource a project may not
    see is not found, as if it did not exist (Ironic's answer to
    project-scoped callers); a rule refused on one it sees is 403.

    :param context: the caller's RequestContext.
    :param target: the resource's policy target (project_target).
    :param get_rule: the rule of seeing it (``baremetal:<kind>:get``).
    :param not_found: the exception raised when a project may not see it.
    :param rules: the rules of the action, checked in order.
    :raises PolicyNotAuthorized: a rule refused, or ``get_rule`` refused
        to a caller of no project.
    """
    if not context.can(get_rule, target, fatal=False):
        if context.project_id:
            raise not_found
        raise exception.PolicyNotAuthorized(action=get_rule)
    for rule in rules:
        context.can(rule, target)


def _load_node(context, ident):
    if uuidutils.is_uuid_like(ident):
        return objects.Node.get_by_uuid(context, ident)
    if pecan.request.since(versions.NODE_NAME):
        return objects.Node.get_by_name(context, ident)
    raise exception_baremetal.NodeNotFound(node=ident)


def get_node(ident, *rules):
    """Return the node named by ``ident`` (a UUID, or a name from 1.5)
    if the caller may see it (``baremetal:node:get``) and passes ``rules``
    on it (see authorize).

    :param ident: the node's UUID or name, as in the URL.
    :param rules: the rules of the action, checked in order on the node.
    :returns: a Node.
    :raises NodeNotFound: no such node (a name before 1.5 finds nothing,
        as in Ironic), or the caller may not see it.
    :raises PolicyNotAuthorized: a rule refused.
    """
    context = pecan.request.ctxt
    node = _load_node(context, ident)
    authorize(context, node_target(context, node), policies.GET,
              exception_baremetal.NodeNotFound(node=ident), rules)
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
    target = node_target(context, None)
    if context.can(policies.LIST_ALL, target, fatal=False):
        return requested
    if not context.project_id or (requested and
                                  requested != context.project_id):
        raise exception.PolicyNotAuthorized(action=policies.LIST_ALL)
    context.can(policies.LIST, target)
    return context.project_id


def get_fields(view):
    """Return the fields selected with ``fields=``, or None for all.

    :param view: the request's view, which knows the fields
        (``check_fields``).
    :returns: a list of field names, or None.
    :raises NotAcceptable: ``fields`` before 1.8, or a field of a later
        version.
    :raises Invalid: an unknown field.
    """
    req = pecan.request
    text = req.GET.get('fields')
    if text is None:
        return None
    if not req.since(versions.FIELDS_SELECTOR):
        raise versions.not_acceptable(req)
    fields = [name.strip() for name in text.split(',') if name.strip()]
    view.check_fields(fields)
    return fields
