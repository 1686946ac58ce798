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

"""The server groups resource: /os-server-groups, /os-server-groups/{id}.

A group's body depends on the microversion as in Nova: ``policies`` (a
list of one) and an empty ``metadata`` before 2.64, ``policy`` and
``rules`` from 2.64; ``project_id`` and ``user_id`` from 2.13. Servers
join a group with the ``group`` scheduler hint of their create
(servers.py); the scheduler's group filters read the policy
(nova_mini/scheduler/filters/affinity.py).
"""

import pecan
from pecan import rest

from nova_mini.api.compute.schemas import parameter_types
from nova_mini.api.compute.schemas import server_groups as schema
from nova_mini.api.compute import versions
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import conf
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import server_group as server_group_obj
from nova_mini.policies.compute import server_groups as policies

CONF = conf.CONF


def _body(req, group):
    """The group as the request's microversion shows it."""
    body = {'id': group.uuid, 'name': group.name}
    if req.since(versions.SERVER_GROUP_POLICY_RULES):
        body['policy'] = group.policy
        body['rules'] = dict(group.rules)
    else:
        body['policies'] = [group.policy]
        body['metadata'] = {}
    body['members'] = list(group.members)
    if req.since(versions.SERVER_GROUP_PROJECT_USER):
        body['project_id'] = group.project_id
        body['user_id'] = group.user_id
    return body


def _last_int(req, name, default):
    values = req.GET.getall(name)
    return int(values[-1]) if values else default


class ServerGroupsController(rest.RestController):

    @wsgi.expose()
    @validation.query([(None, schema.index_query),
                       (versions.STRICT_VALIDATION,
                        schema.index_query_v275)])
    def get_all(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.INDEX, {'project_id': context.project_id})
        project_id = context.project_id
        # As Nova: all_projects (any value) counts for administrators
        # only; others get their own project's groups.
        if 'all_projects' in req.GET and context.is_admin:
            context.can(policies.INDEX_ALL_PROJECTS,
                        {'project_id': context.project_id})
            project_id = None
        # As Nova: no limit, or 0, is [api] max_limit.
        limit = pagination.limit(req) or CONF.api.max_limit
        # An offset past any list gives an empty page, as in Nova; the
        # database takes a bounded one.
        offset = min(_last_int(req, 'offset', 0), parameter_types.MAX_INT)
        groups = objects.ServerGroupList.get_page(
            context, project_id, limit=limit, offset=offset)
        return {'server_groups': [_body(req, group) for group in groups]}

    @wsgi.expose()
    def get_one(self, group_id):
        req = pecan.request
        group = objects.ServerGroup.get_by_uuid(req.ctxt, group_id)
        req.ctxt.can(policies.SHOW, {'project_id': group.project_id})
        return {'server_group': _body(req, group)}

    @wsgi.expose()
    @validation.body([(None, schema.create),
                      (versions.SOFT_AFFINITY_POLICIES, schema.create_v215),
                      (versions.SERVER_GROUP_POLICY_RULES,
                       schema.create_v264)])
    def post(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.CREATE, {'project_id': context.project_id})
        body = req.json['server_group']
        if req.since(versions.SERVER_GROUP_POLICY_RULES):
            policy = body['policy']
            rules = {name: int(value)
                     for name, value in (body.get('rules') or {}).items()}
            if rules and policy != server_group_obj.ANTI_AFFINITY:
                raise exception.Invalid(
                    'Only anti-affinity policy supports rules.')
        else:
            policy = body['policies'][0]
            rules = {}
        group = objects.ServerGroup(
            context, name=body['name'], policy=policy, rules=rules,
            project_id=context.project_id, user_id=context.user_id)
        group.create()
        return {'server_group': _body(req, group)}

    @wsgi.expose(status=204)
    def delete(self, group_id):
        context = pecan.request.ctxt
        group = objects.ServerGroup.get_by_uuid(context, group_id)
        context.can(policies.DELETE, {'project_id': group.project_id})
        group.destroy()
