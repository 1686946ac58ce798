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

"""The metadata and tags of instances (tables instance_metadata and
instance_tags): read for one instance or a whole list at once, and the
metadata writes of nova_mini.objects.compute.instance.Instance.

Every metadata write starts by updating its instance's row (``lock``):
concurrent writers of one instance take turns, so the quota of
``MAX_METADATA_ITEMS`` holds however many API workers write at once, and
each write sets the instance's ``updated_at``.
"""

from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects.compute import instance_build

# Nova's default quota of metadata items per server ([quota]
# metadata_items), the limit Nova's API applies on create and update.
MAX_METADATA_ITEMS = 128

# What a vm_state must be for the server's metadata to change (Nova:
# not while building, nor in error; stopped servers too).
METADATA_STATES = (instance_build.ACTIVE, 'stopped')

_INSTANCES = models.Instance.__table__
_METADATA = models.InstanceMetadata.__table__
_TAGS = models.InstanceTag.__table__

# Rows per IN (...) when a list loads its metadata and tags.
_CHUNK = 500


def check_metadata_quota(metadata):
    """Check that ``metadata`` has no more items than the quota.

    :param metadata: the items, ``{key: value}``.
    :raises nova_mini.exception.MetadataLimitExceeded: it has more.
    """
    if len(metadata) > MAX_METADATA_ITEMS:
        raise exception.MetadataLimitExceeded(allowed=MAX_METADATA_ITEMS)


def insert_metadata(context, uuid, metadata, now):
    """Insert the metadata items of a new instance (in the caller's
    transaction).

    :param context: the request context, in a writer transaction.
    :param uuid: the instance's uuid.
    :param metadata: the items, ``{key: value}``.
    :param now: their ``created_at``.
    """
    if metadata:
        context.session.execute(_METADATA.insert(), [
            {'instance_uuid': uuid, 'key': key, 'value': value,
             'created_at': now}
            for key, value in sorted(metadata.items())])


def insert_tags(context, uuid, tags, now):
    """Insert the tags of a new instance (in the caller's transaction).

    :param context: the request context, in a writer transaction.
    :param uuid: the instance's uuid.
    :param tags: the tags, without duplicates.
    :param now: their ``created_at``.
    """
    if tags:
        context.session.execute(_TAGS.insert(), [
            {'instance_uuid': uuid, 'tag': tag, 'created_at': now}
            for tag in tags])


def children(context, uuids):
    """Read the metadata and tags of instances: one query per table for
    every _CHUNK instances, whatever their number.

    :param context: the request context, in a transaction.
    :param uuids: the instances' uuids.
    :returns: ``({uuid: metadata}, {uuid: [tag, ...]})``, tags sorted.
    """
    metadata = {uuid: {} for uuid in uuids}
    tags = {uuid: [] for uuid in uuids}
    uuids = list(metadata)
    for start in range(0, len(uuids), _CHUNK):
        chunk = uuids[start:start + _CHUNK]
        for uuid, key, value in context.session.execute(
                sa.select(_METADATA.c.instance_uuid, _METADATA.c.key,
                          _METADATA.c.value).where(
                    _METADATA.c.instance_uuid.in_(chunk)).order_by(
                    _METADATA.c.instance_uuid, _METADATA.c.key)):
            metadata[uuid][key] = value
        for uuid, tag in context.session.execute(
                sa.select(_TAGS.c.instance_uuid, _TAGS.c.tag).where(
                    _TAGS.c.instance_uuid.in_(chunk)).order_by(
                    _TAGS.c.instance_uuid, _TAGS.c.tag)):
            tags[uuid].append(tag)
    return metadata, tags


def lock(context, uuid, states, action):
    """Set the instance's ``updated_at`` if its vm_state is one of
    ``states``.

    NOTE: this must be the transaction's first statement. It takes the
    row lock (PostgreSQL, MySQL) or the database write lock (SQLite)
    before anything is read, so concurrent metadata writes of one
    instance run one after the other, each seeing the others' items; and
    it settles the race with a deletion or a state change, as the
    vm_state is checked by the same statement. (On SQLite, a transaction
    that reads first fails with SQLITE_BUSY instead of waiting.)

    :param context: the request context, in a writer transaction.
    :param uuid: the instance's uuid.
    :param states: the vm_states allowed (None: any).
    :param action: the action InstanceInvalidState names.
    :returns: the ``updated_at`` set.
    :raises nova_mini.exception.InstanceNotFound: the instance is gone.
    :raises nova_mini.exception.InstanceInvalidState: its vm_state is not
        one of ``states``.
    """
    now = timeutils.utcnow()
    conditions = [_INSTANCES.c.uuid == uuid]
    if states is not None:
        conditions.append(_INSTANCES.c.vm_state.in_(states))
    if context.session.execute(_INSTANCES.update().where(
            *conditions).values(updated_at=now)).rowcount:
        return now
    state = context.session.execute(sa.select(_INSTANCES.c.vm_state).where(
        _INSTANCES.c.uuid == uuid)).scalar()
    if state is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    raise exception.InstanceInvalidState(
        action=action, instance_uuid=uuid, attr='vm_state', state=state)


def _read_metadata(context, uuid):
    return dict(context.session.execute(
        sa.select(_METADATA.c.key, _METADATA.c.value).where(
            _METADATA.c.instance_uuid == uuid)).all())


@db_api.context_manager.writer
def replace_metadata(context, uuid, metadata, states, action):
    """Make ``metadata`` the instance's metadata; ``(updated_at, metadata)``.
    Racing writers of the instance wait for this one (``lock``).
    """
    now = lock(context, uuid, states, action)
    check_metadata_quota(metadata)
    context.session.execute(_METADATA.delete().where(
        _METADATA.c.instance_uuid == uuid))
    insert_metadata(context, uuid, metadata, now)
    return now, dict(sorted(metadata.items()))


@db_api.context_manager.writer
def update_metadata(context, uuid, updates, states, action):
    """Merge ``updates`` in; ``(updated_at, metadata)``. The quota is
    counted after ``lock``: two writers each adding the last allowed item
    cannot both succeed, the second sees the first's item.
    """
    now = lock(context, uuid, states, action)
    existing = _read_metadata(context, uuid)
    merged = dict(existing, **updates)
    check_metadata_quota(merged)
    changed = [{'b_key': key, 'b_value': value}
               for key, value in sorted(updates.items())
               if key in existing and existing[key] != value]
    if changed:
        context.session.execute(
            _METADATA.update().where(
                _METADATA.c.instance_uuid == uuid,
                _METADATA.c.key == sa.bindparam('b_key')).values(
                    value=sa.bindparam('b_value'), updated_at=now),
            changed)
    added = {key: value for key, value in updates.items()
             if key not in existing}
    insert_metadata(context, uuid, added, now)
    return now, dict(sorted(merged.items()))


@db_api.context_manager.writer
def delete_metadata_item(context, uuid, key, states, action):
    """Remove item ``key``; ``(updated_at, metadata)``. A racing writer
    that removed it first makes this one InstanceMetadataNotFound.
    """
    now = lock(context, uuid, states, action)
    if not context.session.execute(_METADATA.delete().where(
            _METADATA.c.instance_uuid == uuid,
            _METADATA.c.key == key)).rowcount:
        # The transaction is rolled back: updated_at stays as it was.
        raise exception.InstanceMetadataNotFound()
    return now, dict(sorted(_read_metadata(context, uuid).items()))


class MetadataWriter(object):
    """The metadata writes of an Instance (a mix-in of it): each sets the
    instance's ``metadata`` and ``updated_at`` to what was written.
    """

    def _set_metadata(self, written):
        self.updated_at, self.metadata = written
        self.obj_reset_changes(['updated_at', 'metadata'])
        return self.metadata

    def replace_metadata(self, metadata, states=METADATA_STATES,
                         action='update metadata'):
        """Make ``metadata`` the instance's whole metadata.

        Concurrent writers take turns (instance_metadata.lock): the last
        one's items are the metadata.

        :param metadata: the new items, ``{key: value}``.
        :param states: the vm_states the instance must be in (None: any).
        :param action: the action named by InstanceInvalidState.
        :returns: the new metadata.
        :raises nova_mini.exception.MetadataLimitExceeded: past the quota.
        :raises nova_mini.exception.InstanceNotFound: the instance is gone.
        :raises nova_mini.exception.InstanceInvalidState: its vm_state is
            not one of ``states``; nothing is written on any error.
        """
        return self._set_metadata(replace_metadata(
            self._context, self.uuid, metadata, states, action))

    def update_metadata(self, updates, states=METADATA_STATES,
                        action='update metadata'):
        """Merge ``updates`` into the instance's metadata.

        The quota is checked on the merged items in the transaction that
        writes them, after the writers before it committed: two workers
        adding different items to a server one short of the quota cannot
        both succeed.

        :param updates: the items added or changed.
        :param states: as for replace_metadata.
        :param action: as for replace_metadata.
        :returns: the merged metadata.
        :raises: as replace_metadata.
        """
        return self._set_metadata(update_metadata(
            self._context, self.uuid, updates, states, action))

    def delete_metadata_item(self, key, states=METADATA_STATES,
                             action='delete metadata'):
        """Remove the metadata item ``key``.

        :param key: the item's key.
        :param states: as for replace_metadata.
        :param action: as for replace_metadata.
        :returns: the remaining metadata.
        :raises nova_mini.exception.InstanceMetadataNotFound: it has no such
            item (also when a concurrent writer removed it first); other
            errors as replace_metadata.
        """
        return self._set_metadata(delete_metadata_item(
            self._context, self.uuid, key, states, action))
