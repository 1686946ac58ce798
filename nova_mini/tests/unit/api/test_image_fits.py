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

"""An image the flavor is too small for: Nova's 400s and words (create
and rebuild check it the same way)."""

import pytest

from nova_mini.api.compute import server_common
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import image_meta

objects.register_all()


def _flavor(ram=1024, disk=10):
    return objects.Flavor(memory_mb=ram, root_gb=disk)


def test_fits():
    server_common.check_image_fits(_flavor(), image_meta.ImageMeta(
        id='i', min_ram=1024, min_disk=10, size=1024))
    # Unknown sizes are no limit.
    server_common.check_image_fits(_flavor(), image_meta.ImageMeta(id='i'))


def test_memory_too_small():
    with pytest.raises(exception.Invalid) as raised:
        server_common.check_image_fits(_flavor(), image_meta.ImageMeta(
            id='i', min_ram=1025))
    assert str(raised.value) == (
        "Flavor's memory is too small for requested image.")


def test_disk_too_small():
    with pytest.raises(exception.Invalid, match='minimum size is '
                       '11811160064 bytes'):
        server_common.check_image_fits(_flavor(), image_meta.ImageMeta(
            id='i', min_disk=11))
    with pytest.raises(exception.Invalid, match='image is 10737418241'):
        server_common.check_image_fits(_flavor(), image_meta.ImageMeta(
            id='i', size=10 * 1024 ** 3 + 1))
    # A flavor without a disk size is not checked.
    server_common.check_image_fits(_flavor(disk=0), image_meta.ImageMeta(
        id='i', min_disk=11))
