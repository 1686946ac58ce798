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

"""ImageMeta and ImageMetaProps: what the scheduler needs of an image.

Only the properties a filter reads are fields, under Nova's names and
with Nova's coercion:

* ``hw_architecture`` (legacy name ``architecture``; nova_mini also reads
  ``cpu_arch``), canonicalised as Nova does (``amd64`` is ``x86_64``,
  ``i386`` is ``i686``, any case);
* ``img_hv_type`` (legacy ``hypervisor_type``; ``xapi`` is ``xen``),
  ``hw_vm_mode`` (legacy ``vm_mode``; ``hv`` and ``baremetal`` are
  ``hvm``, ``pv`` is ``xen``) and ``img_hv_requested_version`` (legacy
  ``hypervisor_version_requires``, a version predicate such as ``>=1``),
  which the ImagePropertiesFilter compares with what a bare-metal node
  supports;
* the traits the image requires: Glance spells them
  ``trait:<NAME>=required``, one property per trait; a
  ``traits_required`` list is accepted too.

A value that is not one Nova knows (an unknown architecture, say) makes
the request invalid (``InvalidRequestSpec``): no node could be chosen for
it.
"""

from oslo_utils import versionutils

from nova_mini import exception
from nova_mini.objects import base
from nova_mini.objects import fields

# How Glance image properties and flavor extra specs both name a trait
# (trait:<NAME>=required); request_spec reads flavors with it too.
TRAIT_PREFIX = 'trait:'

# The architectures Nova knows (nova.objects.fields.Architecture).
ARCHITECTURES = (
    'alpha', 'armv6', 'armv7l', 'armv7b', 'aarch64', 'cris', 'i686', 'ia64',
    'lm32', 'm68k', 'microblaze', 'microblazeel', 'mips', 'mipsel',
    'mips64', 'mips64el', 'openrisc', 'parisc', 'parisc64', 'ppc', 'ppcle',
    'ppc64', 'ppc64le', 'ppcemb', 's390', 's390x', 'sh4', 'sh4eb', 'sparc',
    'sparc64', 'unicore32', 'x86_64', 'xtensa', 'xtensaeb',
)
_ARCHITECTURE_ALIASES = {'i386': 'i686', 'i486': 'i686', 'i586': 'i686',
                         'x86_32': 'i686', 'x86_32p': 'i686',
                         'amd64': 'x86_64'}
# The virtualization types and VM modes Nova knows (HVType, VMMode).
HV_TYPES = ('baremetal', 'bhyve', 'docker', 'fake', 'hyperv', 'ironic',
            'kqemu', 'kvm', 'lxc', 'lxd', 'openvz', 'parallels', 'phyp',
            'qemu', 'test', 'uml', 'vbox', 'vz', 'vmware', 'xen', 'zvm',
            'prsm')
_HV_TYPE_ALIASES = {'xapi': 'xen'}
VM_MODES = ('hvm', 'xen', 'uml', 'exe')
_VM_MODE_ALIASES = {'pv': 'xen', 'hv': 'hvm', 'baremetal': 'hvm'}

# Nova's older property names, read when the current one is absent.
LEGACY_NAMES = {
    'architecture': 'hw_architecture',
    'hypervisor_type': 'img_hv_type',
    'vm_mode': 'hw_vm_mode',
    'hypervisor_version_requires': 'img_hv_requested_version',
}


def _canonical(name, value, known, aliases):
    if value is None:
        return None
    canonical = str(value).lower()
    canonical = aliases.get(canonical, canonical)
    if canonical not in known:
        raise exception.InvalidRequestSpec(
            reason='image property %s=%r is not one Nova knows (%s)'
            % (name, value, ', '.join(known)))
    return canonical


def canonical_architecture(value):
    """Return Nova's canonical name of an architecture, or None.

    :param value: an architecture name (``AMD64``, ``x86_64``, ...), or
        None.
    :returns: the canonical name (``x86_64``), or None for None.
    :raises nova_mini.exception.InvalidRequestSpec: not an architecture.
    """
    return _canonical('hw_architecture', value, ARCHITECTURES,
                      _ARCHITECTURE_ALIASES)


def _version_predicate(value):
    if value is None:
        return None
    try:
        versionutils.VersionPredicate(str(value))
    except ValueError:
        raise exception.InvalidRequestSpec(
            reason='image property img_hv_requested_version=%r is not a '
            'version predicate (such as ">=1")' % (value,))
    return str(value)


@base.NovaMiniObjectRegistry.register
class ImageMetaProps(base.NovaMiniObject):
    """The image properties the scheduler reads."""

    # Version 1.0: Initial version
    # Version 1.1: img_hv_type, hw_vm_mode, img_hv_requested_version;
    #              architectures canonical
    VERSION = '1.1'

    fields = {
        'hw_architecture': fields.StringField(nullable=True),
        'cpu_arch': fields.StringField(nullable=True),
        'img_hv_type': fields.StringField(nullable=True),
        'hw_vm_mode': fields.StringField(nullable=True),
        'img_hv_requested_version': fields.StringField(nullable=True),
        'traits_required': fields.ListOfStringsField(),
    }

    # The fields 1.1 added, nullable strings set from properties.
    _V1_1 = ('img_hv_type', 'hw_vm_mode', 'img_hv_requested_version')

    def obj_make_compatible(self, primitive, target_version):
        super(ImageMetaProps, self).obj_make_compatible(primitive,
                                                        target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 1):
            for name in self._V1_1:
                primitive.pop(name, None)

    @classmethod
    def from_dict(cls, properties):
        """Return the properties the scheduler reads of Glance's.

        Current names win over legacy ones; traits are taken from
        ``traits_required`` and from the ``trait:<NAME>=required``
        properties.

        :param properties: the image's properties (None: none).
        :returns: an ImageMetaProps.
        :raises nova_mini.exception.InvalidRequestSpec: a value Nova does
            not know (see the module).
        """
        properties = dict(properties or {})
        for legacy, name in LEGACY_NAMES.items():
            if properties.get(name) is None and \
                    properties.get(legacy) is not None:
                properties[name] = properties[legacy]
        traits = set(properties.get('traits_required') or ())
        traits.update(key[len(TRAIT_PREFIX):] for key, value in
                      properties.items()
                      if key.startswith(TRAIT_PREFIX) and value == 'required')
        return cls(
            hw_architecture=canonical_architecture(
                properties.get('hw_architecture')),
            cpu_arch=_canonical('cpu_arch', properties.get('cpu_arch'),
                                ARCHITECTURES, _ARCHITECTURE_ALIASES),
            img_hv_type=_canonical('img_hv_type',
                                   properties.get('img_hv_type'), HV_TYPES,
                                   _HV_TYPE_ALIASES),
            hw_vm_mode=_canonical('hw_vm_mode', properties.get('hw_vm_mode'),
                                  VM_MODES, _VM_MODE_ALIASES),
            img_hv_requested_version=_version_predicate(
                properties.get('img_hv_requested_version')),
            traits_required=sorted(traits))

    @classmethod
    def from_typed(cls, typed, properties=None):
        """Return the properties the scheduler reads of an image Nova's
        coercion has typed.

        :param typed: ``{field: typed value}``, Nova's fields of the
            image's properties as the image property registry reads them
            (``image_properties.registry.read``: legacy names, aliases and
            ``trait:<NAME>=required`` already settled).
        :param properties: the image's raw properties, for ``cpu_arch``
            (nova_mini's own, which Nova does not read).
        :returns: an ImageMetaProps.
        :raises nova_mini.exception.InvalidRequestSpec: ``cpu_arch`` is
            not an architecture.
        """
        typed = typed or {}
        return cls(
            hw_architecture=typed.get('hw_architecture'),
            cpu_arch=_canonical('cpu_arch',
                                (properties or {}).get('cpu_arch'),
                                ARCHITECTURES, _ARCHITECTURE_ALIASES),
            **{name: typed.get(name) for name in cls._V1_1},
            traits_required=sorted(set(typed.get('traits_required') or ())))

    def to_dict(self):
        """Return the properties as a dict, as from_dict takes it."""
        result = {'traits_required': list(self.traits_required)}
        for name in ('hw_architecture', 'cpu_arch') + self._V1_1:
            if self.obj_attr_is_set(name) and getattr(self, name) is not None:
                result[name] = getattr(self, name)
        return result

    def get(self, name, default=None):
        """Return a property, or ``default`` when it is unset or None."""
        if not self.obj_attr_is_set(name) or getattr(self, name) is None:
            return default
        return getattr(self, name)

    @property
    def architecture(self):
        """The architecture the image needs (canonical), or None."""
        return self.get('hw_architecture') or self.get('cpu_arch')


# The attributes of a Glance v2 image that are not properties (Glance's
# image schema); every other key of the image is a property.
GLANCE_ATTRIBUTES = frozenset((
    'id', 'name', 'status', 'visibility', 'protected', 'checksum', 'owner',
    'size', 'virtual_size', 'container_format', 'disk_format',
    'created_at', 'updated_at', 'tags', 'min_ram', 'min_disk',
    'os_hash_algo', 'os_hash_value', 'os_hidden', 'file', 'schema', 'self',
    'direct_url', 'locations', 'stores'))


def glance_properties(image):
    """Return the properties of a Glance v2 image, as strings.

    :param image: the image as Glance's ``GET /v2/images/{id}`` shows it.
    :returns: ``{name: value}`` of the keys that are not GLANCE_ATTRIBUTES.
    """
    return {key: value if isinstance(value, str) else str(value)
            for key, value in image.items()
            if key not in GLANCE_ATTRIBUTES and value is not None}


@base.NovaMiniObjectRegistry.register
class ImageMeta(base.NovaMiniObject):
    """An image as the scheduler sees it: its id, the attributes a deploy
    records (Glance's names) and its properties.
    """

    # Version 1.0: Initial version
    # Version 1.1: ImageMetaProps 1.1
    # Version 1.2: name, status, checksum, disk_format, container_format,
    #              size, min_ram, min_disk, os_hash_algo, os_hash_value,
    #              tags and raw_properties, from Glance
    VERSION = '1.2'

    fields = {
        'id': fields.StringField(nullable=True),
        'properties': fields.ObjectField('ImageMetaProps'),
        'name': fields.StringField(nullable=True, default=None),
        'status': fields.StringField(nullable=True, default=None),
        'checksum': fields.StringField(nullable=True, default=None),
        'disk_format': fields.StringField(nullable=True, default=None),
        'container_format': fields.StringField(nullable=True, default=None),
        'size': fields.IntegerField(nullable=True, default=None),
        'min_ram': fields.IntegerField(nullable=True, default=None),
        'min_disk': fields.IntegerField(nullable=True, default=None),
        'os_hash_algo': fields.StringField(nullable=True, default=None),
        'os_hash_value': fields.StringField(nullable=True, default=None),
        'tags': fields.ListOfStringsField(default=[]),
        # Every property as Glance lists it (strings), the ones the
        # scheduler does not read included: a deploy records them.
        'raw_properties': fields.DictOfStringsField(default={}),
    }

    # The ImageMetaProps version each version carries.
    obj_relationships = {
        'properties': [('1.0', '1.0'), ('1.1', '1.1')],
    }

    # The fields 1.2 added.
    _V1_2 = ('name', 'status', 'checksum', 'disk_format',
             'container_format', 'size', 'min_ram', 'min_disk',
             'os_hash_algo', 'os_hash_value', 'tags', 'raw_properties')

    def obj_make_compatible(self, primitive, target_version):
        super(ImageMeta, self).obj_make_compatible(primitive,
                                                   target_version)
        if versionutils.convert_version_to_tuple(target_version) < (1, 2):
            for name in self._V1_2:
                primitive.pop(name, None)

    @classmethod
    def from_glance(cls, image, typed=None):
        """Return the ImageMeta of an image as Glance's v2 API shows it.

        :param image: the body of ``GET /v2/images/{id}``.
        :param typed: Nova's typed fields of its properties (see
            ``ImageMetaProps.from_typed``); None: typed here (from_dict).
        :returns: an ImageMeta.
        :raises nova_mini.exception.InvalidRequestSpec: a property value
            Nova does not know.
        """
        meta = cls.untyped_from_glance(image)
        raw = meta.raw_properties
        meta.properties = (ImageMetaProps.from_dict(raw) if typed is None
                           else ImageMetaProps.from_typed(typed, raw))
        return meta

    @classmethod
    def untyped_from_glance(cls, image):
        """Return the ImageMeta of an image as Glance's v2 API shows it,
        its properties not typed yet: ``raw_properties`` is set,
        ``properties`` (what the scheduler reads) is not, and reading it
        fails until the caller sets it. A boot or a rebuild types its
        image once, after the checks Nova makes first
        (``api.compute.image_flavor_rules.typed_properties``).

        :param image: the body of ``GET /v2/images/{id}``.
        :returns: an ImageMeta.
        """
        meta = cls(id=image.get('id'))
        for name in cls._V1_2:
            if name in ('tags', 'raw_properties'):
                continue
            if image.get(name) is not None:
                setattr(meta, name, image[name])
        meta.tags = [str(tag) for tag in image.get('tags') or ()]
        meta.raw_properties = glance_properties(image)
        return meta

    def get(self, name, default=None):
        """Return an attribute, or ``default`` when it is unset or None."""
        if not self.obj_attr_is_set(name) or getattr(self, name) is None:
            return default
        return getattr(self, name)

    @classmethod
    def from_dict(cls, image):
        """Return the ImageMeta of an image dict: the legacy form (Nova's
        ``request_spec['image']``, or Glance's image with its properties
        under ``properties``), as ``to_dict`` writes it.

        The attributes of version 1.2 that the dict has are kept as they
        are; every property is kept as a string in ``raw_properties``
        (``traits_required``, a list, and None values aside), and the
        properties the scheduler reads are read from them.

        :param image: ``{'id': ..., 'name': ..., ..., 'properties':
            {...}}``; ``None`` or ``{}`` is "no image".
        :returns: an ImageMeta.
        :raises nova_mini.exception.InvalidRequestSpec: a property value
            Nova does not know.
        """
        image = image or {}
        properties = image.get('properties') or {}
        meta = cls(id=image.get('id'),
                   properties=ImageMetaProps.from_dict(properties))
        for name in cls._V1_2:
            if name in ('tags', 'raw_properties') or name not in image:
                continue
            setattr(meta, name, image[name])
        if 'tags' in image:
            meta.tags = [str(tag) for tag in image['tags'] or ()]
        meta.raw_properties = {
            key: value if isinstance(value, str) else str(value)
            for key, value in properties.items()
            if key != 'traits_required' and value is not None}
        return meta

    def to_dict(self):
        """Return the image as a dict, as from_dict takes it: ``id``, the
        attributes that are set, and ``properties``: the raw properties
        with ``traits_required`` (the properties the scheduler reads,
        under Nova's names, for an image whose raw properties were not
        recorded: one of version 1.1 or older).
        """
        result = {'id': self.id}
        for name in self._V1_2:
            if name == 'raw_properties' or not self.obj_attr_is_set(name):
                continue
            value = getattr(self, name)
            result[name] = list(value) if name == 'tags' else value
        if self.obj_attr_is_set('raw_properties'):
            properties = dict(self.raw_properties)
            properties['traits_required'] = list(
                self.properties.traits_required)
        else:
            properties = self.properties.to_dict()
        result['properties'] = properties
        return result
