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

"""A node's provision-state moves and claims, each one conditional
statement so that the database settles concurrent requests, and the
traits a deploy needs. nova_mini.objects.baremetal.node exposes them as
Node.set_provision_state, Node.claim, Node.unclaim and Node.release.

A deploy makes the project of the node's instance its lessee when it has
none, as Ironic's conductor does by default (``[conductor]
automatic_lessee_source = instance``), recording the project in
``instance_info['project_id']`` (where Nova puts it); the undeploy takes
that lessee away again, and leaves any other.

A claim writes the node's ``instance_info`` (``instance_info``): the
traits the deploy needs and, when the image was read from Glance, what
Nova's Ironic driver and Ironic's conductor record of it:
``image_source`` (the image id, as Nova's driver sets it) and
``image_properties``, ``image_checksum``, ``image_disk_format``,
``image_container_format``, ``image_tags``, ``image_os_hash_algo``,
``image_os_hash_value`` (Ironic's names for the image's properties and
attributes).

A deploy (and a rebuild) writes the root partition of the server's disk
configuration (``OS-DCF:diskConfig``) as ``root_gb``, the key Ironic's
partition-image deploy sizes the root partition by: MANUAL, the flavor's
disk (what Nova's Ironic driver writes); AUTO, the node's whole disk (its
``local_gb``, the flavor's disk if the node states none), as Nova grows
an AUTO server's root partition to fill its disk. ``auto_disk_config``
records which one it was. A rebuild replaces the image keys with those
of the new image.
"""

from oslo_db import exception as db_exc
from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import allocation as allocation_obj
from nova_mini.objects.baremetal import node_clean
from nova_mini.objects.baremetal import node_deploy
from nova_mini.objects.baremetal import node_inspect
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.objects.baremetal import node_rescue
from nova_mini.objects.baremetal import node_trait
from nova_mini.objects.compute import flavor as flavor_obj
from nova_mini import states

_NODES = models.Node.__table__
_INSTANCES = models.Instance.__table__


def required_traits(instance_info):
    """Return the traits an instance asks for in ``instance_info['traits']``.

    :param instance_info: the node's instance_info (None: none).
    :returns: a list of trait names.
    :raises nova_mini.exception.Invalid: they are not a list of strings.
    """
    traits = (instance_info or {}).get('traits') or []
    if not isinstance(traits, list) or not all(
            isinstance(trait, str) for trait in traits):
        raise exception.Invalid(
            'instance_info.traits must be a list of strings, not %r'
            % (traits,))
    return traits


def missing_traits(instance_info, node_traits):
    """Return the traits ``instance_info`` asks for that the node lacks.

    :param instance_info: the node's instance_info.
    :param node_traits: the node's trait names.
    :returns: a sorted list.
    :raises nova_mini.exception.Invalid: as required_traits.
    """
    return sorted(set(required_traits(instance_info)) - set(node_traits))


# instance_info key -> ImageMeta attribute, as Ironic's conductor records
# the image of a deploy.
_IMAGE_FIELDS = (
    ('image_checksum', 'checksum'),
    ('image_disk_format', 'disk_format'),
    ('image_container_format', 'container_format'),
    ('image_os_hash_algo', 'os_hash_algo'),
    ('image_os_hash_value', 'os_hash_value'),
)


_IMAGE_KEYS = ('image_source', 'image_properties', 'image_tags') + tuple(
    key for key, _name in _IMAGE_FIELDS)


def image_info(image):
    """Return the ``instance_info`` keys of ``image`` (see the module):
    none for an image not read from Glance ([api] auth_strategy =
    noauth2 without [glance] endpoint_override).

    :param image: an ImageMeta, or None.
    :returns: a dict.
    """
    if image is None or image.get('status') is None:
        return {}
    info = {'image_source': image.id,
            'image_properties': dict(image.get('raw_properties', {})),
            'image_tags': list(image.get('tags', []))}
    for key, name in _IMAGE_FIELDS:
        info[key] = image.get(name)
    return info


def instance_info(spec):
    """Return the ``instance_info`` a claim for ``spec`` writes (see the
    module).

    :param spec: the RequestSpec.
    :returns: a dict.
    """
    info = {'traits': list(spec.required_traits)}
    info.update(image_info(
        spec.image if spec.obj_attr_is_set('image') else None))
    return info


def disk_layout(root_gb, local_gb, auto_disk_config):
    """Return the ``instance_info`` keys of a server's disk configuration
    (see the module).

    :param root_gb: the flavor's disk (GiB).
    :param local_gb: the node's disk (GiB, 0 when it states none).
    :param auto_disk_config: True for AUTO, False for MANUAL.
    :returns: ``{'root_gb': ..., 'auto_disk_config': ...}``.
    """
    size = (local_gb or root_gb) if auto_disk_config else root_gb
    return {'root_gb': str(size or 0),
            'auto_disk_config': bool(auto_disk_config)}


def _root_gb(flavor_text):
    # The instance's flavor, as the Instance object stores it.
    if not flavor_text:
        return 0
    flavor = flavor_obj.Flavor.obj_from_primitive(
        jsonutils.loads(flavor_text))
    return flavor.root_gb if flavor.obj_attr_is_set('root_gb') else 0


@db_api.context_manager.writer
def rebuild_info(context, node_uuid, instance_uuid, image,
                 auto_disk_config, traits=None, configdrive=None):
    """Write the new image and disk configuration of a rebuild into the
    node's ``instance_info`` while the node is the instance's; whether it
    was.

    :param image: the new ImageMeta.
    :param auto_disk_config: the server's disk configuration.
    :param traits: the traits the deploy needs now (the RequestSpec's
        required traits with the new image), or None to keep them.
    :param configdrive: the rebuilt server's config drive (gzip + base64),
        or None for a server without one: the node keeps no drive of what
        the server was.
    """
    row = context.session.execute(sa.select(
        _NODES.c.instance_info, _NODES.c.local_gb).where(
            _NODES.c.uuid == node_uuid,
            _NODES.c.instance_uuid == instance_uuid)).first()
    flavor = context.session.execute(sa.select(_INSTANCES.c.flavor).where(
        _INSTANCES.c.uuid == instance_uuid)).scalar()
    if row is None:
        return False
    info = {key: value for key, value in (row.instance_info or {}).items()
            if key not in _IMAGE_KEYS}
    info.update(image_info(image))
    if traits is not None:
        info['traits'] = list(traits)
    info.pop('configdrive', None)
    if configdrive is not None:
        info['configdrive'] = configdrive
    info.update(disk_layout(_root_gb(flavor), row.local_gb,
                            auto_disk_config))
    return bool(context.session.execute(_NODES.update().where(
        _NODES.c.uuid == node_uuid,
        _NODES.c.instance_uuid == instance_uuid).values(
            instance_info=info,
            updated_at=timeutils.utcnow())).rowcount)


@db_api.context_manager.writer
def set_provision_state(context, node, action, instance_uuid=None,
                        rescue_password=None, clean_steps=None,
                        configdrive=None):
    """Move the node for ``action``, checking its state, maintenance and,
    for a deploy, its traits in the same transaction as the move, so that
    no concurrent change slips between (a rescue's writes: see
    objects.baremetal.node_rescue).

    :param context: the request context.
    :param node: the Node (its id and uuid are read).
    :param action: a states.TRANSITIONS key.
    :param instance_uuid: the instance the node must still be claimed by
        (a scheduler deploying its claim): checked in the same conditional
        UPDATE, so a node freed and claimed for another server meanwhile
        is never deployed for this one.
    :param rescue_password: the password of a rescue.
    :param clean_steps: the steps of a cleaning (see objects.baremetal.node_clean).
    :param configdrive: the config drive of a deploy or rebuild (gzip +
        base64 ISO text, or a URL), written to
        ``instance_info['configdrive']`` with the move.
    :returns: the column values written.
    :raises: as Node.set_provision_state.
    """
    sources, target, power = states.TRANSITIONS[action]
    now = timeutils.utcnow()
    values = {'provision_state': target, 'target_provision_state': None,
              'provision_updated_at': now, 'updated_at': now,
              'last_error': None}
    if power is not None:
        values['power_state'] = power
    prior = None
    if action in (states.ABORT, states.MANAGE):
        prior = _prior_state(context, node)
        if action == states.ABORT:
            values['provision_state'] = states.ABORTED.get(
                prior.provision_state, target)
        elif prior.provision_state == states.CLEANFAIL:
            # Ironic's manage event runs nothing from clean failed: the
            # power and the error of the failed cleaning stay.
            del values['power_state'], values['last_error']
    conditions = [_NODES.c.id == node.id,
                  _NODES.c.provision_state.in_(sources)]
    if instance_uuid is not None:
        conditions.append(_NODES.c.instance_uuid == instance_uuid)
    # The update comes first: it locks the row (see node_trait).
    count = context.session.execute(_NODES.update().where(
        *conditions).values(**values)).rowcount
    row = context.session.execute(sa.select(
        _NODES.c.provision_state, _NODES.c.maintenance,
        _NODES.c.instance_info, _NODES.c.instance_uuid,
        _NODES.c.lessee, _NODES.c.local_gb, _NODES.c.driver,
        _NODES.c.maintenance_reason, _NODES.c.driver_internal_info,
        *[_NODES.c[field] for field in node_interfaces.FIELDS]).where(
            _NODES.c.id == node.id)).first()
    if row is None:
        raise exception_baremetal.NodeNotFound(node=node.uuid)
    if not count:
        if instance_uuid is not None and row.instance_uuid != instance_uuid:
            raise exception_baremetal.NodeClaimLost(node=node.uuid,
                                                    instance=instance_uuid)
        raise exception_baremetal.InvalidStateRequested(
            action=action, node=node.uuid, state=row.provision_state)
    more = node_rescue.changes(row, node.uuid, action, rescue_password)
    more.update(node_inspect.changes(row, action))
    more.update(node_clean.changes(context, row, prior, node.id, node.uuid,
                                   action, clean_steps))
    if action == states.DEPLOY:
        if row.maintenance:
            raise exception_baremetal.NodeInMaintenance(action=action, node=node.uuid)
        missing = missing_traits(row.instance_info,
                                 node_trait._names(context, node.id))
        if missing:
            raise exception_baremetal.MissingNodeTraits(node=node.uuid,
                                                        missing=', '.join(missing))
        more = _deploy_info(context, row)
    elif action == states.UNDEPLOY:
        more.update(instance_info={}, instance_uuid=None)
        # As Ironic's tear down: the node's allocation goes with it.
        allocation_obj.destroy_of_node(context, node.id)
        given = (row.instance_info or {}).get('project_id')
        if given and row.lessee == given:
            more['lessee'] = None
    if configdrive is not None:
        more['instance_info'] = with_configdrive(
            more.get('instance_info', row.instance_info), action,
            configdrive)
    if action in node_deploy.ACTIONS:
        traits = required_traits(more.get('instance_info', row.instance_info))
        more.update(node_deploy.changes(context, node, action, more, traits))
    if more:
        context.session.execute(_NODES.update().where(
            _NODES.c.id == node.id).values(**more))
        values.update(more)
    return values


def with_configdrive(info, action, configdrive):
    """Return a copy of ``info`` (a node's instance_info) holding the
    config drive of a deploy or rebuild, where Ironic keeps it; a rebuild
    given none keeps the one the node has, as Ironic's does.

    :raises nova_mini.exception.Invalid: ``action`` is neither.
    """
    if action not in (states.DEPLOY, states.REBUILD):
        raise exception.Invalid(
            'Adding a config drive is only supported when setting '
            'provision state to %s, %s' % (states.DEPLOY, states.REBUILD))
    info = dict(info or {})
    info['configdrive'] = configdrive
    return info


def _prior_state(context, node):
    """Lock the node's row and read its state before a move whose outcome
    depends on it (an abort, a manage from ``clean failed``).

    NOTE: a write first, as node_trait._lock_node explains; the move's
    conditional UPDATE then finds the node as read.
    """
    node_trait._lock_node(context, node.id, node.uuid)
    return context.session.execute(sa.select(
        _NODES.c.provision_state, _NODES.c.target_provision_state).where(
            _NODES.c.id == node.id)).first()


def _deploy_info(context, row):
    """The values a deploy writes for the node's instance: its disk
    configuration, and its project as the node's lessee if the node has
    none (see the module).
    """
    if row.instance_uuid is None:
        return {}
    instance = context.session.execute(sa.select(
        _INSTANCES.c.project_id, _INSTANCES.c.flavor,
        _INSTANCES.c.auto_disk_config).where(
            _INSTANCES.c.uuid == row.instance_uuid)).first()
    if instance is None:
        return {}
    info = dict(row.instance_info or {})
    info.update(disk_layout(_root_gb(instance.flavor), row.local_gb,
                            instance.auto_disk_config))
    more = {'instance_info': info}
    if row.lessee is None and instance.project_id:
        more['lessee'] = instance.project_id
        info['project_id'] = instance.project_id
    return more


@db_api.context_manager.reader
def conductor_deploy_values(context, node, configdrive=None):
    """The values a conductor's deploy (or redeploy) of ``node`` (a Node
    read under its reservation) records before its hardware work, as the
    database deploy records them: the instance's disk configuration
    (``root_gb``, ``auto_disk_config``...) and project (``project_id``,
    and as the node's lessee if it has none) in instance_info, the config
    drive, and the deploy steps of the deploy templates matching the
    instance's traits (``driver_internal_info['deploy_steps']``).

    :returns: a dict of column values; with ``provision_state`` deploy
        failed and ``last_error`` when the steps fail the deploy (nothing
        is to be asked of the hardware then).
    :raises nova_mini.exception_baremetal.DeployStepsRefused: the
        templates' steps cannot be taken as written (400).
    """
    # The stored row (the node is reserved: it is as read).
    row = context.session.execute(sa.select(
        _NODES.c.instance_uuid, _NODES.c.instance_info, _NODES.c.local_gb,
        _NODES.c.lessee).where(_NODES.c.id == node.id)).first()
    more = _deploy_info(context, row)
    info = dict(more.get('instance_info', row.instance_info) or {})
    if configdrive is not None:
        info['configdrive'] = configdrive
    more['instance_info'] = info
    more.update(node_deploy.changes(context, node, states.DEPLOY, more,
                                    required_traits(info)))
    return more


def _claim_statement(with_info):
    # Built once: the claim is on every scheduling request's path, and
    # building the statement took as long as running it (SQLite).
    values = {'instance_uuid': sa.bindparam('new_instance_uuid'),
              'updated_at': sa.bindparam('now')}
    if with_info:
        values['instance_info'] = sa.bindparam(
            'new_instance_info', type_=_NODES.c.instance_info.type)
    return _NODES.update().where(
        _NODES.c.uuid == sa.bindparam('node_uuid'),
        _NODES.c.instance_uuid.is_(None),
        _NODES.c.provision_state == states.AVAILABLE,
        _NODES.c.maintenance.is_(False)).values(**values)


_CLAIM = {with_info: _claim_statement(with_info)
          for with_info in (False, True)}
_UNCLAIM = _NODES.update().where(
    _NODES.c.uuid == sa.bindparam('node_uuid'),
    _NODES.c.instance_uuid == sa.bindparam('old_instance_uuid'),
    _NODES.c.provision_state == states.AVAILABLE).values(
        instance_uuid=None, instance_info={},
        updated_at=sa.bindparam('now'))


@db_api.autocommit
@db_api.context_manager.writer
def claim(context, node_uuid, instance_uuid, instance_info):
    """Give the node to the instance if nobody has it yet.

    One conditional UPDATE: the database, not a read before the write,
    decides which of several concurrent schedulers wins a node.

    :returns: whether it did; see Node.claim for the parameters.
    :raises nova_mini.exception_baremetal.InstanceAssociated: the instance has
        another node already.
    """
    params = {'node_uuid': node_uuid, 'new_instance_uuid': instance_uuid,
              'now': timeutils.utcnow()}
    if instance_info is not None:
        params['new_instance_info'] = instance_info
    try:
        return bool(context.session.execute(
            _CLAIM[instance_info is not None], params).rowcount)
    except db_exc.DBDuplicateEntry:
        # The instance already has another node.
        raise exception_baremetal.InstanceAssociated(instance_uuid=instance_uuid,
                                                     node=node_uuid)


@db_api.autocommit
@db_api.context_manager.writer
def unclaim(context, node_uuid, instance_uuid):
    """Undo ``claim`` of a node still available; whether it did."""
    return bool(context.session.execute(_UNCLAIM, {
        'node_uuid': node_uuid, 'old_instance_uuid': instance_uuid,
        'now': timeutils.utcnow()}).rowcount)
