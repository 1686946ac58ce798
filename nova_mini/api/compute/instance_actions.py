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

"""A server's actions: /servers/{server_id}/os-instance-actions[/{id}].

As Nova 34, by microversion: the actions of a deleted server are listed
from 2.21 (404 before); events are shown to administrators, and from
2.51 to everyone (without their traceback); 2.58 adds ``updated_at``,
paging (``limit``, ``marker`` a request id, a ``links`` next link) and
``changes-since``; 2.62 the events' ``hostId`` (and ``host`` for
administrators); 2.66 ``changes-before``; 2.84 the events' ``details``
for administrators. The actions are recorded by the servers API and its
actions (nova_mini.objects.compute.instance_action).
"""

import hashlib

from oslo_utils import timeutils
import pecan
from pecan import rest

from nova_mini.api.compute.schemas import instance_actions as schema
from nova_mini.api.compute import server_common
from nova_mini.api.compute import versions
from nova_mini.api import pagination
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance_action
from nova_mini.policies.compute import instance_actions as policies

_KEYS = ('action', 'instance_uuid', 'request_id', 'user_id', 'project_id',
         'start_time', 'message')
_EVENT_KEYS = ('event', 'start_time', 'finish_time', 'result')


def _stamp(value):
    return value.strftime('%Y-%m-%dT%H:%M:%S.%f') if value else None


def _parse_time(name, value):
    try:
        return timeutils.normalize_time(timeutils.parse_isotime(value))
    except ValueError:
        raise exception.ValidationError(
            detail="Invalid input for query parameters %s. Value: %s. "
                   "'%s' is not a 'date-time'" % (name, value, value))


def _host_id(host, project_id):
    # Nova's hostId: the project and the host hashed together.
    if not host:
        return ''
    return hashlib.sha224(
        ((project_id or '') + host).encode('utf-8')).hexdigest()


def _action(req, action):
    body = {key: action[key] for key in _KEYS}
    body['start_time'] = _stamp(action['start_time'])
    if req.since(versions.INSTANCE_ACTIONS_PAGING):
        body['updated_at'] = _stamp(action['updated_at'])
    return body


class InstanceActionsController(rest.RestController):

    def __init__(self, server_id):
        self.server_id = server_id

    def _get_target(self, rule):
        """The server's project and user, if the caller may ``rule`` its
        actions; a deleted server's from its actions from 2.21.
        """
        req = pecan.request
        context = req.ctxt
        try:
            instance = objects.Instance.get_by_uuid(context, self.server_id)
            owner = (instance.project_id, instance.user_id)
        except exception.InstanceNotFound:
            owner = None
            if req.since(versions.INSTANCE_ACTIONS_OF_DELETED):
                owner = instance_action.project_of(context, self.server_id)
            if owner is None:
                raise
        return server_common.authorize(context, self.server_id, owner[0],
                                       owner[1], rule)

    @wsgi.expose()
    @validation.query([
        (None, schema.index_query),
        (versions.INSTANCE_ACTIONS_PAGING, schema.index_query_v258),
        (versions.SERVER_CHANGES_BEFORE_FILTER, schema.index_query_v266),
    ])
    def get_all(self):
        req = pecan.request
        self._get_target(policies.LIST)
        paged = req.since(versions.INSTANCE_ACTIONS_PAGING)
        limit = marker = since = before = None
        if paged:
            limit = pagination.limit(req)
            marker = req.GET.get('marker')
            if 'changes-since' in req.GET:
                since = _parse_time('changes-since', req.GET['changes-since'])
            if 'changes-before' in req.GET:
                before = _parse_time('changes-before', req.GET['changes-before'])
                if since is not None and before < since:
                    raise exception.Invalid(
                        'The value of changes-since must be less than or '
                        'equal to changes-before.')
        actions = instance_action.list_actions(
            req.ctxt, self.server_id, limit=limit, marker=marker,
            changes_since=since, changes_before=before)
        body = {'instanceActions': [_action(req, a) for a in actions]}
        if paged and actions and len(actions) == limit:
            body['links'] = pagination.nova_next(
                req, 'servers/%s/os-instance-actions' % self.server_id,
                actions[-1]['request_id'])
        return body

    @wsgi.expose()
    def get_one(self, request_id):
        req = pecan.request
        context = req.ctxt
        target = self._get_target(policies.SHOW)
        try:
            action = instance_action.get_action(context, self.server_id,
                                                request_id)
        except exception.InstanceActionNotFound:
            # Nova's words.
            raise exception.NotFound('Action %s not found' % request_id)
        body = _action(req, action)
        admin_events = context.can(policies.EVENTS, target, fatal=False)
        if not (admin_events or
                req.since(versions.INSTANCE_ACTION_EVENTS_FOR_ALL)):
            return {'instanceAction': body}
        details = (req.since(versions.INSTANCE_ACTION_EVENT_DETAILS)
                   and context.can(policies.EVENTS_DETAILS, target,
                                   fatal=False))
        host_shown = req.since(versions.INSTANCE_ACTION_EVENT_HOST)
        events = []
        for event in action['events']:
            shown = {key: event[key] for key in _EVENT_KEYS}
            shown['start_time'] = _stamp(event['start_time'])
            shown['finish_time'] = _stamp(event['finish_time'])
            if admin_events:
                shown['traceback'] = event['traceback']
                if host_shown:
                    shown['host'] = event['host']
            if host_shown:
                shown['hostId'] = _host_id(
                    event['host'], action['project_id'] or
                    target['project_id'])
            if details:
                shown['details'] = event['details']
            events.append(shown)
        body['events'] = events
        return {'instanceAction': body}
