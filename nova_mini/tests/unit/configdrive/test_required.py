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

"""Which servers get a config drive (Nova's rules)."""

import datetime

import pytest

from nova_mini.configdrive import required
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import image_meta

LAUNCHED = datetime.datetime(2026, 11, 1, tzinfo=datetime.timezone.utc)


def _image(**properties):
    return image_meta.ImageMeta.from_glance(dict(
        id='c0ffee00-0000-4000-8000-000000000001', status='active',
        **properties))


def _instance(config_drive=False, launched_at=None):
    return objects.Instance(config_drive=config_drive,
                            launched_at=launched_at)


@pytest.mark.parametrize('config_drive, force, launched_at, image, wanted', [
    (False, False, None, {}, False),
    (True, False, None, {}, True),
    # Forced: new builds only.
    (False, True, None, {}, True),
    (False, True, LAUNCHED, {}, False),
    # A drive given once stays (config_drive was recorded true).
    (True, False, LAUNCHED, {}, True),
    (False, False, LAUNCHED, {'img_config_drive': 'mandatory'}, True),
    (False, False, None, {'img_config_drive': 'optional'}, False),
])
def test_required_by(conf, config_drive, force, launched_at, image, wanted):
    conf.config(force_config_drive=force)
    assert required.required_by(_instance(config_drive, launched_at),
                                _image(**image), conf.conf) is wanted


def test_no_image_is_optional(conf):
    assert required.required_by(_instance(), None, conf.conf) is False
    # An image not looked up in Glance has no properties.
    assert required.image_policy(
        image_meta.ImageMeta.from_dict({'id': 'x'})) == required.OPTIONAL


def test_check_image():
    required.check_image(_image(img_config_drive='mandatory'))
    required.check_image(_image())
    with pytest.raises(exception.InvalidImageConfigDrive) as raised:
        required.check_image(_image(img_config_drive='yes'))
    assert raised.value.format_message() == (
        "Image's config drive option 'yes' is invalid")
