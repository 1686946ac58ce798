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

"""RequestSpec: what one boot request asks of the scheduler.

A RequestSpec models a request to launch ``num_instances`` instances of one
flavor and image. Besides what the user asked for, it carries the
*requirements* derived from the flavor's extra specs and the image, so that
filters and weighers read attributes and never parse dicts:

* ``requested_groups``: the request groups (objects.request_group):
  the unnumbered one (``resources:<CLASS>=<n>``, ``trait:<NAME>=...``,
  the flavor's VCPU, MEMORY_MB and DISK_GB for the classes no group names,
  the image's required traits) and the numbered ones
  (``resources1:...``, ``trait_gpu:...``); ``group_policy`` from the
  extra spec of that name. Zero amounts are left out.
* ``resources`` (summed per class), ``required_traits`` and
  ``forbidden_traits`` (unions): the merge of the groups, what the one
  bare-metal node chosen must have. A bare-metal flavor asks for
  ``resources:CUSTOM_<X>=1`` and zeroes the others.
* ``capabilities``: ``{name: requirement}`` from ``capabilities:<name>``
  extra specs, matched against what the node reports
  (scheduler.filters.compute_capabilities).

Some fields only make sense for the request being scheduled now and are
never stored with the instance (``PER_REQUEST_FIELDS``: the instance uuids,
nodes to ignore or force, the retry record); ``persistable()`` drops them.

The legacy form, ``(request_spec, filter_properties)`` as nested dicts, is
read by ``from_dict`` and written by ``to_legacy_dict``; one is the inverse
of the other, nothing is lost on the way.

Each instance keeps the persistable part of the spec it was booted with
(table ``request_specs``, one row per instance): ``store()`` writes it, in
the transaction that creates the instances (``InstanceList.create_all``),
``get_by_instance_uuid()`` reads it back, and the rows go with their
instances.
"""

import datetime

from oslo_serialization import jsonutils
from oslo_utils import timeutils
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects.compute import flavor as flavor_obj
from nova_mini.objects import fields
from nova_mini.objects import image_meta
from nova_mini.objects import request_group
from nova_mini.objects import scheduler_retries

RESOURCES_PREFIX = 'resources:'
TRAIT_PREFIX = image_meta.TRAIT_PREFIX
CAPABILITIES_PREFIX = 'capabilities:'
CUSTOM_PREFIX = 'CUSTOM_'

REQUIRED = request_group.REQUIRED
FORBIDDEN = request_group.FORBIDDEN

# Fields of this request only: not stored with the instance, not reused
# when it is rebuilt or moved.
PER_REQUEST_FIELDS = ('instance_uuids', 'ignore_hosts', 'force_nodes',
                      'retry')
# Fields computed from the flavor and image by _derive().
DERIVED_FIELDS = ('resources', 'required_traits', 'forbidden_traits',
                  'capabilities', 'requested_groups', 'group_policy')
# Fields of version 1.1, dropped for 1.0 targets (derived again from the
# 1.0 fields when a 1.0 primitive is read).
FIELDS_1_1 = ('requested_groups', 'group_policy')

_SPECS = models.RequestSpec.__table__

# The retry record of a request (a field of RequestSpec).
SchedulerRetries = scheduler_retries.SchedulerRetries


@db_api.context_manager.writer
def _store(context, instance_uuids, text):
    now = timeutils.utcnow()
    context.session.execute(_SPECS.insert(), [
        {'instance_uuid': uuid, 'spec': text, 'created_at': now,
         'updated_at': now} for uuid in instance_uuids])


@db_api.context_manager.reader
def _load(context, instance_uuid):
    return context.session.execute(sa.select(_SPECS.c.spec).where(
        _SPECS.c.instance_uuid == instance_uuid)).scalar()


@db_api.context_manager.writer
def _save(context, instance_uuid, text):
    now = timeutils.utcnow()
    if not context.session.execute(_SPECS.update().where(
            _SPECS.c.instance_uuid == instance_uuid).values(
                spec=text, updated_at=now)).rowcount:
        _store(context, [instance_uuid], text)


@db_api.context_manager.writer
def destroy_for_instance(context, instance_uuid):
    """Delete the stored spec of an instance (part of its deletion).

    :param context: the request context, in the deletion's transaction.
    :param instance_uuid: the instance's uuid.
    """
    context.session.execute(_SPECS.delete().where(
        _SPECS.c.instance_uuid == instance_uuid))


def _derive(flavor, image):
    """The requirements (DERIVED_FIELDS) of ``flavor`` and ``image``."""
    groups, group_policy = request_group.from_extra_specs(
        flavor, image.properties.traits_required if image else ())
    resources, required, forbidden = request_group.merge(groups)
    capabilities = {
        key[len(CAPABILITIES_PREFIX):]: value
        for key, value in flavor.extra_specs.items()
        if key.startswith(CAPABILITIES_PREFIX)}
    return {
        'resources': resources,
        'required_traits': required,
        'forbidden_traits': forbidden,
        'capabilities': dict(sorted(capabilities.items())),
        'requested_groups': groups,
        'group_policy': group_policy,
    }


def _hints(hints):
    # Nova's API passes a hint given once as a string, several as a list.
    return {name: [str(v) for v in (value if isinstance(value, list)
                                    else [value])]
            for name, value in (hints or {}).items()}


def _flavor_to_dict(flavor):
    result = {}
    for name in flavor.fields:
        if not flavor.obj_attr_is_set(name):
            continue
        value = getattr(flavor, name)
        if isinstance(value, datetime.datetime):
            value = value.isoformat()
        elif isinstance(value, (dict, list)):
            value = type(value)(value)
        result[name] = value
    return result


def _flavor_from_dict(values):
    return flavor_obj.Flavor(**{name: value for name, value in values.items()
                                if name in flavor_obj.Flavor.fields})


@base.NovaMiniObjectRegistry.register
class RequestSpec(base.NovaMiniObject):
    """Models the request to launch one or more instances (see module)."""

    # Version 1.0: Initial version
    # Version 1.1: requested_groups, group_policy (numbered request groups);
    #              ImageMeta 1.1
    # Version 1.2: ImageMeta 1.2 (the image's attributes from Glance)
    VERSION = '1.2'

    fields = {
        # What is asked for.
        'flavor': fields.ObjectField('Flavor'),
        'image': fields.ObjectField('ImageMeta'),
        'num_instances': fields.IntegerField(default=1),
        'project_id': fields.StringField(nullable=True),
        'user_id': fields.StringField(nullable=True),
        'availability_zone': fields.StringField(nullable=True),
        'scheduler_hints': fields.DictOfListOfStringsField(default={}),
        # This request only (PER_REQUEST_FIELDS).
        'instance_uuids': fields.ListOfStringsField(default=[]),
        'ignore_hosts': fields.ListOfStringsField(default=[]),
        'force_nodes': fields.ListOfStringsField(default=[]),
        'retry': fields.ObjectField('SchedulerRetries', nullable=True,
                                    default=None),
        # Derived from flavor and image (DERIVED_FIELDS).
        'resources': fields.DictOfIntegersField(default={}),
        'required_traits': fields.ListOfStringsField(default=[]),
        'forbidden_traits': fields.ListOfStringsField(default=[]),
        'capabilities': fields.DictOfStringsField(default={}),
        # Each request group (unnumbered first); resources,
        # required_traits and forbidden_traits above are their merge.
        'requested_groups': fields.ListOfObjectsField('RequestGroup',
                                                      default=[]),
        'group_policy': fields.StringField(nullable=True, default=None),
    }

    # The version of each object field's class, per version of this one.
    obj_relationships = {
        'flavor': [('1.0', '1.0')],
        'image': [('1.0', '1.0'), ('1.1', '1.1'), ('1.2', '1.2')],
        'retry': [('1.0', '1.0')],
        'requested_groups': [('1.1', '1.0')],
    }

    def obj_make_compatible(self, primitive, target_version):
        super(RequestSpec, self).obj_make_compatible(primitive,
                                                     target_version)
        target = tuple(int(part) for part in target_version.split('.'))
        if target < (1, 1):
            for name in FIELDS_1_1:
                primitive.pop(name, None)

    @classmethod
    def _obj_from_primitive(cls, context, objver, primitive):
        spec = super(RequestSpec, cls)._obj_from_primitive(
            context, objver, primitive)
        if not spec.obj_attr_is_set('requested_groups'):
            # Written by 1.0, which read the unnumbered group only: that
            # group is what its merged fields hold.
            spec._groups_from_merged_fields()
            spec.VERSION = cls.VERSION
        return spec

    def _groups_from_merged_fields(self):
        groups = []
        values = {name: getattr(self, name) for name in
                  ('resources', 'required_traits', 'forbidden_traits')
                  if self.obj_attr_is_set(name)}
        if any(values.values()):
            groups.append(request_group.RequestGroup(suffix=None, **{
                name: type(value)(value) for name, value in values.items()}))
        self.requested_groups = groups
        self.group_policy = None
        self.obj_reset_changes(FIELDS_1_1)

    @classmethod
    def from_components(cls, context, flavor, image=None, num_instances=1,
                        instance_uuids=None, project_id=None, user_id=None,
                        availability_zone=None, scheduler_hints=None,
                        ignore_hosts=None, force_nodes=None, retry=None):
        """Build a RequestSpec of objects, its requirements derived from the
        flavor and the image.

        :param context: the request context.
        :param flavor: the Flavor.
        :param image: an ImageMeta, or its dict (None: no image properties).
        :param num_instances: how many instances, if ``instance_uuids`` is
            not given.
        :param instance_uuids: the instances to place.
        :param project_id: the requesting project.
        :param user_id: the requesting user.
        :param availability_zone: the zone asked for.
        :param scheduler_hints: ``{hint: value or [values]}``.
        :param ignore_hosts: nodes (uuids or names) not to use.
        :param force_nodes: nodes (uuids or names) to choose among.
        :param retry: a SchedulerRetries, or its dict.
        :returns: a RequestSpec.
        """
        if not isinstance(image, image_meta.ImageMeta):
            image = image_meta.ImageMeta.from_dict(image)
        if retry is not None and not isinstance(retry, SchedulerRetries):
            retry = SchedulerRetries.from_dict(retry)
        instance_uuids = list(instance_uuids or [])
        spec = cls(context, flavor=flavor, image=image,
                   num_instances=(len(instance_uuids) if instance_uuids
                                  else num_instances),
                   instance_uuids=instance_uuids,
                   project_id=project_id, user_id=user_id,
                   availability_zone=availability_zone,
                   scheduler_hints=_hints(scheduler_hints),
                   ignore_hosts=list(ignore_hosts or []),
                   force_nodes=list(force_nodes or []), retry=retry)
        for name, value in _derive(flavor, image).items():
            setattr(spec, name, value)
        return spec

    @classmethod
    def from_dict(cls, request_spec, filter_properties=None, context=None):
        """Build a RequestSpec from the legacy dicts.

        :param request_spec: ``image``, ``instance_properties``,
            ``instance_type``, ``num_instances``, ``instance_uuids``
            (without it, the uuid of ``instance_properties`` when
            ``num_instances`` is 1, else ``num_instances`` instances not
            named yet).
        :param filter_properties: ``scheduler_hints``, ``ignore_hosts``,
            ``force_nodes``, ``retry`` (and ``instance_type``).
        :param context: the request context.
        :returns: a RequestSpec.
        :raises nova_mini.exception.InvalidRequestSpec: no flavor in either.
        """
        filter_properties = filter_properties or {}
        instance = request_spec.get('instance_properties') or {}
        flavor = request_spec.get('instance_type') or filter_properties.get(
            'instance_type')
        if flavor is None:
            raise exception.InvalidRequestSpec(reason='no instance_type')
        if not isinstance(flavor, flavor_obj.Flavor):
            flavor = _flavor_from_dict(flavor)
        num_instances = request_spec.get('num_instances', 1)
        uuids = request_spec.get('instance_uuids')
        if uuids is None and instance.get('uuid') and num_instances <= 1:
            # Without instance_uuids, instance_properties describes the
            # first instance only: its uuid is the request's if it asks
            # for one instance; for more, num_instances says how many.
            uuids = [instance['uuid']]
        retry = filter_properties.get('retry')
        return cls.from_components(
            context, flavor, image=request_spec.get('image'),
            num_instances=num_instances, instance_uuids=uuids,
            project_id=instance.get('project_id'),
            user_id=instance.get('user_id'),
            availability_zone=instance.get('availability_zone'),
            scheduler_hints=filter_properties.get('scheduler_hints'),
            ignore_hosts=filter_properties.get('ignore_hosts'),
            force_nodes=filter_properties.get('force_nodes'),
            retry=retry)

    def to_legacy_dict(self):
        """Return ``(request_spec, filter_properties)``, as from_dict takes them.
        """
        instance = {'project_id': self.project_id, 'user_id': self.user_id,
                    'availability_zone': self.availability_zone}
        if self.instance_uuids:
            instance['uuid'] = self.instance_uuids[0]
        flavor = _flavor_to_dict(self.flavor)
        request_spec = {
            'image': self.image.to_dict(),
            'instance_properties': instance,
            'instance_type': flavor,
            'num_instances': self.num_instances,
            'instance_uuids': list(self.instance_uuids),
        }
        filter_properties = {
            'scheduler_hints': {k: list(v)
                                for k, v in self.scheduler_hints.items()},
            'ignore_hosts': list(self.ignore_hosts),
            'force_nodes': list(self.force_nodes),
            'instance_type': dict(flavor),
        }
        if self.retry is not None:
            filter_properties['retry'] = self.retry.to_dict()
        return request_spec, filter_properties

    def persistable(self):
        """Return a copy without the PER_REQUEST_FIELDS, to store with an
        instance.
        """
        clone = self.obj_clone()
        copy = type(self)(self._context, **{
            name: getattr(clone, name) for name in self.fields
            if name not in PER_REQUEST_FIELDS and clone.obj_attr_is_set(name)})
        copy.obj_reset_changes(recursive=True)
        return copy

    def store(self, context=None, instance_uuids=None):
        """Store ``persistable()`` for each of ``instance_uuids``.

        :param context: the context whose transaction stores it, if one is
            open (default: the spec's).
        :param instance_uuids: the instances (default: this request's).
        :raises nova_mini.exception.InvalidRequestSpec: no instance to store
            it for.
        """
        uuids = list(self.instance_uuids if instance_uuids is None
                     else instance_uuids)
        if not uuids:
            raise exception.InvalidRequestSpec(
                reason='no instance to store it for')
        text = jsonutils.dumps(self.persistable().obj_to_primitive())
        _store(context or self._context, uuids, text)

    def save(self, context=None):
        """Write ``persistable()`` over the stored spec of this spec's one
        instance (stored anew if it has none), as Nova saves a rebuild's.

        :param context: the context whose transaction writes it, if one
            is open (default: the spec's).
        """
        [uuid] = self.instance_uuids
        _save(context or self._context, uuid,
              jsonutils.dumps(self.persistable().obj_to_primitive()))

    def replace_image(self, image):
        """Ask for ``image`` (an ImageMeta) instead: the requirements are
        derived again from the flavor and it (a rebuild's new image).

        :raises nova_mini.exception.InvalidRequestSpec: as from_components.
        """
        derived = _derive(self.flavor, image)
        self.image = image
        for name, value in derived.items():
            setattr(self, name, value)

    @classmethod
    def get_by_instance_uuid(cls, context, instance_uuid):
        """Load the stored spec of an instance: its persistable fields, with
        ``instance_uuids`` set to that instance and ``num_instances`` as
        booted.

        :param context: the request context.
        :param instance_uuid: the instance's uuid.
        :returns: a RequestSpec.
        :raises nova_mini.exception.RequestSpecNotFound: none is stored.
        """
        text = _load(context, instance_uuid)
        if text is None:
            raise exception.RequestSpecNotFound(instance_uuid=instance_uuid)
        spec = cls.obj_from_primitive(jsonutils.loads(text),
                                      context=context)
        spec.obj_set_defaults(*PER_REQUEST_FIELDS)
        spec.instance_uuids = [instance_uuid]
        spec.obj_reset_changes(recursive=True)
        return spec

    @property
    def resource_class(self):
        """The custom resource class asked for (bare metal), or None."""
        custom = self.custom_resource_classes
        return custom[0] if len(custom) == 1 else None

    @property
    def custom_resource_classes(self):
        return [rc for rc in self.resources if rc.startswith(CUSTOM_PREFIX)]

    @property
    def instance_count(self):
        """How many nodes this request needs."""
        return len(self.instance_uuids) or self.num_instances
