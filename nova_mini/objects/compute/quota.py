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

"""Quotas of a project: its limits, what it uses, and the check of a boot.

A project's limit of a resource is its own (a ``quotas`` row, set with
``PUT /os-quota-sets/{project_id}``) or else ``[quota]``'s default; -1
means no limit. Usage is counted from what is stored, never kept in a
counter that could drift: servers (``instances``), the sum of their
flavors' vcpus (``cores``) and memory_mb (``ram``), server groups.

A boot is checked twice, as Nova does:

* ``check_instances`` before anything is built, on what is committed: it
  refuses a boot past the quota with Nova's 403, or lowers ``max_count``
  to what fits when ``min_count`` still does. A request for 2^31-1
  servers is refused here, before a uuid is made.
* ``recheck_instances`` in the transaction that inserts the servers,
  first thing: it updates the project's ``quota_locks`` row, so that the
  boots of one project take turns (a row lock on PostgreSQL and MariaDB,
  the database's write lock on SQLite), then counts again what the
  earlier ones committed and refuses with the same 403 when the servers
  no longer fit; the transaction, and with it every row of the boot, is
  rolled back. Concurrent boots therefore never take a project past its
  quota, and, unlike an insert-then-recount-and-undo recheck, two racing
  boots never both undo themselves when one of them fits.
"""

from oslo_db import exception as db_exc
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects.compute import instance_metadata

CONF = conf.CONF

_QUOTAS = models.Quota.__table__
_LOCKS = models.QuotaLock.__table__
_INSTANCES = models.Instance.__table__
_GROUPS = models.ServerGroup.__table__

# What a boot counts against, in the order Nova names them in its 403.
INSTANCE_RESOURCES = ('instances', 'cores', 'ram')
# Limits an administrator may set per project, by their [quota] option.
SETTABLE = ('instances', 'cores', 'ram', 'key_pairs', 'server_groups',
            'server_group_members')
# What Nova's API shows but nova_mini fixes: its metadata items (Nova's
# default, enforced by objects/compute/instance_metadata.py), no injected files
# (personality is refused), and Nova's -1 for the resources of the
# Networking service.
FIXED = {
    'metadata_items': instance_metadata.MAX_METADATA_ITEMS,
    'injected_files': 0,
    'injected_file_content_bytes': 0,
    'injected_file_path_bytes': 0,
    'fixed_ips': -1,
    'floating_ips': -1,
    'security_groups': -1,
    'security_group_rules': -1,
}
# Usage Nova counts per project; the others show 0 in use (key pairs and
# group members are counted per user and per group, not per project).
COUNTED = INSTANCE_RESOURCES + ('server_groups',)


def defaults(conf=CONF):
    """Return the default limit of every resource: ``{name: limit}``."""
    values = {name: conf.quota[name] for name in SETTABLE}
    values.update(FIXED)
    return values


@db_api.context_manager.reader
def _stored(context, project_id):
    return dict(context.session.execute(
        sa.select(_QUOTAS.c.resource, _QUOTAS.c.hard_limit).where(
            _QUOTAS.c.project_id == project_id)).all())


def _limits(context, project_id):
    values = defaults()
    values.update({name: limit for name, limit
                   in _stored(context, project_id).items()
                   if name in SETTABLE})
    return values


def get_limits(context, project_id):
    """Return the project's limit of every resource: its own where an
    administrator set one, the default otherwise.

    :param context: the request context.
    :param project_id: the project.
    :returns: ``{name: limit}``, -1 for no limit.
    """
    return _limits(context, project_id)


def limit_of(context, project_id, resource):
    """Return the project's limit of one settable resource.

    :param context: the request context.
    :param project_id: the project.
    :param resource: a name of ``SETTABLE``.
    :returns: the limit, -1 for none.
    """
    return _limits(context, project_id)[resource]


def _count(context, project_id, latest=False):
    query = sa.select(
        sa.func.count(),
        sa.func.coalesce(sa.func.sum(_INSTANCES.c.vcpus), 0),
        sa.func.coalesce(sa.func.sum(_INSTANCES.c.memory_mb), 0)).where(
        _INSTANCES.c.project_id == project_id)
    if latest and context.session.bind.dialect.name == 'mysql':
        # NOTE: under MariaDB's REPEATABLE READ a plain read sees the
        # transaction's snapshot, which a read before the lock (a server
        # group's members) may have fixed; a locking read sees what is
        # committed.
        query = query.with_for_update(read=True)
    instances, cores, ram = context.session.execute(query).one()
    groups = context.session.execute(
        sa.select(sa.func.count()).select_from(_GROUPS).where(
            _GROUPS.c.project_id == project_id)).scalar()
    return {'instances': instances, 'cores': int(cores), 'ram': int(ram),
            'server_groups': groups}


@db_api.context_manager.reader
def _count_committed(context, project_id):
    return _count(context, project_id)


def get_usages(context, project_id):
    """Return what the project uses of every resource, as committed.

    :param context: the request context.
    :param project_id: the project.
    :returns: ``{name: in use}`` of every resource of ``defaults()``.
    """
    usages = dict.fromkeys(defaults(), 0)
    usages.update(_count_committed(context, project_id))
    return usages


def _requested(instances, vcpus, memory_mb):
    return {'instances': instances, 'cores': instances * vcpus,
            'ram': instances * memory_mb}


def _overs(limits, usages, requested):
    return [name for name in sorted(INSTANCE_RESOURCES)
            if 0 <= limits[name] < usages[name] + requested[name]]


def _refusal(overs, limits, usages, requested, instances_text):
    shown = dict(requested, instances=instances_text)
    return exception.TooManyInstances(
        overs=', '.join(overs),
        req=', '.join(str(shown[name]) for name in overs),
        used=', '.join(str(usages[name]) for name in overs),
        allowed=', '.join(str(limits[name]) for name in overs))


def _fitting(limits, usages, vcpus, memory_mb):
    """How many more servers of the flavor fit (None: no limit)."""
    fitting = None
    for name, each in (('instances', 1), ('cores', vcpus),
                       ('ram', memory_mb)):
        if limits[name] < 0 or not each:
            continue
        room = max(0, limits[name] - usages[name]) // each
        fitting = room if fitting is None else min(fitting, room)
    return fitting


def _unlimited(limits):
    return all(limits[name] < 0 for name in INSTANCE_RESOURCES)


@db_api.context_manager.writer
def _add_lock_row(context, project_id):
    context.session.execute(_LOCKS.insert().values(
        project_id=project_id, created_at=timeutils.utcnow()))


@db_api.context_manager.reader
def _has_lock_row(context, project_id):
    return context.session.execute(sa.select(_LOCKS.c.project_id).where(
        _LOCKS.c.project_id == project_id)).first() is not None


def _ensure_lock_row(context, project_id):
    # In a transaction of its own, before the boot's: two first boots of
    # a project inserting it at once would otherwise abort one of the
    # boots' transactions on PostgreSQL.
    if _has_lock_row(context, project_id):
        return
    try:
        _add_lock_row(context, project_id)
    except db_exc.DBDuplicateEntry:
        pass


def check_instances(context, project_id, flavor, min_count, max_count):
    """Check a boot of ``min_count`` to ``max_count`` servers of
    ``flavor`` against what the project has committed, before anything
    is built (Nova's check_num_instances_quota).

    :param context: the request context.
    :param project_id: the project that boots.
    :param flavor: the Flavor of the servers.
    :param min_count: the fewest servers the request accepts.
    :param max_count: the most servers it asks for.
    :returns: how many servers to boot: ``max_count``, or fewer (never
        below ``min_count``) when only that many fit.
    :raises nova_mini.exception.TooManyInstances: not even ``min_count``
        fit; nothing is written.
    """
    # Even without limits: the recheck takes the row in the boot's own
    # transaction, where inserting it would race the project's other
    # first boots (UniqueViolation on PostgreSQL).
    _ensure_lock_row(context, project_id)
    limits = _limits(context, project_id)
    if _unlimited(limits):
        return max_count
    usages = _count_committed(context, project_id)
    requested = _requested(max_count, flavor.vcpus, flavor.memory_mb)
    overs = _overs(limits, usages, requested)
    if not overs:
        return max_count
    fitting = _fitting(limits, usages, flavor.vcpus, flavor.memory_mb)
    if fitting and min_count <= fitting:
        return fitting
    text = (str(min_count) if min_count == max_count
            else '%d-%d' % (min_count, max_count))
    raise _refusal(overs, limits, usages, requested, text)


def _lock(context, project_id):
    """Update the project's lock row (inserted if it has none): the boots
    of one project wait here for each other's commit.
    """
    updated = context.session.execute(_LOCKS.update().where(
        _LOCKS.c.project_id == project_id).values(
        updated_at=timeutils.utcnow())).rowcount
    if not updated:
        context.session.execute(_LOCKS.insert().values(
            project_id=project_id, created_at=timeutils.utcnow()))


def recheck_instances(context, instances):
    """Take the project's turn and count again, in the caller's write
    transaction, before it inserts ``instances`` (see the module).

    :param context: the request context, in a write transaction.
    :param instances: the Instance objects of one boot (one project).
    :raises nova_mini.exception.TooManyInstances: they do not fit any
        more; the caller's transaction is to be rolled back.
    """
    if not instances:
        return
    project_id = instances[0].project_id
    # The lock before any read: on MariaDB the first read of a
    # transaction fixes what the later ones see.
    _lock(context, project_id)
    limits = _limits(context, project_id)
    if _unlimited(limits):
        return
    usages = _count(context, project_id, latest=True)
    requested = {
        'instances': len(instances),
        'cores': sum(i.flavor.vcpus for i in instances),
        'ram': sum(i.flavor.memory_mb for i in instances)}
    overs = _overs(limits, usages, requested)
    if overs:
        raise _refusal(overs, limits, usages, requested,
                       str(len(instances)))


@db_api.context_manager.writer
def _set(context, project_id, values):
    now = timeutils.utcnow()
    for resource, limit in values.items():
        if context.session.execute(_QUOTAS.update().where(
                _QUOTAS.c.project_id == project_id,
                _QUOTAS.c.resource == resource).values(
                hard_limit=limit, updated_at=now)).rowcount:
            continue
        context.session.execute(_QUOTAS.insert().values(
            project_id=project_id, resource=resource, hard_limit=limit,
            created_at=now))


def set_limits(context, project_id, values):
    """Store the project's own limits of some resources, in one
    transaction.

    :param context: the request context.
    :param project_id: the project.
    :param values: ``{name of SETTABLE: limit}``.
    :raises nova_mini.exception.Conflict: another request set one of
        them at the same moment; nothing is written.
    """
    try:
        _set(context, project_id, values)
    except db_exc.DBDuplicateEntry:
        raise exception.Conflict('Quotas of project %s were changed by '
                                 'another request; try again.' % project_id)


@db_api.context_manager.writer
def _delete(context, project_id):
    context.session.execute(_QUOTAS.delete().where(
        _QUOTAS.c.project_id == project_id))


def delete_limits(context, project_id):
    """Forget the project's own limits: it has the defaults again.

    :param context: the request context.
    :param project_id: the project.
    """
    _delete(context, project_id)
