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

"""Node: a bare-metal node; its traits load on demand (lists of nodes:
node_list).
"""

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_mini.conductor import drivers as conductor_drivers
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.db import retry as db_retry
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini.objects.baremetal import bios_setting
from nova_mini.objects.baremetal import db_row
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.objects.baremetal import node_provision
from nova_mini.objects.baremetal import node_trait
from nova_mini.objects.baremetal import node_volume
from nova_mini.objects import base
from nova_mini.objects import fields
from nova_mini import states


LOG = logging.getLogger(__name__)
_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__
_PORTS = models.Port.__table__
_GROUPS = models.Portgroup.__table__

# Columns, as fields of the same name (traits are not a column).
COLUMNS = ('id', 'uuid', 'name', 'driver', 'driver_info', 'resource_class',
           'properties', 'provision_state', 'target_provision_state',
           'provision_updated_at', 'power_state', 'target_power_state',
           'maintenance', 'maintenance_reason', 'instance_uuid',
           'instance_info', 'extra', 'last_error', 'owner', 'lessee',
           'created_at', 'updated_at') + node_interfaces.FIELDS + (
    'chassis_id', 'console_enabled', 'driver_internal_info',
    'conductor_group', 'automated_clean', 'protected', 'protected_reason',
    'description', 'retired', 'retired_reason', 'inspection_started_at',
    'inspection_finished_at', 'target_raid_config', 'raid_config',
    'reservation')


_DICTS = ('driver_info', 'properties', 'instance_info', 'extra',
          'driver_internal_info', 'target_raid_config', 'raid_config')

# Columns a node list may be sorted by: not the JSON documents.
SORT_KEYS = tuple(c for c in COLUMNS if c not in _DICTS)

# Columns copying the node's size from ``properties`` (capacity_of).
CAPACITY = ('cpus', 'memory_mb', 'local_gb')

# The largest value an INTEGER column holds on every database.
_MAX_AMOUNT = 2 ** 31 - 1


def _amount(value):
    if isinstance(value, bool):
        return int(value)
    try:
        amount = int(value)
    except (TypeError, ValueError):
        return 0
    return min(max(amount, 0), _MAX_AMOUNT)


def capacity_of(properties):
    """Return the CAPACITY columns of a node with ``properties``.

    :param properties: the node's properties (None: none).
    :returns: ``{column: whole number}``, from ``16384`` or ``"16384"``;
        0 where absent or not a number.
    """
    properties = properties or {}
    return {name: _amount(properties.get(name)) for name in CAPACITY}


@db_api.context_manager.writer
def _destroy(context, node_id, node_ident):
    # Traits first: the foreign key cascades too, but not every SQLite
    # connection enforces foreign keys.
    context.session.execute(_TRAITS.delete().where(
        _TRAITS.c.node_id == node_id))
    context.session.execute(_PORTS.delete().where(
        _PORTS.c.node_id == node_id))
    context.session.execute(_GROUPS.delete().where(
        _GROUPS.c.node_id == node_id))
    allocation_obj.destroy_of_node(context, node_id)
    node_volume.destroy_of_node(context, node_id)
    bios_setting.destroy_of_node(context, node_id)
    if not context.session.execute(_NODES.delete().where(
            _NODES.c.id == node_id)).rowcount:
        raise exception_baremetal.NodeNotFound(node=node_ident)


@base.NovaMiniObjectRegistry.register
class Node(db_row.DBRow, base.NovaMiniPersistentObject,
           base.NovaMiniObject):
    """A bare-metal node; ``traits`` (a NodeTraitList) loads on demand."""

    # Version 1.0: Initial version
    # Version 1.1: owner, lessee
    # Version 1.2: hardware interfaces, chassis_id, console_enabled,
    #              driver_internal_info, conductor_group, automated_clean,
    #              protected, description, retired (and their reasons)
    # Version 1.3: inspection_started_at, inspection_finished_at
    # Version 1.4: target_raid_config, raid_config
    # Version 1.5: reservation
    VERSION = '1.5'
    MODEL = models.Node
    COLUMNS = COLUMNS
    EMPTY = dict.fromkeys(_DICTS, {})

    _FIELDS_1_1 = ('owner', 'lessee')
    _FIELDS_1_2 = node_interfaces.FIELDS + (
        'chassis_id', 'console_enabled', 'driver_internal_info',
        'conductor_group', 'automated_clean', 'protected',
        'protected_reason', 'description', 'retired', 'retired_reason')
    _FIELDS_1_3 = ('inspection_started_at', 'inspection_finished_at')
    _FIELDS_1_4 = ('target_raid_config', 'raid_config')
    _FIELDS_1_5 = ('reservation',)

    fields = {
        'id': fields.IntegerField(),
        'uuid': fields.UUIDField(),
        'name': fields.StringField(nullable=True),
        'driver': fields.StringField(),
        'driver_info': fields.FlexibleDictField(nullable=True),
        'resource_class': fields.StringField(nullable=True),
        'properties': fields.FlexibleDictField(nullable=True),
        'provision_state': fields.StringField(nullable=True),
        'target_provision_state': fields.StringField(nullable=True),
        'provision_updated_at': fields.DateTimeField(nullable=True),
        'power_state': fields.StringField(nullable=True),
        'target_power_state': fields.StringField(nullable=True),
        'maintenance': fields.BooleanField(),
        'maintenance_reason': fields.StringField(nullable=True),
        'instance_uuid': fields.UUIDField(nullable=True),
        'instance_info': fields.FlexibleDictField(nullable=True),
        'extra': fields.FlexibleDictField(nullable=True),
        'last_error': fields.StringField(nullable=True),
        'owner': fields.StringField(nullable=True),
        'lessee': fields.StringField(nullable=True),
        'traits': fields.ObjectField('NodeTraitList', nullable=True),
        'chassis_id': fields.IntegerField(nullable=True),
        'console_enabled': fields.BooleanField(default=False),
        'driver_internal_info': fields.FlexibleDictField(nullable=True),
        'conductor_group': fields.StringField(nullable=True),
        'automated_clean': fields.BooleanField(nullable=True),
        'protected': fields.BooleanField(default=False),
        'protected_reason': fields.StringField(nullable=True),
        'description': fields.StringField(nullable=True),
        'retired': fields.BooleanField(default=False),
        'retired_reason': fields.StringField(nullable=True),
        'inspection_started_at': fields.DateTimeField(nullable=True),
        'inspection_finished_at': fields.DateTimeField(nullable=True),
        'target_raid_config': fields.FlexibleDictField(nullable=True),
        'raid_config': fields.FlexibleDictField(nullable=True),
        # Written by the conductors only (nova_mini.conductor.task_manager).
        'reservation': fields.StringField(nullable=True),
        **{name: fields.StringField(nullable=True)
           for name in node_interfaces.FIELDS},
    }

    # The NodeTraitList version each Node version carries.
    obj_relationships = {
        'traits': [('1.0', '1.0')],
    }

    def obj_make_compatible(self, primitive, target_version):
        super().obj_make_compatible(primitive, target_version)
        target = tuple(int(part) for part in target_version.split('.'))
        dropped = ()
        if target < (1, 5):
            dropped += self._FIELDS_1_5
        if target < (1, 4):
            dropped += self._FIELDS_1_4
        if target < (1, 3):
            dropped += self._FIELDS_1_3
        if target < (1, 2):
            dropped += self._FIELDS_1_2
        if target < (1, 1):
            dropped += self._FIELDS_1_1
        for name in dropped:
            primitive.pop(name, None)

    @staticmethod
    def _not_found(ident):
        return exception_baremetal.NodeNotFound(node=ident)

    @classmethod
    def _duplicate(cls, exc, values, ident):
        if cls._duplicate_of(exc, 'name'):
            return exception_baremetal.NodeNameExists(name=values.get('name'))
        if cls._duplicate_of(exc, 'instance_uuid'):
            return exception_baremetal.InstanceAssociated(
                instance_uuid=values.get('instance_uuid'), node=ident)
        return exception_baremetal.NodeExists(uuid=values.get('uuid'))

    @staticmethod
    def _missing_reference(exc, values):
        # The chassis was deleted between its lookup and this write.
        return exception.Invalid('Chassis %s could not be found.'
                                 % values.get('chassis_id'))

    @classmethod
    def _from_db_object(cls, context, node, row, traits=None):
        """Fill ``node`` from its ``row``, with its ``traits`` (names)
        if given (else they load on demand).
        """
        if traits is not None:
            node.traits = node_trait.NodeTraitList._from_names(
                context, row.id, traits)
        return super()._from_db_object(context, node, row)

    def obj_load_attr(self, attrname):
        """Load ``traits`` on first access (the only lazy field)."""
        if attrname != 'traits':
            raise NotImplementedError('Cannot load %s on demand' % attrname)
        self.traits = node_trait.NodeTraitList.get_by_node_id(
            self._context, self.id)
        self.obj_reset_changes(['traits'])

    @classmethod
    def get_by_uuid(cls, context, uuid):
        """Load the node of uuid ``uuid``; NodeNotFound if none."""
        return cls._get_by(context, 'uuid', uuid)

    @classmethod
    def get_by_name(cls, context, name):
        """Load the node named ``name``; NodeNotFound if none."""
        return cls._get_by(context, 'name', name)

    @classmethod
    def get_by_id(cls, context, node_id):
        """Load the node of id ``node_id``; NodeNotFound if none."""
        return cls._get_by(context, 'id', node_id)

    def create(self):
        """Insert the node (traits are set afterwards, with NodeTraitList).

        :raises nova_mini.exception.Invalid: traits were given.
        :raises nova_mini.exception_baremetal.NodeExists: its uuid is taken
            (NodeNameExists: its name).
        """
        values = self.obj_get_changes()
        if 'traits' in values:
            raise exception.Invalid('Node traits are set with their own '
                                    'methods, not on creation.')
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('maintenance', False)
        values.setdefault('provision_state', states.ENROLL)
        values.setdefault('power_state', states.POWER_OFF)
        for name in ('console_enabled', 'protected', 'retired'):
            values.setdefault(name, False)
        if values.get('conductor_group') is None:
            values['conductor_group'] = ''
        if values['driver'] in node_interfaces.HARDWARE_TYPES:
            # The interfaces given were checked by the caller (the API,
            # against the conductors' registrations): only those left
            # unset are filled in.
            values = node_interfaces.fill_defaults(
                values['driver'], values, node=values['uuid'])
        values.update(capacity_of(values.get('properties')))
        self.traits = node_trait.NodeTraitList._from_names(
            self._context, None, [])
        self._insert_row(values)

    def save(self):
        """Store the changed fields (not traits: see NodeTraitList).

        :raises nova_mini.exception.Invalid: traits were changed.
        :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
        :raises nova_mini.exception_baremetal.NodeNameExists: its new name is taken.
        """
        values = self.obj_get_changes()
        if values.pop('traits', None) is not None:
            raise exception.Invalid('Node traits are set with their own '
                                    'methods.')
        if 'properties' in values:
            values.update(capacity_of(values['properties']))
        self._update_row(values)

    def destroy(self):
        """Delete the node, its traits, ports, port groups and BIOS
        settings; NodeNotFound if it is gone.
        """
        _destroy(self._context, self.id, self.uuid)

    @classmethod
    def claim(cls, context, node_uuid, instance_uuid, instance_info=None):
        """Give an available node, not in maintenance and without an instance,
        to ``instance_uuid``, atomically.

        :param context: the request context.
        :param node_uuid: the node.
        :param instance_uuid: the instance it is given to.
        :param instance_info: the node's instance_info, set with the claim.
        :returns: True if this call won the node, False if it is gone
            (claimed by another, or no longer available).
        :raises nova_mini.exception_baremetal.InstanceAssociated: the instance has
            another node already.
        """
        return node_provision.claim(context, node_uuid, instance_uuid,
                                    instance_info)

    @classmethod
    def unclaim(cls, context, node_uuid, instance_uuid):
        """Undo ``claim`` of a node not deployed yet.

        :param context: the request context.
        :param node_uuid: the node.
        :param instance_uuid: the instance it was given to.
        :returns: whether it did.
        """
        return node_provision.unclaim(context, node_uuid, instance_uuid)

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """Load the node of instance ``instance_uuid``; NodeNotFound if none.
        """
        return cls._get_by(context, 'instance_uuid', instance_uuid)

    @classmethod
    def rebuild_info(cls, context, node_uuid, instance_uuid, image,
                     auto_disk_config):
        """Write a rebuild's image and disk configuration into the node's
        instance_info while the node is the instance's (see
        nova_mini.objects.baremetal.node_provision); whether it was.
        """
        return node_provision.rebuild_info(context, node_uuid,
                                           instance_uuid, image,
                                           auto_disk_config)

    @classmethod
    def release(cls, context, instance_uuid):
        """Free the node an instance has: undeploy it if it was deployed, else
        undo the claim.

        A deployed node a nova-mini-conductor drives (redfish) is never
        undeployed here: its conductor tears it down (powered off, media
        ejected), see nova_mini.conductor.release.tear_down.

        :param context: the request context.
        :param instance_uuid: the instance.
        :returns: the uuid of the freed node (for a conductor's node: whose
            tear down started), or None if the instance had none (or its
            node was moved meanwhile, or its conductor's work goes on).
        """
        for _attempt in range(3):
            try:
                node = cls.get_by_instance_uuid(context, instance_uuid)
            except exception_baremetal.NodeNotFound:
                return None
            if node.provision_state != states.AVAILABLE:
                break
            if node_provision.unclaim(context, node.uuid, instance_uuid):
                return node.uuid
            # Deployed meanwhile (by the scheduler): read it again.
        else:
            return None
        if node.driver in conductor_drivers.REAL_HARDWARE_TYPES:
            from nova_mini.conductor import release
            return release.tear_down(context, node, instance_uuid)
        # Undeployed only while still this instance's: between the read
        # above and this move, another request may have freed the node and
        # the scheduler given it to another instance.
        try:
            node.set_provision_state(states.UNDEPLOY,
                                     instance_uuid=instance_uuid)
        except (exception_baremetal.InvalidStateRequested, exception_baremetal.NodeClaimLost):
            # Moved meanwhile (by an operator, or to another instance):
            # leave it alone.
            return None
        return node.uuid

    @classmethod
    def release_of_deleted(cls, context, instance_uuid):
        """``release`` the node of an instance just deleted, or leave it
        claimed when the database is away or stays busy: the deletion is
        done and must be answered so, and the node is then an orphan claim,
        which the schedulers' periodic clean-up frees
        (nova_mini.scheduler.orphan_claims).

        :returns: the uuid of the freed node, or None.
        """
        try:
            return cls.release(context, instance_uuid)
        except db_retry.UNAVAILABLE as exc:
            LOG.warning('Deleted instance %s but could not free its node '
                        'now (%s): the schedulers\' clean-up will',
                        instance_uuid, exc)
            return None

    def set_provision_state(self, action, instance_uuid=None,
                            rescue_password=None, clean_steps=None,
                            configdrive=None):
        """Perform the provision ``action`` (a states.TRANSITIONS key).

        The state, maintenance and, for a deploy, the traits are checked in
        the transaction that moves the node.

        :param action: the action.
        :param instance_uuid: the instance the node must still be claimed
            by (a scheduler deploying its claim), checked with the move.
        :param rescue_password: the password of a rescue (stored in
            instance_info, see nova_mini.objects.baremetal.node_rescue).
        :param clean_steps: the steps of a cleaning, run in the same
            transaction (see nova_mini.objects.baremetal.node_clean).
        :param configdrive: the config drive of a deploy (states.DEPLOY) or
            rebuild: gzip + base64 ISO text or a URL, stored in
            ``instance_info['configdrive']`` in the move's transaction
            (masked by the API; cleared by the undeploy). None: a deploy
            stores none, a rebuild keeps the node's.
        :raises nova_mini.exception.Invalid: a config drive with another
            action.
        :raises nova_mini.exception_baremetal.InvalidStateRequested: not from the
            node's state.
        :raises nova_mini.exception_baremetal.NodeClaimLost: the node is claimed by
            another instance, or by none, now.
        :raises nova_mini.exception_baremetal.NodeInMaintenance: in maintenance.
        :raises nova_mini.exception_baremetal.MissingNodeTraits: a deploy to a node
            lacking traits its instance_info asks for.
        :raises nova_mini.exception_baremetal.InstanceRescueFailure: a rescue
            with the no-rescue interface.
        :raises nova_mini.exception_baremetal.UnsupportedDriverExtension: an
            inspection with the no-inspect interface.
        :raises nova_mini.exception_baremetal.NodeNotFound: the node is gone.
        """
        values = node_provision.set_provision_state(
            self._context, self, action, instance_uuid=instance_uuid,
            rescue_password=rescue_password, clean_steps=clean_steps,
            configdrive=configdrive)
        for name, value in values.items():
            setattr(self, name, value)
        self.obj_reset_changes()
