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

"""Instance: a server, with its own flavor snapshot.

An instance keeps a copy of the flavor it was booted with (``flavor``, a
Flavor object stored serialized), so later edits or the deletion of the
flavor change nothing about it (compute API 2.47 shows this copy).

Deleting an instance deletes the RequestSpec it keeps; the instances of
one request are created together with theirs by
nova_mini.objects.compute.instance_list.

Its ``vm_state`` moves from ``building`` to ``active`` or ``error`` only
through conditional UPDATEs, which the database settles when the
scheduler and the API race: nova_mini.objects.compute.instance_build.

An instance also keeps what its boot request gave: ``metadata`` (table
instance_metadata), ``tags`` (instance_tags), the user data as received
(base64 text), description, access addresses, config drive flag, its
place in a multi-create (``launch_index``) and the roles of the user who
booted it (``boot_roles``, for vendordata). Every change of an instance
sets its ``updated_at``, so readers may key caches on ``(uuid,
updated_at)``. The metadata and tags are read and written by
nova_mini.objects.compute.instance_metadata, whose writers of one instance take
turns so that the metadata quota holds.

The ``hostname`` and ``flavorid`` columns copy what lists
(nova_mini.objects.compute.instance_list) filter and sort on.
"""

import datetime
import re

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects.compute import flavor as flavor_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_build
from nova_mini.objects.compute import instance_metadata
from nova_mini.objects.compute import instance_task
from nova_mini.objects import fields
from nova_mini.objects import request_spec

BUILDING = instance_build.BUILDING
ACTIVE = instance_build.ACTIVE
ERROR = instance_build.ERROR
STOPPED = instance_task.STOPPED

# vm_state -> the status the compute API shows (when no task runs).
STATUS = instance_task.STATUS

# Nova's quota of metadata items per server.
MAX_METADATA_ITEMS = instance_metadata.MAX_METADATA_ITEMS
check_metadata_quota = instance_metadata.check_metadata_quota


_INSTANCES = models.Instance.__table__
_COLUMNS = ('id', 'uuid', 'name', 'project_id', 'user_id', 'image_ref',
            'vm_state', 'node_uuid', 'fault', 'created_at', 'updated_at',
            'user_data', 'description', 'access_ip_v4', 'access_ip_v6',
            'config_drive', 'launch_index', 'launched_at', 'key_name',
            'key_data', 'task_state', 'power_state', 'locked_by',
            'locked_reason', 'auto_disk_config')

# What update_details() may change (PUT /servers/{id}).
_UPDATABLE = frozenset(['name', 'description', 'access_ip_v4',
                        'access_ip_v6', 'auto_disk_config'])

# Host names: what becomes a hyphen, and what is dropped (\w is any
# letter or digit, not only ASCII ones, as in Nova).
_HOSTNAME_SEPARATORS = re.compile(r'[ ._]')
_NOT_HOSTNAME = re.compile(r'[^\w-]+')


def hostname_of(name, uuid):
    """Return the host name Nova derives from a server's name.

    Latin-1 only, at most 63 characters (dnsmasq's limit), spaces, dots
    and underscores turned into hyphens, other punctuation dropped, lower
    case, no leading or trailing hyphen.

    :param name: the server's name (None: empty).
    :param uuid: the server's uuid.
    :returns: the host name; ``Server-<uuid>`` if nothing is left.
    """
    name = (name or '').encode('latin-1', 'ignore').decode('latin-1')[:63]
    name = _NOT_HOSTNAME.sub('', _HOSTNAME_SEPARATORS.sub('-', name))
    return name.lower().strip('-') or 'Server-%s' % uuid


def _dump_flavor(flavor):
    return jsonutils.dumps(flavor.obj_to_primitive())


def _load_flavor(text):
    return flavor_obj.Flavor.obj_from_primitive(jsonutils.loads(text))


@db_api.context_manager.writer
def _create(context, values, metadata, tags):
    row = models.Instance(**values)
    context.session.add(row)
    context.session.flush()
    instance_metadata.insert_metadata(context, row.uuid, metadata,
                                      values['created_at'])
    instance_metadata.insert_tags(context, row.uuid, tags,
                                  values['created_at'])
    return row


@db_api.context_manager.reader
def _get(context, uuid):
    """``(row, metadata, tags)`` of the instance, read in one transaction."""
    row = context.session.execute(sa.select(_INSTANCES).where(
        _INSTANCES.c.uuid == uuid)).first()
    if row is None:
        raise exception.InstanceNotFound(instance_id=uuid)
    metadata, tags = instance_metadata.children(context, [uuid])
    return row, metadata[uuid], tags[uuid]


@db_api.context_manager.writer
def _update(context, uuid, values):
    """Apply ``values`` (and a new updated_at) in one UPDATE; concurrent
    updates of different fields both stick, of the same field the last
    one wins, and an instance deleted meanwhile raises InstanceNotFound
    with nothing written.
    """
    if not context.session.execute(_INSTANCES.update().where(
            _INSTANCES.c.uuid == uuid).values(**values)).rowcount:
        raise exception.InstanceNotFound(instance_id=uuid)


@db_api.context_manager.writer
def _destroy(context, uuid, events):
    request_spec.destroy_for_instance(context, uuid)
    gone = bool(context.session.execute(_INSTANCES.delete().where(
        _INSTANCES.c.uuid == uuid)).rowcount)
    if gone:
        # In the same transaction: a delete answered with an error has
        # neither removed the server nor recorded its action.
        instance_action.record(context, uuid, instance_action.DELETE,
                               events)
    return gone


@base.NovaMiniObjectRegistry.register
class Instance(instance_metadata.MetadataWriter,
               base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A server (on a bare-metal node once built)."""

    # Version 1.0: Initial version
    # Version 1.1: metadata, tags, user_data, description, access_ip_v4,
    #              access_ip_v6, config_drive, launch_index, boot_roles,
    #              key_name, launched_at
    # Version 1.2: key_data, task_state, power_state, locked_by,
    #              locked_reason
    # Version 1.3: auto_disk_config
    VERSION = '1.3'

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
        'metadata': fields.DictOfStringsField(),
        'tags': fields.ListOfStringsField(),
        # base64 text, exactly as the compute API received it.
        'user_data': fields.StringField(nullable=True),
        'description': fields.StringField(nullable=True),
        'access_ip_v4': fields.StringField(nullable=True),
        'access_ip_v6': fields.StringField(nullable=True),
        'config_drive': fields.BooleanField(),
        'launch_index': fields.IntegerField(),
        'boot_roles': fields.ListOfStringsField(),
        # The key pair of the boot: its name and public key.
        'key_name': fields.StringField(nullable=True),
        'launched_at': fields.DateTimeField(nullable=True),
        'key_data': fields.StringField(nullable=True),
        # Nova's task state while an action runs (None when idle).
        'task_state': fields.StringField(nullable=True),
        # Nova's power state numbers (nova_mini.objects.instance_power).
        'power_state': fields.IntegerField(nullable=True),
        # 'owner' or 'admin' while locked, None when unlocked.
        'locked_by': fields.StringField(nullable=True),
        'locked_reason': fields.StringField(nullable=True),
        # OS-DCF:diskConfig: AUTO (True) or MANUAL (False).
        'auto_disk_config': fields.BooleanField(default=False),
    }

    # The Flavor version each Instance version carries.
    obj_relationships = {
        'flavor': [('1.0', '1.0')],
    }

    # Fields of 1.1, dropped for 1.0 targets.
    _FIELDS_1_1 = ('metadata', 'tags', 'user_data', 'description',
                   'access_ip_v4', 'access_ip_v6', 'config_drive',
                   'launch_index', 'boot_roles', 'key_name', 'launched_at')
    _FIELDS_1_2 = ('key_data', 'task_state', 'power_state', 'locked_by',
                   'locked_reason')
    _FIELDS_1_3 = ('auto_disk_config',)

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = tuple(int(part) for part in target_version.split('.'))
        if target < (1, 3):
            for name in self._FIELDS_1_3:
                primitive.pop(name, None)
        if target < (1, 2):
            for name in self._FIELDS_1_2:
                primitive.pop(name, None)
        if target < (1, 1):
            for name in self._FIELDS_1_1:
                primitive.pop(name, None)

    @property
    def status(self):
        return instance_task.status_of(self.vm_state, self.task_state)

    @property
    def locked(self):
        return self.locked_by is not None

    @property
    def hostname(self):
        """The host name Nova derives from the server's name: Latin-1
        only, at most 63 characters (dnsmasq's limit), spaces, dots and
        underscores turned into hyphens, other punctuation dropped, lower
        case, no leading or trailing hyphen; ``Server-<uuid>`` if nothing
        is left.
        """
        return hostname_of(self.name, self.uuid)

    @classmethod
    def _from_db_object(cls, context, instance, loaded):
        row, metadata, tags = loaded
        for name in _COLUMNS:
            setattr(instance, name, getattr(row, name))
        instance.flavor = _load_flavor(row.flavor)
        instance.metadata = metadata
        instance.tags = tags
        instance.boot_roles = list(row.boot_roles or [])
        instance._context = context
        # Each level on its own: the flavor holds no object, and a
        # recursive reset costs as much as the rest of loading a row
        # (1000 of them in a page of servers).
        instance.flavor.obj_reset_changes()
        instance.obj_reset_changes()
        return instance

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load an instance with its metadata and tags.

        :param context: the request context.
        :param uuid: the instance's uuid.
        :returns: the Instance.
        :raises nova_mini.exception.InstanceNotFound: there is none (deleted
            instances are gone).
        """
        return cls._from_db_object(context, cls(), _get(context, uuid))

    def create(self):
        """Insert the instance with its metadata and tags (deduplicated).

        :raises nova_mini.exception.MetadataLimitExceeded: past the quota,
            with nothing written.
        """
        values = self.obj_get_changes()
        values['flavor'] = _dump_flavor(self.flavor)
        metadata = values.pop('metadata', None) or {}
        check_metadata_quota(metadata)
        tags = sorted(set(values.pop('tags', None) or []))
        values.setdefault('vm_state', BUILDING)
        values.setdefault('config_drive', False)
        values.setdefault('auto_disk_config', False)
        values.setdefault('launch_index', 0)
        values['boot_roles'] = list(values.get('boot_roles') or [])
        # Copies for server lists to filter and sort on.
        values['hostname'] = hostname_of(values.get('name'), values['uuid'])
        values['flavorid'] = self.flavor.flavorid
        # What the project's cores and ram quotas count (objects/compute/quota.py).
        values['vcpus'] = self.flavor.vcpus
        values['memory_mb'] = self.flavor.memory_mb
        now = timeutils.utcnow()
        values.setdefault('created_at', now)
        values.setdefault('updated_at', now)
        row = _create(self._context, values, metadata, tags)
        self._from_db_object(self._context, self, _get(self._context,
                                                       row.uuid))

    def update_details(self, **values):
        """Change ``name``, ``description``, ``access_ip_v4``,
        ``access_ip_v6`` or ``auto_disk_config`` (PUT /servers/{id}).

        One UPDATE, which also sets updated_at, settles the race with a
        deletion.

        :param values: the fields and their new values.
        :raises ValueError: a field that cannot be changed.
        :raises nova_mini.exception.InstanceNotFound: the row is gone,
            nothing written.
        """
        unknown = set(values) - _UPDATABLE
        if unknown:
            raise ValueError('Not updatable: %s' % ', '.join(sorted(unknown)))
        values['updated_at'] = timeutils.utcnow()
        written = dict(values)
        if 'name' in values:
            written['hostname'] = hostname_of(values['name'], self.uuid)
        _update(self._context, self.uuid, written)
        for name, value in values.items():
            setattr(self, name, value)
        self.obj_reset_changes(list(values))

    def set_description(self, description):
        """Set the description (and updated_at); see update_details()."""
        self.update_details(description=description)

    def destroy(self):
        """Delete the instance's row and its RequestSpec, and record the
        delete action (with Nova's compute event when the instance has a
        node), all in one transaction.

        :returns: False if it was gone already (nothing recorded then).
        """
        # As Nova: the compute manager's event where the server has a
        # node (a server that never got one is deleted by the API alone).
        events = ([('compute_terminate_instance', self.node_uuid)]
                  if self.node_uuid else [])
        return _destroy(self._context, self.uuid, events)

    def _finish(self, values, created_before=None):
        values['updated_at'] = timeutils.utcnow()
        if not instance_build.finish_building(self._context, self.uuid,
                                              values, created_before):
            return False
        for name, value in values.items():
            setattr(self, name, value)
        self.obj_reset_changes()
        return True

    def mark_active(self, node_uuid, config_drive=False):
        """Move a build to ACTIVE on ``node_uuid``.

        :param node_uuid: the node the instance was deployed on.
        :param config_drive: whether it was given a config drive: the
            server then keeps ``config_drive`` true (a drive that
            ``force_config_drive`` or the image asked for too, as Nova
            records it).
        :returns: False if it was no longer building (deleted, failed or
            expired meanwhile).
        """
        values = {'vm_state': ACTIVE, 'node_uuid': node_uuid, 'fault': None,
                  'launched_at': timeutils.utcnow()}
        if config_drive:
            values['config_drive'] = True
        return self._finish(values)

    def mark_error(self, message, code=500, details=None):
        """Move a build to ERROR with a fault.

        :param message: the fault's message.
        :param code: the fault's HTTP status code.
        :param details: the fault's details.
        :returns: False if it was no longer building.
        """
        fault = instance_build.make_fault(message, code, details)
        return self._finish({'vm_state': ERROR, 'fault': fault})

    def build_overdue(self, timeout, now=None):
        """Return whether the build started more than ``timeout`` seconds ago.

        :param timeout: the seconds a build may last.
        :param now: the time compared with (default: now).
        :returns: a bool (False unless building).
        """
        return instance_build.is_overdue(self.vm_state, self.created_at,
                                         timeout, now or timeutils.utcnow())

    def expire_build(self, timeout):
        """Fail the build if it is still going ``timeout`` seconds after the
        instance was created ("Timed out waiting for a scheduler").

        :param timeout: the seconds a build may last.
        :returns: whether it failed the build.
        """
        now = timeutils.utcnow()
        if not self.build_overdue(timeout, now):
            return False
        cutoff = now - datetime.timedelta(seconds=timeout)
        return self._finish(instance_build.expired_values(timeout),
                            created_before=cutoff)
