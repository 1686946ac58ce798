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

"""The quota sets resource: /os-quota-sets/{project_id}, its /detail and
/defaults (nova_mini.objects.compute.quota keeps and counts them).

As Nova: GET shows a project's limits, /detail each with ``in_use``,
``limit`` and ``reserved`` (always 0), /defaults the ``[quota]`` ones;
PUT (an administrator) sets the project's own limits, none below what it
uses unless ``force``, and answers them without ``id``; DELETE (202)
reverts them to the defaults. The Networking service's keys are gone
from 2.36, the injected files' from 2.57.

nova_mini keeps no per-user quotas: ``user_id`` shows the project's,
and a PUT or DELETE with it is a 400. The limits nova_mini fixes
(metadata items, injected files, the Networking service's) cannot be set
to another value.
"""

from oslo_utils import strutils
import pecan
from pecan import rest

from nova_mini.api.compute.schemas import quota_sets as schema
from nova_mini.api.compute import versions
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini.objects.compute import quota
from nova_mini.policies.compute import quota_sets as policies

_query = validation.query([
    (None, schema.query),
    (versions.STRICT_VALIDATION, schema.query_v275),
])


def _hidden(req):
    """The resources the request's microversion no longer shows."""
    if req.since(versions.PERSONALITY_REMOVED):
        return schema.REMOVED_V236 + schema.REMOVED_V257
    if req.since(versions.NETWORK_QUOTAS_REMOVED):
        return schema.REMOVED_V236
    return ()


def _quota_set(req, values, project_id=None):
    hidden = _hidden(req)
    body = {name: values[name] for name in schema.RESOURCES
            if name not in hidden}
    if project_id is not None:
        body['id'] = project_id
    return {'quota_set': body}


def _refuse_user_id(req):
    if req.GET.getall('user_id'):
        raise exception.Invalid('nova_mini keeps no per-user quotas: '
                                'leave user_id out.')


def _get_limits(context, project_id, quota_set):
    """``{resource: int limit}`` of a PUT body, Nova's 400s for a limit
    below what the project uses (unless ``force``) and nova_mini's for a
    limit it fixes.
    """
    force = strutils.bool_from_string(quota_set.pop('force', False))
    values = {name: int(value) for name, value in quota_set.items()}
    for name, limit in values.items():
        fixed = quota.FIXED.get(name)
        if fixed is not None and limit != fixed:
            raise exception.Invalid(
                'The quota of %s is fixed at %d in nova_mini.'
                % (name, fixed))
    usages = quota.get_usages(context, project_id) if not force else {}
    for name, limit in sorted(values.items()):
        minimum = usages.get(name, 0)
        if 0 <= limit < minimum:
            raise exception.Invalid(
                'Quota limit %d for %s must be greater than or equal to '
                'already used and reserved %d.' % (limit, name, minimum))
    return {name: limit for name, limit in values.items()
            if name in quota.SETTABLE}


class ProjectQuotaSetController(rest.RestController):
    """The quota set of one project."""

    _custom_actions = {'detail': ['GET'], 'defaults': ['GET']}

    def __init__(self, project_id):
        self.project_id = project_id

    @wsgi.expose()
    @_query
    def get_all(self):
        req = pecan.request
        req.ctxt.can(policies.SHOW, {'project_id': self.project_id})
        return _quota_set(req, quota.get_limits(req.ctxt, self.project_id),
                          self.project_id)

    @wsgi.expose()
    def get_one(self, _name):
        # Nothing below a project's quota set but /detail and /defaults.
        raise exception.ResourceNotFound()

    @wsgi.expose()
    @_query
    def detail(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.DETAIL, {'project_id': self.project_id})
        limits = quota.get_limits(context, self.project_id)
        usages = quota.get_usages(context, self.project_id)
        return _quota_set(req, {
            name: {'in_use': usages[name], 'limit': limit, 'reserved': 0}
            for name, limit in limits.items()}, self.project_id)

    @wsgi.expose()
    @validation.query([(None, schema.defaults_query)])
    def defaults(self):
        req = pecan.request
        req.ctxt.can(policies.DEFAULTS, {'project_id': self.project_id})
        return _quota_set(req, quota.defaults(), self.project_id)

    @wsgi.expose()
    @validation.body([(None, schema.update),
                      (versions.NETWORK_QUOTAS_REMOVED, schema.update_v236),
                      (versions.PERSONALITY_REMOVED, schema.update_v257)])
    @_query
    def put(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.UPDATE, {'project_id': self.project_id})
        _refuse_user_id(req)
        values = _get_limits(context, self.project_id,
                             dict(req.json['quota_set']))
        if values:
            quota.set_limits(context, self.project_id, values)
        return _quota_set(req, quota.get_limits(context, self.project_id))

    @wsgi.expose(status=202)
    @_query
    def delete(self):
        req = pecan.request
        context = req.ctxt
        context.can(policies.DELETE, {'project_id': self.project_id})
        _refuse_user_id(req)
        quota.delete_limits(context, self.project_id)
        return wsgi.json_response(None, status=202)


class QuotaSetsController(object):
    """``/os-quota-sets``: nothing of its own; a project's below it."""

    @pecan.expose()
    def _lookup(self, project_id, *remainder):
        return ProjectQuotaSetController(project_id), remainder
