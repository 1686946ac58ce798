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

"""Node and NodeList: bare-metal nodes; their traits load on demand."""

from oslo_db import exception as db_exc
from oslo_db.sqlalchemy import utils as sqlalchemyutils
from oslo_utils import timeutils
from oslo_utils import uuidutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import fields
from nova_mini.objects import node_filters
from nova_mini.objects import node_trait
from nova_mini import states

_NODES = models.Node.__table__
_TRAITS = models.NodeTrait.__table__

# Columns, as fields of the same name (traits are not a column).
COLUMNS = ('id', 'uuid', 'name', 'driver', 'driver_info', 'resource_class',
           'properties', 'provision_state', 'target_provision_state',
           'provision_updated_at', 'power_state', 'target_power_state',
           'maintenance', 'maintenance_reason', 'instance_uuid',
           'instance_info', 'extra', 'last_error', 'created_at',
           'updated_at')
_DICTS = ('driver_info', 'properties', 'instance_info', 'extra')
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
    """The CAPACITY columns of a node with ``properties``: whole numbers
    (``16384`` or ``"16384"``), 0 where absent or not a number.
    """
    properties = properties or {}
    return {name: _amount(properties.get(name)) for name in CAPACITY}


def _duplicate(exc, values, node_ident):
    columns = set(exc.columns or ())
    if 'name' in columns or 'uniq_nodes0name' in columns:
        return exception.NodeNameExists(name=values.get('name'))
    if 'instance_uuid' in columns or 'uniq_nodes0instance_uuid' in columns:
        return exception.InstanceAssociated(
            instance_uuid=values.get('instance_uuid'), node=node_ident)
    return exception.NodeExists(uuid=values.get('uuid'))


@db_api.context_manager.writer
def _create(context, values):
    row = models.Node(**values)
    context.session.add(row)
    try:
        context.session.flush()
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values, values.get('uuid'))
    return row


@db_api.context_manager.reader
def _get(context, column, value):
    row = context.session.query(models.Node).filter(
        getattr(models.Node, column) == value).first()
    if row is None:
        raise exception.NodeNotFound(node=value)
    return row


@db_api.context_manager.writer
def _update(context, node_id, node_ident, values):
    try:
        count = context.session.execute(_NODES.update().where(
            _NODES.c.id == node_id).values(**values)).rowcount
    except db_exc.DBDuplicateEntry as exc:
        raise _duplicate(exc, values, node_ident)
    if not count:
        raise exception.NodeNotFound(node=node_ident)


@db_api.context_manager.writer
def _destroy(context, node_id, node_ident):
    # Traits first: the foreign key cascades too, but not every SQLite
    # connection enforces foreign keys.
    context.session.execute(_TRAITS.delete().where(
        _TRAITS.c.node_id == node_id))
    if not context.session.execute(_NODES.delete().where(
            _NODES.c.id == node_id)).rowcount:
        raise exception.NodeNotFound(node=node_ident)


def required_traits(instance_info):
    """The traits an instance asks for in ``instance_info['traits']``."""
    traits = (instance_info or {}).get('traits') or []
    if not isinstance(traits, list) or not all(
            isinstance(trait, str) for trait in traits):
        raise exception.Invalid(
            'instance_info.traits must be a list of strings, not %r'
            % (traits,))
    return traits


def missing_traits(instance_info, node_traits):
    """Traits of ``instance_info`` the node does not have, sorted."""
    return sorted(set(required_traits(instance_info)) - set(node_traits))


@db_api.context_manager.writer
def _set_provision_state(context, node, action):
    """Move the node for ``action`` (a states.TRANSITIONS key), checking
    its state, maintenance and, for a deploy, its traits in the same
    transaction as the move, so that no concurrent change slips between.
    """
    sources, target, power = states.TRANSITIONS[action]
    now = timeutils.utcnow()
    values = {'provision_state': target, 'target_provision_state': None,
              'power_state': power, 'provision_updated_at': now,
              'updated_at': now, 'last_error': None}
    if action == states.UNDEPLOY:
        values.update(instance_info={}, instance_uuid=None)
    # The update comes first: it locks the row (see node_trait).
    count = context.session.execute(_NODES.update().where(
        _NODES.c.id == node.id,
        _NODES.c.provision_state.in_(sources)).values(**values)).rowcount
    row = context.session.execute(sa.select(
        _NODES.c.provision_state, _NODES.c.maintenance,
        _NODES.c.instance_info).where(_NODES.c.id == node.id)).first()
    if row is None:
        raise exception.NodeNotFound(node=node.uuid)
    if not count:
        raise exception.InvalidStateRequested(
            action=action, node=node.uuid, state=row.provision_state)
    if action == states.DEPLOY:
        if row.maintenance:
            raise exception.NodeInMaintenance(action=action, node=node.uuid)
        missing = missing_traits(row.instance_info,
                                 node_trait._names(context, node.id))
        if missing:
            raise exception.MissingNodeTraits(node=node.uuid,
                                              missing=', '.join(missing))
    return values


@db_api.context_manager.writer
def _claim(context, node_uuid, instance_uuid, instance_info):
    """Give the node to the instance if nobody has it yet; whether it did.

    One conditional UPDATE: the database, not a read before the write,
    decides which of several concurrent schedulers wins a node.
    """
    values = {'instance_uuid': instance_uuid, 'updated_at': timeutils.utcnow()}
    if instance_info is not None:
        values['instance_info'] = instance_info
    try:
        return bool(context.session.execute(_NODES.update().where(
            _NODES.c.uuid == node_uuid,
            _NODES.c.instance_uuid.is_(None),
            _NODES.c.provision_state == states.AVAILABLE,
            _NODES.c.maintenance.is_(False)).values(**values)).rowcount)
    except db_exc.DBDuplicateEntry:
        # The instance already has another node.
        raise exception.InstanceAssociated(instance_uuid=instance_uuid,
                                           node=node_uuid)


@db_api.context_manager.writer
def _unclaim(context, node_uuid, instance_uuid):
    return bool(context.session.execute(_NODES.update().where(
        _NODES.c.uuid == node_uuid,
        _NODES.c.instance_uuid == instance_uuid,
        _NODES.c.provision_state == states.AVAILABLE).values(
            instance_uuid=None, instance_info={},
            updated_at=timeutils.utcnow())).rowcount)


@base.NovaMiniObjectRegistry.register
class Node(base.NovaMiniPersistentObject, base.NovaMiniObject):
    """A bare-metal node; ``traits`` (a NodeTraitList) loads on demand."""

    # Version 1.0: Initial version
    VERSION = '1.0'

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
        'traits': fields.ObjectField('NodeTraitList', nullable=True),
    }

    @classmethod
    def _from_db_object(cls, context, node, row, traits=None):
        for name in COLUMNS:
            value = getattr(row, name)
            if name in _DICTS and value is None:
                value = {}
            setattr(node, name, value)
        if traits is not None:
            node.traits = node_trait.NodeTraitList._from_names(
                context, row.id, traits)
        node._context = context
        node.obj_reset_changes()
        return node

    def obj_load_attr(self, attrname):
        if attrname != 'traits':
            raise NotImplementedError('Cannot load %s on demand' % attrname)
        self.traits = node_trait.NodeTraitList.get_by_node_id(
            self._context, self.id)
        self.obj_reset_changes(['traits'])

    @classmethod
    def get_by_uuid(cls, context, uuid):
        return cls._from_db_object(context, cls(), _get(context, 'uuid', uuid))

    @classmethod
    def get_by_name(cls, context, name):
        return cls._from_db_object(context, cls(), _get(context, 'name', name))

    @classmethod
    def get_by_id(cls, context, node_id):
        return cls._from_db_object(context, cls(),
                                   _get(context, 'id', node_id))

    def create(self):
        values = self.obj_get_changes()
        if 'traits' in values:
            raise exception.Invalid('Node traits are set with their own '
                                    'methods, not on creation.')
        values.setdefault('uuid', uuidutils.generate_uuid())
        values.setdefault('maintenance', False)
        values.setdefault('provision_state', states.ENROLL)
        values.setdefault('power_state', states.POWER_OFF)
        for name in _DICTS:
            values.setdefault(name, {})
        values.update(capacity_of(values['properties']))
        row = _create(self._context, values)
        self._from_db_object(self._context, self, row, traits=[])

    def save(self):
        """Store the changed fields (not traits: see NodeTraitList)."""
        values = self.obj_get_changes()
        if values.pop('traits', None) is not None:
            raise exception.Invalid('Node traits are set with their own '
                                    'methods.')
        if 'properties' in values:
            values.update(capacity_of(values['properties']))
        if values:
            values['updated_at'] = timeutils.utcnow()
            _update(self._context, self.id, self.uuid, values)
            self.updated_at = values['updated_at']
        self.obj_reset_changes()

    def destroy(self):
        _destroy(self._context, self.id, self.uuid)

    @classmethod
    def claim(cls, context, node_uuid, instance_uuid, instance_info=None):
        """Atomically give an available node, not in maintenance and
        without an instance, to ``instance_uuid`` (and set its
        ``instance_info`` if given). True if this call won the node, False
        if it is gone (claimed by another, or no longer available).
        """
        return _claim(context, node_uuid, instance_uuid, instance_info)

    @classmethod
    def unclaim(cls, context, node_uuid, instance_uuid):
        """Undo ``claim`` of a node not deployed yet; whether it did."""
        return _unclaim(context, node_uuid, instance_uuid)

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        return cls._from_db_object(
            context, cls(), _get(context, 'instance_uuid', instance_uuid))

    @classmethod
    def release(cls, context, instance_uuid):
        """Free the node ``instance_uuid`` has, if any: undeploy it if it
        was deployed, else undo the claim. The uuid of the freed node, or
        None if the instance had none.
        """
        try:
            node = cls.get_by_instance_uuid(context, instance_uuid)
        except exception.NodeNotFound:
            return None
        if node.provision_state == states.AVAILABLE:
            _unclaim(context, node.uuid, instance_uuid)
        else:
            try:
                node.set_provision_state(states.UNDEPLOY)
            except exception.InvalidStateRequested:
                # Moved meanwhile (by an operator); leave it alone.
                return None
        return node.uuid

    def set_provision_state(self, action):
        """Perform the provision ``action`` (states.TRANSITIONS)."""
        values = _set_provision_state(self._context, self, action)
        for name, value in values.items():
            setattr(self, name, value)
        self.obj_reset_changes()


@db_api.context_manager.reader
def _get_all(context, filters, sort_key, sort_dir, limit, marker,
             with_traits):
    query = node_filters.apply(context.session.query(models.Node), filters)
    marker_row = None
    if marker is not None:
        marker_row = context.session.query(models.Node).filter_by(
            uuid=marker).first()
        if marker_row is None:
            raise exception.MarkerNotFound(marker=marker)
    if sort_key not in SORT_KEYS:
        raise exception.InvalidSortKey(sort_key=sort_key)
    keys = [sort_key] if sort_key == 'id' else [sort_key, 'id']
    query = sqlalchemyutils.paginate_query(
        query, models.Node, limit, keys, marker=marker_row,
        sort_dir=sort_dir)
    rows = query.all()
    traits = None
    if with_traits:
        traits = node_trait.get_names_by_node_ids(
            context, [row.id for row in rows])
    return rows, traits


@base.NovaMiniObjectRegistry.register
class NodeList(base.ObjectListBase, base.NovaMiniObject):
    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'objects': fields.ListOfObjectsField('Node'),
    }

    @classmethod
    def get_all(cls, context, filters=None, sort_key='id', sort_dir='asc',
                limit=None, marker=None, with_traits=False):
        """Nodes matching ``filters`` (see node_filters), evaluated by the
        database; ``with_traits`` loads their traits in one more query.
        """
        rows, traits = _get_all(context, filters or {}, sort_key, sort_dir,
                                limit, marker, with_traits)
        result = cls(context)
        result.objects = [
            Node._from_db_object(context, Node(), row,
                                 traits[row.id] if traits is not None else None)
            for row in rows]
        result.obj_reset_changes()
        return result
