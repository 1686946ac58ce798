"""Instance and InstanceList: servers, with their own flavor snapshot.

An instance keeps a copy of the flavor it was booted with (``flavor``, a
Flavor object stored serialized), so later edits or the deletion of the
flavor change nothing about it (compute API 2.47 shows this copy).

Instances of one request are created together with the RequestSpec each
keeps (``InstanceList.create_all``, one transaction); deleting an instance
deletes its spec.

Its ``vm_state`` moves from ``building`` to ``active`` or ``error`` only
through conditional UPDATEs (``WHERE vm_state = 'building'``): the
scheduler finishing a build, the scheduler failing it and the API
expiring an overdue build may race, and the database decides which one
wins; the losers see it and undo what they did (see
nova_mini.scheduler.manager).
"""

import datetime

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import fields
from nova_mini.objects import flavor as flavor_obj
from nova_mini.objects import request_spec

BUILDING = 'building'
ACTIVE = 'active'
ERROR = 'error'

# vm_state -> the status the compute API shows.
STATUS = {BUILDING: 'BUILD', ACTIVE: 'ACTIVE', ERROR: 'ERROR'}

_INSTANCES = models.Instance.__table__
_COLUMNS = ('id', 'uuid', 'name', 'project_id', 'user_id', 'image_ref',
            'vm_state', 'node_uuid', 'fault', 'created_at', 'updated_at')


def make_fault(message, code=500, details=None):
    """A fault document, as stored in ``Instance.fault``."""
    return {'message': message, 'code': code, 'details': details or '',
            'created': timeutils.utcnow().isoformat()}


def _dump_flavor(flavor):
    return jsonutils.dumps(flavor.obj_to_primitive())


def _load_flavor(text):
    return flavor_obj.Flavor.obj_from_primitive(jsonutils.loads(text))


@db_api.context_manager.writer
def _create(context, values):
    row = models.Instance(**values)
    context.session.add(row)
    context.session.flush()
    return row


@db_api.context_manager.reader
def _get(context, uuid):
    row = context.session.execute(sa.select(_INSTANCES).where(
        _INSTANCES.c.uuid == uuid)).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    return row


@db_api.context_manager.reader
def _get_all(context, project_id, limit):
    query = sa.select(_INSTANCES).order_by(_INSTANCES.c.created_at.desc(),
                                           _INSTANCES.c.id.desc())
    if project_id is not None:
        query = query.where(_INSTANCES.c.project_id == project_id)
    if limit is not None:
        query = query.limit(limit)
    return context.session.execute(query).all()


@db_api.context_manager.writer
def _update_building(context, uuid, values, created_before=None):
    """Apply ``values`` if the instance is still building (and, if given,
    was created before ``created_before``); whether it did.
    """
    conditions = [_INSTANCES.c.uuid == uuid,
                  _INSTANCES.c.vm_state == BUILDING]
    if created_before is not None:
        conditions.append(_INSTANCES.c.created_at < created_before)
    return bool(context.session.execute(
        _INSTANCES.update().where(*conditions).values(**values)).rowcount)


@db_api.context_manager.writer
def _destroy(context, uuid):
    request_spec.destroy_for_instance(context, uuid)
    return bool(context.session.execute(_INSTANCES.delete().where(
        _INSTANCES.c.uuid == uuid)).rowcount)


@db_api.context_manager.writer
def _create_all(context, instances, spec):
    for instance in instances:
        instance._context = context      # one transaction for all
        instance.create()
    spec.store(context, [instance.uuid for instance in instances])


@base.NovaMiniObjectRegistry.register
class Instance(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A server (on a bare-metal node once built)."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'flavor': fields.ObjectField('Flavor'),
        'image_ref': fields.StringField(nullable=True),
        'vm_state': fields.StringField(),
        'node_uuid': fields.UUIDField(nullable=True),
        # {'message', 'code', 'details', 'created'} of the last error.
        'fault': fields.FlexibleDictField(nullable=True),
    }

    @property
    def status(self):
        return STATUS.get(self.vm_state, 'UNKNOWN')

    @classmethod
    def _from_db_object(cls, context, instance, row):
        for name in _COLUMNS:
            setattr(instance, name, getattr(row, name))
        instance.flavor = _load_flavor(row.flavor)
        instance._context = context
        instance.obj_reset_changes(recursive=True)
        return instance

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(), _get(context, uuid))

    def create(self):
        values = self.obj_get_changes()
        values['flavor'] = _dump_flavor(self.flavor)
        values.setdefault('vm_state', BUILDING)
        now = timeutils.utcnow()
        values.setdefault('created_at', now)
        values.setdefault('updated_at', now)
        row = _create(self._context, values)
        self._from_db_object(self._context, self, _get(self._context,
                                                       row.uuid))

    def destroy(self):
        """Delete the row; False if it was gone already."""
        return _destroy(self._context, self.uuid)

    def _finish(self, values, created_before=None):
        values['updated_at'] = timeutils.utcnow()
        if not _update_building(self._context, self.uuid, values,
                                created_before):
            return False
        for name, value in values.items():
            setattr(self, name, value)
        self.obj_reset_changes()
        return True

    def mark_active(self, node_uuid):
        """BUILD -> ACTIVE on ``node_uuid``; False if no longer building
        (deleted, failed or expired meanwhile).
        """
        return self._finish({'vm_state': ACTIVE, 'node_uuid': node_uuid,
                             'fault': None})

    def mark_error(self, message, code=500, details=None):
        """BUILD -> ERROR with a fault; False if no longer building."""
        return self._finish({'vm_state': ERROR,
                             'fault': make_fault(message, code, details)})

    def build_overdue(self, timeout, now=None):
        """Whether the build started more than ``timeout`` seconds ago."""
        now = now or timeutils.utcnow()
        return (self.vm_state == BUILDING and self.created_at is not None
                and timeutils.normalize_time(self.created_at)
                + datetime.timedelta(seconds=timeout) < now)

    def expire_build(self, timeout):
        """ERROR with "Timed out waiting for a scheduler" if the instance
        is still building ``timeout`` seconds after it was created; whether
        it did.
        """
        now = timeutils.utcnow()
        if not self.build_overdue(timeout, now):
            return False
        cutoff = now - datetime.timedelta(seconds=timeout)
        return self._finish(
            {'vm_state': ERROR,
             'fault': make_fault(
                 'Timed out waiting for a scheduler: the build was not '
                 'finished within %d seconds ([DEFAULT] '
                 'rpc_response_timeout).' % timeout, 500)},
            created_before=cutoff)


@base.NovaMiniObjectRegistry.register
class InstanceList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Instance'),
    }

    @classmethod
    def create_all(cls, context, instances, spec):
        """Create ``instances`` (Instance objects not yet created) and
        store ``spec`` for each, in one transaction: all of them or, on any
        error, none.
        """
        _create_all(context, instances, spec)
        result = cls(context, objects=list(instances))
        result.obj_reset_changes()
        return result

    @classmethod
    def get_all(cls, context, project_id=None, limit=None):
        """Newest first; those of ``project_id`` only if given."""
        result = cls(context)
        result.objects = [
            Instance._from_db_object(context, Instance(), row)
            for row in _get_all(context, project_id, limit)]
        result.obj_reset_changes()
        return result
