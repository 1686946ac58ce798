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

"""Which servers get a config drive, as Nova settles it: the server asked
for one (``config_drive``, which stays true once a drive was given),
``[DEFAULT] force_config_drive`` for a server being built (not one already
launched), or its image's ``img_config_drive`` property is ``mandatory``.
"""

from nova_mini import exception

IMAGE_PROPERTY = 'img_config_drive'
OPTIONAL = 'optional'
MANDATORY = 'mandatory'
POLICIES = (OPTIONAL, MANDATORY)


def image_policy(image):
    """The image's ``img_config_drive`` (``optional`` when not set).

    :param image: an ImageMeta, or None.
    """
    if image is None:
        return OPTIONAL
    properties = image.get('raw_properties') or {}
    return properties.get(IMAGE_PROPERTY, OPTIONAL)


def check_image(image):
    """Nova's 400 for an image whose ``img_config_drive`` is neither
    ``optional`` nor ``mandatory``.

    :param image: an ImageMeta.
    :raises nova_mini.exception.InvalidImageConfigDrive: another value.
    """
    policy = image_policy(image)
    if policy not in POLICIES:
        raise exception.InvalidImageConfigDrive(config_drive=policy)


def required_by(instance, image, conf):
    """Whether ``instance`` gets a config drive when deployed with
    ``image``.

    :param instance: the Instance (``config_drive``, ``launched_at``).
    :param image: the ImageMeta it is deployed with.
    :param conf: the configuration (``force_config_drive``).
    :returns: a bool.
    """
    return bool(instance.config_drive
                or (conf.force_config_drive and not instance.launched_at)
                or image_policy(image) == MANDATORY)
