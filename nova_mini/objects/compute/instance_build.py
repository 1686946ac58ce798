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

"""The build states of an instance and the statements that leave them.

An instance's ``vm_state`` moves from ``building`` to ``active`` or
``error`` only through conditional UPDATEs (``WHERE vm_state =
'building'``): the scheduler finishing a build, the scheduler failing it
and the API expiring an overdue build may race, and the database decides
which one wins; the losers see it and undo what they did (see
nova_mini.scheduler.manager). Instance.mark_active, mark_error and
expire_build (nova_mini.objects.compute.instance) and
InstanceList.expire_overdue_builds (nova_mini.objects.compute.instance_list) run
them.
"""

import datetime

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models

BUILDING = 'building'
ACTIVE = 'active'
ERROR = 'error'

_INSTANCES = models.Instance.__table__


def make_fault(message, code=500, details=None):
    """Return a fault document, as stored in ``Instance.fault``.

    :param message: what went wrong.
    :param code: the HTTP status code the fault is shown with.
    :param details: more text (none: empty).
    :returns: a dict of ``message``, ``code``, ``details`` and
        ``created`` (now, ISO 8601).
    """
    return {'message': message, 'code': code, 'details': details or '',
            'created': timeutils.utcnow().isoformat()}


def expired_values(timeout):
    """Return the column values of a build that outlived ``timeout``.

    :param timeout: the seconds a build may last.
    :returns: ``vm_state`` error and the fault saying so.
    """
    return {'vm_state': ERROR,
            'fault': make_fault(
                'Timed out waiting for a scheduler: the build was not '
                'finished within %d seconds ([DEFAULT] '
                'rpc_response_timeout).' % timeout, 500)}


def is_overdue(vm_state, created_at, timeout, now):
    """Return whether a build started more than ``timeout`` seconds
    before ``now``.

    :param vm_state: the instance's vm_state (only a building one is).
    :param created_at: when the instance was created (None: not yet).
    :param timeout: the seconds a build may last.
    :param now: the time compared with (naive UTC).
    :returns: a bool.
    """
    return (vm_state == BUILDING and created_at is not None
            and timeutils.normalize_time(created_at)
            + datetime.timedelta(seconds=timeout) < now)


@db_api.context_manager.writer
def finish_building(context, uuid, values, created_before=None):
    """Apply ``values`` to an instance if it is still building.

    :param context: the request context.
    :param uuid: the instance.
    :param values: the columns written.
    :param created_before: if given, the instance must also have been
        created before this time.
    :returns: whether the row was written (False: deleted, finished or
        failed meanwhile).
    """
    conditions = [_INSTANCES.c.uuid == uuid,
                  _INSTANCES.c.vm_state == BUILDING]
    if created_before is not None:
        conditions.append(_INSTANCES.c.created_at < created_before)
    return bool(context.session.execute(
        _INSTANCES.update().where(*conditions).values(**values)).rowcount)


@db_api.context_manager.reader
def _overdue(context, project_id, created_before):
    query = sa.select(_INSTANCES.c.uuid).where(
        _INSTANCES.c.vm_state == BUILDING,
        _INSTANCES.c.created_at < created_before)
    if project_id is not None:
        query = query.where(_INSTANCES.c.project_id == project_id)
    return context.session.execute(query).scalars().all()


@db_api.context_manager.writer
def _fail_overdue(context, uuids, created_before, values):
    """Apply ``values`` to those of ``uuids`` still building and created
    before ``created_before``: a build finished meanwhile is left alone.
    """
    return context.session.execute(_INSTANCES.update().where(
        _INSTANCES.c.uuid.in_(uuids), _INSTANCES.c.vm_state == BUILDING,
        _INSTANCES.c.created_at < created_before).values(**values)).rowcount


def expire_overdue(context, project_id, timeout):
    """Fail the builds not finished ``timeout`` seconds after they began.

    A cheap indexed read when there are none; a build finishing
    meanwhile is left alone.

    :param context: the request context.
    :param project_id: whose builds (None: every project's).
    :param timeout: the seconds a build may last.
    :returns: how many builds were failed.
    """
    now = timeutils.utcnow()
    cutoff = now - datetime.timedelta(seconds=timeout)
    uuids = _overdue(context, project_id, cutoff)
    if not uuids:
        return 0
    values = dict(expired_values(timeout), updated_at=now)
    return _fail_overdue(context, uuids, cutoff, values)
