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

"""ServerGroup: a placement policy shared by servers (Nova's instance
groups), its members, and the quotas of both.

A server joins the group of its ``group`` hint in the transaction that
creates it (``create_in_group``) and leaves it when it is deleted (the
membership row goes with the instance row). The members quota holds
under concurrent creates: each create first updates its group's row, so
creates into one group take turns and count the members the earlier ones
committed.
"""

from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini import conf
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects.compute import instance_list
from nova_mini.objects.compute import quota
from nova_mini.objects.compute import quota_recheck
from nova_mini.objects import fields

CONF = conf.CONF

AFFINITY = 'affinity'
ANTI_AFFINITY = 'anti-affinity'
SOFT_AFFINITY = 'soft-affinity'
SOFT_ANTI_AFFINITY = 'soft-anti-affinity'
# Nova's policies, oldest first (the soft ones came with 2.15).
POLICIES = (ANTI_AFFINITY, AFFINITY, SOFT_ANTI_AFFINITY, SOFT_AFFINITY)
# The only rule Nova has (anti-affinity groups only).
MAX_SERVER_PER_HOST = 'max_server_per_host'

_GROUPS = models.ServerGroup.__table__
_MEMBERS = models.ServerGroupMember.__table__
_NODES = models.Node.__table__
_COLUMNS = ('id', 'uuid', 'name', 'project_id', 'user_id', 'policy',
            'rules', 'created_at', 'updated_at')
# Groups per IN (...) when a list loads its members.
_CHUNK = 500


def _members_of(context, group_ids):
    """``{group db id: [instance uuid, ...]}``, members in joining order
    (then by uuid).
    """
    members = {group_id: [] for group_id in group_ids}
    ids = list(members)
    for start in range(0, len(ids), _CHUNK):
        rows = context.session.execute(
            sa.select(_MEMBERS.c.group_id, _MEMBERS.c.instance_uuid).where(
                _MEMBERS.c.group_id.in_(ids[start:start + _CHUNK])).order_by(
                _MEMBERS.c.created_at, _MEMBERS.c.instance_uuid)).all()
        for group_id, instance_uuid in rows:
            members[group_id].append(instance_uuid)
    return members


_SELECT = sa.select(*[_GROUPS.c[name] for name in _COLUMNS])


@db_api.context_manager.reader
def _get_by_uuid(context, uuid):
    if not uuidutils.is_uuid_like(uuid):
        # Not looked up: PostgreSQL refuses some text (a NUL character).
        raise exception.ServerGroupNotFound(group_uuid=uuid)
    row = context.session.execute(
        _SELECT.where(_GROUPS.c.uuid == uuid)).first()
    if row is None:
        raise exception.ServerGroupNotFound(group_uuid=uuid)
    return row, _members_of(context, [row.id])[row.id]


def _count_groups(context, project_id):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_GROUPS).where(
            _GROUPS.c.project_id == project_id)).scalar()


@db_api.context_manager.writer
def _insert(context, values):
    result = context.session.execute(_GROUPS.insert().values(**values))
    return result.inserted_primary_key[0]


@db_api.context_manager.reader
def _count_groups_committed(context, project_id):
    return _count_groups(context, project_id)


@db_api.context_manager.writer
def _delete(context, group_id):
    return bool(context.session.execute(
        _GROUPS.delete().where(_GROUPS.c.id == group_id)).rowcount)


@db_api.context_manager.reader
def _get_page(context, project_id, limit, offset):
    query = _SELECT.order_by(_GROUPS.c.id)
    if project_id is not None:
        query = query.where(_GROUPS.c.project_id == project_id)
    rows = context.session.execute(
        query.limit(limit).offset(offset)).all()
    members = _members_of(context, [row.id for row in rows])
    return [(row, members[row.id]) for row in rows]


def _check_group_quota(context, project_id, count):
    # The project's own limit where an administrator set one, else
    # [quota] server_groups.
    limit = quota.limit_of(context, project_id, 'server_groups')
    if limit >= 0 and count > limit:
        raise exception.ServerGroupLimitExceeded()


@base.NovaMiniObjectRegistry.register
class ServerGroup(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A server group: its policy, its rules and its member servers."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(),
        'project_id': fields.StringField(),
        'user_id': fields.StringField(),
        'policy': fields.StringField(),
        'rules': fields.DictOfIntegersField(),
        'members': fields.ListOfStringsField(),
    }

    @staticmethod
    def _from_db_object(context, group, row, members):
        for name in _COLUMNS:
            value = getattr(row, name)
            if name == 'rules':
                value = dict(value or {})
            setattr(group, name, value)
        group.members = list(members)
        group._context = context
        group.obj_reset_changes()
        return group

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load a group of any project (callers check policies).

        :param context: the request context.
        :param uuid: the group's uuid.
        :returns: a ServerGroup with its members.
        :raises nova_mini.exception.ServerGroupNotFound: no such group.
        """
        row, members = _get_by_uuid(context, uuid)
        return cls._from_db_object(context, cls(), row, members)

    def create(self):
        """Store a new group (uuid generated if unset), within the
        project's ``[quota] server_groups``.

        As Nova: counted before the insert and again after it (the
        recheck), so that concurrent creates never leave the project over
        its quota; a create the recheck finds over it is deleted again.

        :raises nova_mini.exception.ServerGroupLimitExceeded: the project
            has its quota of groups; nothing is left stored.
        """
        values = self.obj_get_changes()
        values.pop('members', None)
        values.setdefault('uuid', uuidutils.generate_uuid())
        values['rules'] = dict(values.get('rules') or {})
        values['created_at'] = timeutils.utcnow()
        _check_group_quota(self._context, values['project_id'],
                           _count_groups_committed(
                               self._context, values['project_id']) + 1)
        group_id = _insert(self._context, values)
        quota_recheck.recheck(
            lambda: _check_group_quota(
                self._context, values['project_id'],
                _count_groups_committed(self._context,
                                        values['project_id'])),
            lambda: _delete(self._context, group_id),
            exception.ServerGroupLimitExceeded,
            'Server group %s of project %s' % (values['uuid'],
                                               values['project_id']))
        values['id'] = group_id
        values['updated_at'] = None
        for name, value in values.items():
            setattr(self, name, value)
        self.members = []
        self.obj_reset_changes()

    def destroy(self):
        """Delete the group and its memberships (its servers stay).

        :raises nova_mini.exception.ServerGroupNotFound: it was gone.
        """
        if not _delete(self._context, self.id):
            raise exception.ServerGroupNotFound(group_uuid=self.uuid)


@base.NovaMiniObjectRegistry.register
class ServerGroupList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('ServerGroup'),
    }

    @classmethod
    def get_page(cls, context, project_id=None, limit=None, offset=0):
        """Load groups in creation order, with their members.

        :param context: the request context.
        :param project_id: only this project's (None: every project's).
        :param limit: the most groups returned (None: all).
        :param offset: how many groups to skip first.
        :returns: a ServerGroupList.
        """
        result = cls(context)
        result.objects = [
            ServerGroup._from_db_object(context, ServerGroup(), row, members)
            for row, members in _get_page(context, project_id, limit,
                                          offset)]
        result.obj_reset_changes()
        return result


def _lock_group(context, group_id):
    """Update the group's row first thing in the transaction: concurrent
    member additions to one group wait for each other (a row lock on
    PostgreSQL, the write lock on SQLite) and then count what the earlier
    ones committed.
    """
    return bool(context.session.execute(
        _GROUPS.update().where(_GROUPS.c.id == group_id).values(
            updated_at=timeutils.utcnow())).rowcount)


def _count_members(context, group_id):
    return context.session.execute(
        sa.select(sa.func.count()).select_from(_MEMBERS).where(
            _MEMBERS.c.group_id == group_id)).scalar()


@db_api.context_manager.writer
def _create_in_group(context, instances, spec, group):
    if not _lock_group(context, group.id):
        raise exception.ServerGroupNotFound(group_uuid=group.uuid)
    limit = quota.limit_of(context, group.project_id,
                           'server_group_members')
    if limit >= 0 and (
            _count_members(context, group.id) + len(instances) > limit):
        raise exception.GroupMemberLimitExceeded()
    created = instance_list.InstanceList.create_all(context, instances, spec)
    now = timeutils.utcnow()
    context.session.execute(_MEMBERS.insert(), [
        {'instance_uuid': instance.uuid, 'group_id': group.id,
         'created_at': now} for instance in instances])
    return created


def create_in_group(context, instances, spec, group):
    """Create instances as ``InstanceList.create_all`` does and make them
    members of ``group``, in one transaction: all of it or, on any error,
    nothing.

    :param context: the request context.
    :param instances: Instance objects not yet created.
    :param spec: the RequestSpec they were booted with.
    :param group: the ServerGroup they join.
    :returns: an InstanceList of them.
    :raises nova_mini.exception.GroupMemberLimitExceeded: the group would
        hold more than ``[quota] server_group_members`` servers.
    :raises nova_mini.exception.ServerGroupNotFound: the group was
        deleted meanwhile.
    """
    return _create_in_group(context, instances, spec, group)


def group_uuids_of_instance(context, instance_uuid):
    """Return the uuids of the groups the instance is a member of (at
    most one).

    :param context: the request context.
    :param instance_uuid: the server's uuid.
    :returns: a list of group uuids.
    """
    return _group_uuids_of_instance(context, instance_uuid)


@db_api.context_manager.reader
def _group_uuids_of_instance(context, instance_uuid):
    return [uuid for uuid, in context.session.execute(
        sa.select(_GROUPS.c.uuid).join(
            _MEMBERS, _MEMBERS.c.group_id == _GROUPS.c.id).where(
            _MEMBERS.c.instance_uuid == instance_uuid))]


def lock_placement(context, group_uuid, policy):
    """Lock the group's row for the rest of the caller's write
    transaction if the group has ``policy``: the scheduler's claims into
    one group then take turns, each reading the members' nodes
    (``placement_of``) after the earlier claims committed.

    :param context: the request context, in a write transaction.
    :param group_uuid: the group's uuid (other text names no group).
    :param policy: the policy the caller honours.
    :returns: whether a group was locked.
    """
    if not uuidutils.is_uuid_like(group_uuid):
        return False
    return _lock_placement(context, group_uuid, policy)


@db_api.context_manager.writer
def _lock_placement(context, group_uuid, policy):
    return bool(context.session.execute(
        _GROUPS.update().where(_GROUPS.c.uuid == group_uuid,
                               _GROUPS.c.policy == policy).values(
            updated_at=timeutils.utcnow())).rowcount)


def placement_of(context, group_uuid):
    """Read what the scheduler's group filters need of a group: its
    policy, its rules and the nodes its members hold. Runs in the
    caller's transaction when there is one (a selection's reader).

    :param context: the request context.
    :param group_uuid: the group's uuid.
    :returns: ``(policy, rules, {node uuid: members on it})``, or None
        if there is no such group (any more).
    """
    return _placement_of(context, group_uuid)


@db_api.context_manager.reader
def _placement_of(context, group_uuid):
    row = context.session.execute(
        sa.select(_GROUPS.c.id, _GROUPS.c.policy, _GROUPS.c.rules).where(
            _GROUPS.c.uuid == group_uuid)).first()
    if row is None:
        return None
    nodes = {}
    for node_uuid, in context.session.execute(
            sa.select(_NODES.c.uuid).join(
                _MEMBERS, _MEMBERS.c.instance_uuid == _NODES.c.instance_uuid
            ).where(_MEMBERS.c.group_id == row.id)):
        nodes[node_uuid] = nodes.get(node_uuid, 0) + 1
    return row.policy, dict(row.rules or {}), nodes


def nodes_of_instances(context, instance_uuids):
    """Read the nodes that hold the given servers (claimed or deployed).
    Runs in the caller's transaction when there is one.

    :param context: the request context.
    :param instance_uuids: server uuids; other text (Nova's schema lets
        any ``same_host`` string through) names no server.
    :returns: ``{instance uuid: node uuid}`` of those on a node.
    """
    return _nodes_of_instances(context, [
        value for value in instance_uuids if uuidutils.is_uuid_like(value)])


@db_api.context_manager.reader
def _nodes_of_instances(context, instance_uuids):
    found = {}
    for start in range(0, len(instance_uuids), _CHUNK):
        for instance_uuid, node_uuid in context.session.execute(
                sa.select(_NODES.c.instance_uuid, _NODES.c.uuid).where(
                    _NODES.c.instance_uuid.in_(
                        instance_uuids[start:start + _CHUNK]))):
            found[instance_uuid] = node_uuid
    return found
