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

Only the properties a filter reads are fields: the architecture
(``hw_architecture``, or the older ``cpu_arch``) and the traits the image
requires. Glance spells the latter ``trait:<NAME>=required``, one property
per trait; both that form and a ``traits_required`` list are accepted.
"""

from nova_mini.objects import base
from nova_mini.objects import fields

# How Glance image properties and flavor extra specs both name a trait
# (trait:<NAME>=required); request_spec reads flavors with it too.
TRAIT_PREFIX = 'trait:'


@base.NovaMiniObjectRegistry.register
class ImageMetaProps(base.NovaMiniObject):
    """The image properties the scheduler reads."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'hw_architecture': fields.StringField(nullable=True),
        'cpu_arch': fields.StringField(nullable=True),
        'traits_required': fields.ListOfStringsField(),
    }

    @classmethod
    def from_dict(cls, properties):
        """Return the properties the scheduler reads of Glance's.

        Traits are taken from ``traits_required`` and from the
        ``trait:<NAME>=required`` properties.

        :param properties: the image's properties (None: none).
        :returns: an ImageMetaProps.
        """
        properties = properties or {}
        traits = set(properties.get('traits_required') or ())
        traits.update(key[len(TRAIT_PREFIX):] for key, value in
                      properties.items()
                      if key.startswith(TRAIT_PREFIX) and value == 'required')
        return cls(hw_architecture=properties.get('hw_architecture'),
                   cpu_arch=properties.get('cpu_arch'),
                   traits_required=sorted(traits))

    def to_dict(self):
        """Return the properties as a dict, as from_dict takes it."""
        result = {'traits_required': list(self.traits_required)}
        for name in ('hw_architecture', 'cpu_arch'):
            if getattr(self, name) is not None:
                result[name] = getattr(self, name)
        return result

    @property
    def architecture(self):
        """The architecture the image needs, or None."""
        return self.hw_architecture or self.cpu_arch


@base.NovaMiniObjectRegistry.register
class ImageMeta(base.NovaMiniObject):
    """An image as the scheduler sees it: its id and properties."""

    # Version 1.0: Initial version
    VERSION = '1.0'

    fields = {
        'id': fields.StringField(nullable=True),
        'properties': fields.ObjectField('ImageMetaProps'),
    }

    @classmethod
    def from_dict(cls, image):
        """Return the ImageMeta of Glance's image dict.

        :param image: ``{'id': ..., 'properties': {...}}``; ``None`` or
            ``{}`` is "no image".
        :returns: an ImageMeta.
        """
        image = image or {}
        return cls(id=image.get('id'),
                   properties=ImageMetaProps.from_dict(
                       image.get('properties')))

    def to_dict(self):
        """Return the image as a dict, as from_dict takes it."""
        return {'id': self.id, 'properties': self.properties.to_dict()}
