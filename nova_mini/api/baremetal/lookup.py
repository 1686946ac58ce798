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

"""What a bare-metal request names, found and checked: the node (with
its policy checks), the project a node list is limited to, and the
fields selected with ``fields=``.

The page size is ``nova_mini.api.pagination.ironic_limit``; version
checks are ``req.since(versions.X)`` (``nova_mini.api.microversion``).
"""

from oslo_utils import uuidutils
import pecan

from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini import exception
from nova_mini import objects
from nova_mini.policies import nodes as policies


def _load_node(context, ident):
    if uuidutils.is_uuid_like(ident):
        return objects.Node.get_by_uuid(context, ident)
    if pecan.request.since(versions.NODE_NAME):
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
    target = node_views.node_target(context, node)
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
    target = node_views.node_target(context, None)
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
