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

"""The actions taken on a server (Nova's instance actions) and their
events, as the os-instance-actions API lists them.

One row per request that acted on a server (create, delete, stop, start,
reboot, rebuild, lock, unlock), named by the request id, kept after the
server is deleted (Nova lists a deleted server's actions from 2.21). An
action done at once records its events with their result, named as
Nova's services name them (``compute_stop_instance`` on the node as its
host, ``rebuild_server`` on the API's host as Nova's conductor); a build
adds its event when the scheduler runs it (event_start, event_finish).
Plain dicts: nothing sends them over RPC.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception

_ACTIONS = models.InstanceAction.__table__
_EVENTS = models.InstanceActionEvent.__table__

CREATE = 'create'
DELETE = 'delete'
STOP = 'stop'
START = 'start'
REBOOT = 'reboot'
REBUILD = 'rebuild'
LOCK = 'lock'
UNLOCK = 'unlock'

SUCCESS = 'Success'
ERROR = 'Error'

_ACTION_COLUMNS = ('id', 'action', 'instance_uuid', 'request_id',
                   'user_id', 'project_id', 'start_time', 'finish_time',
                   'message', 'updated_at')
_EVENT_COLUMNS = ('event', 'start_time', 'finish_time', 'result',
                  'traceback', 'host', 'details')


@db_api.context_manager.writer
def _record(context, values, events):
    action_id = context.session.execute(
        _ACTIONS.insert().values(**values)).inserted_primary_key[0]
    for event in events:
        context.session.execute(_EVENTS.insert().values(
            action_id=action_id, created_at=event['start_time'],
            updated_at=event['finish_time'] or event['start_time'],
            **event))
    return action_id


def record(context, instance_uuid, action, events=(), result=SUCCESS,
           details=None, started=None):
    """Record ``action`` on the server by the request of ``context``,
    with the events it ran, all finished now with ``result`` (an action
    that runs later, a build, adds its events with event_start and
    event_finish).

    :param context: the request context (request id, user, project).
    :param instance_uuid: the server.
    :param action: the action's name (CREATE ...).
    :param events: ``(event name, host)`` of each event, in the order
        they ran (the host: the node's uuid, or the service's host).
    :param result: SUCCESS or ERROR.
    :param details: what went wrong, for an error.
    :param started: when it started (default: now).
    """
    now = timeutils.utcnow()
    started = started or now
    values = {'action': action, 'instance_uuid': instance_uuid,
              'request_id': context.request_id, 'user_id': context.user_id,
              'project_id': context.project_id, 'start_time': started,
              'finish_time': now if events else None,
              'message': None if result == SUCCESS else ERROR,
              'created_at': started, 'updated_at': now}
    rows = [{'event': event, 'start_time': started, 'finish_time': now,
             'result': result, 'traceback': None, 'host': host,
             'details': details} for event, host in events]
    _record(context, values, rows)


def _latest(context, instance_uuid, action):
    return context.session.execute(
        sa.select(_ACTIONS.c.id).where(
            _ACTIONS.c.instance_uuid == instance_uuid,
            _ACTIONS.c.action == action).order_by(
            _ACTIONS.c.created_at.desc(), _ACTIONS.c.id.desc())).scalar()


@db_api.context_manager.writer
def event_start(context, instance_uuid, action, event, host):
    """Start ``event`` of the server's latest ``action`` (a build that a
    scheduler runs after the API answered); whether the action exists.
    """
    action_id = _latest(context, instance_uuid, action)
    if action_id is None:
        return False
    now = timeutils.utcnow()
    context.session.execute(_EVENTS.insert().values(
        action_id=action_id, event=event, start_time=now, host=host,
        created_at=now, updated_at=now))
    context.session.execute(_ACTIONS.update().where(
        _ACTIONS.c.id == action_id).values(updated_at=now))
    return True


@db_api.context_manager.writer
def event_finish(context, instance_uuid, action, event, host,
                 result=SUCCESS, details=None, traceback=None):
    """Finish ``event`` of the server's latest ``action`` with ``result``
    (started now if it was not); an error marks the action's message
    ``Error``, as Nova does. Whether the action exists.

    :param details: the error's message (shown to administrators from
        2.84).
    :param traceback: where it failed (administrators).
    """
    action_id = _latest(context, instance_uuid, action)
    if action_id is None:
        return False
    now = timeutils.utcnow()
    values = {'finish_time': now, 'result': result, 'details': details,
              'traceback': traceback, 'updated_at': now}
    done = context.session.execute(_EVENTS.update().where(
        _EVENTS.c.action_id == action_id, _EVENTS.c.event == event,
        _EVENTS.c.finish_time.is_(None)).values(**values)).rowcount
    if not done:
        context.session.execute(_EVENTS.insert().values(
            action_id=action_id, event=event, start_time=now, host=host,
            created_at=now, **values))
    action = {'updated_at': now}
    if result == ERROR:
        action['message'] = ERROR
    context.session.execute(_ACTIONS.update().where(
        _ACTIONS.c.id == action_id).values(**action))
    return True


@db_api.context_manager.writer
def forget(context, instance_uuids):
    """Remove the actions (and events) of servers whose create was
    undone (nothing stays of a refused create).
    """
    ids = sa.select(_ACTIONS.c.id).where(
        _ACTIONS.c.instance_uuid.in_(list(instance_uuids)))
    context.session.execute(_EVENTS.delete().where(
        _EVENTS.c.action_id.in_(ids)))
    context.session.execute(_ACTIONS.delete().where(
        _ACTIONS.c.instance_uuid.in_(list(instance_uuids))))


def _action_dict(row):
    return {name: getattr(row, name) for name in _ACTION_COLUMNS}


@db_api.context_manager.reader
def list_actions(context, instance_uuid, limit=None, marker=None,
                 changes_since=None, changes_before=None):
    """The server's actions, newest first; after the action whose
    request id is ``marker``; changed at or after ``changes_since``, at
    or before ``changes_before``.

    :raises nova_mini.exception.MarkerNotFound: no action of that request
        id on the server.
    """
    query = sa.select(*[_ACTIONS.c[name] for name in _ACTION_COLUMNS]).where(
        _ACTIONS.c.instance_uuid == instance_uuid)
    if changes_since is not None:
        query = query.where(_ACTIONS.c.updated_at >= changes_since)
    if changes_before is not None:
        query = query.where(_ACTIONS.c.updated_at <= changes_before)
    order = (_ACTIONS.c.created_at.desc(), _ACTIONS.c.id.desc())
    if marker is not None:
        place = context.session.execute(
            sa.select(_ACTIONS.c.created_at, _ACTIONS.c.id).where(
                _ACTIONS.c.instance_uuid == instance_uuid,
                _ACTIONS.c.request_id == marker)).first()
        if place is None:
            # Nova's words for an unknown marker.
            raise exception.MarkerNotFound(
                'Marker %s could not be found.' % marker)
        query = query.where(sa.or_(
            _ACTIONS.c.created_at < place.created_at,
            sa.and_(_ACTIONS.c.created_at == place.created_at,
                    _ACTIONS.c.id < place.id)))
    query = query.order_by(*order)
    if limit is not None:
        query = query.limit(limit)
    return [_action_dict(row) for row in context.session.execute(query)]


@db_api.context_manager.reader
def get_action(context, instance_uuid, request_id):
    """The server's action of ``request_id`` with its ``events`` (newest
    first).

    :raises nova_mini.exception.InstanceActionNotFound: there is none.
    """
    row = context.session.execute(
        sa.select(*[_ACTIONS.c[name] for name in _ACTION_COLUMNS]).where(
            _ACTIONS.c.instance_uuid == instance_uuid,
            _ACTIONS.c.request_id == request_id)).first()
    if row is None:
        raise exception.InstanceActionNotFound(
            request_id=request_id, instance_uuid=instance_uuid)
    action = _action_dict(row)
    action['events'] = [
        {name: getattr(event, name) for name in _EVENT_COLUMNS}
        for event in context.session.execute(
            sa.select(*[_EVENTS.c[name] for name in _EVENT_COLUMNS]).where(
                _EVENTS.c.action_id == row.id).order_by(
                _EVENTS.c.created_at.desc(), _EVENTS.c.id.desc()))]
    return action


@db_api.context_manager.reader
def project_of(context, instance_uuid):
    """``(project_id, user_id)`` of a deleted server's actions, or None
    when it has none.
    """
    row = context.session.execute(
        sa.select(_ACTIONS.c.project_id, _ACTIONS.c.user_id).where(
            _ACTIONS.c.instance_uuid == instance_uuid,
            _ACTIONS.c.action == CREATE)).first()
    return None if row is None else tuple(row)
