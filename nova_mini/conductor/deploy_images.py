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

"""The images a redfish deploy hands to the node's BMC as virtual media,
and the web server directory they are served from.

``prepare(context, node)`` returns ``(boot_iso_url, configdrive_url)``
for ``RedfishHardware.deploy``; ``clean_up(node)`` withdraws the node's
files when it is torn down or its deploy failed. Ironic's layout:
``[deploy] http_root/redfish/boot-<node uuid>.iso`` (a hard link to the
copy in ``[deploy] iso_master_path``, nova_mini.conductor.image_cache)
and ``http_root/redfish/configdrive-<node uuid>`` (decoded). Downloads
are bounded by the size Glance states, the cache's size and timeouts, and
checked against Glance's checksum. See
doc/source/admin/virtual-media-images.rst.
"""

import base64
import binascii
import hashlib
import os
import re
import tempfile
import zlib

from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_mini.conductor import glance_images
from nova_mini.conductor import image_cache
from nova_mini import conf
from nova_mini.drivers.redfish import errors
from nova_mini import exception

CONF = conf.CONF
LOG = logging.getLogger(__name__)

# The subdirectory of http_root of the redfish virtual media (Ironic's).
IMAGE_SUBDIR = 'redfish'
# A config drive larger than this, decoded, is refused (Nova builds
# 64 MiB ones at most).
CONFIGDRIVE_MAX_BYTES = 64 * 1024 * 1024
HTTP_SCHEMES = ('http://', 'https://')
_GZIP_MAGIC = b'\x1f\x8b'


class ImageCreationFailed(exception.NovaMiniException):
    msg_fmt = 'Creating %(image_type)s image failed: %(error)s'


# -- names and URLs

def public_dir():
    return os.path.join(CONF.deploy.http_root, IMAGE_SUBDIR)


def boot_iso_name(node):
    return 'boot-%s.iso' % node.uuid


def configdrive_name(node):
    return 'configdrive-%s' % node.uuid


def url_of(name):
    """The URL the BMCs download ``name`` of the public directory from.

    :raises errors.InvalidParameterValue: no ``[deploy] http_url``.
    """
    root = CONF.deploy.external_http_url or CONF.deploy.http_url
    if not root:
        raise errors.InvalidParameterValue(
            err='[deploy] http_url is not set: the conductor has no web '
                'server to hand the BMC its images from')
    return '%s/%s/%s' % (root.rstrip('/'), IMAGE_SUBDIR, name)


def _is_url(value):
    return isinstance(value, str) and value.lower().startswith(HTTP_SCHEMES)


def _glance_id(value):
    """The Glance image id of ``value`` (an id or glance://id), or None."""
    if not isinstance(value, str):
        return None
    if value.startswith('glance://'):
        value = value[len('glance://'):].rstrip('/').rsplit('/', 1)[-1]
    return value if uuidutils.is_uuid_like(value) else None


# -- files

def _publish(source, name):
    """Put ``source`` (a cached image) in the public directory as
    ``name``; its URL.
    """
    directory = public_dir()
    image_cache.makedirs(directory)
    image_cache.link_or_copy(source, directory, name,
                             CONF.redfish.file_permission)
    return url_of(name)


def clean_up(node):
    """Remove the node's published images (after a tear down or a failed
    deploy); the cached images stay for other deploys. Never raises.
    """
    directory = public_dir()
    names = (boot_iso_name(node), configdrive_name(node))
    try:
        leftovers = [n for n in os.listdir(directory)
                     if n.startswith(image_cache.TMP_PREFIX) and
                     n[len(image_cache.TMP_PREFIX):].startswith(names)]
    except OSError:
        leftovers = []
    for name in names + tuple(leftovers):
        path = os.path.join(directory, name)
        try:
            os.unlink(path)
            LOG.debug('Removed %s of node %s', path, node.uuid)
        except FileNotFoundError:
            pass
        except OSError as exc:
            LOG.warning('Could not remove %s of node %s: %s', path,
                        node.uuid, exc)


def _publish_image(cache_name, public_name, fetch):
    url = url_of(public_name)   # no http_url: fail before downloading
    if CONF.deploy.iso_master_path:
        return image_cache.cached(
            cache_name, fetch, lambda path: _publish(path, public_name))
    # No cache: straight into the public directory.
    directory = public_dir()
    image_cache.makedirs(directory)
    with image_cache.temporary(directory, public_name) as f:
        fetch(f)
        image_cache.finish(f, os.path.join(directory, public_name),
                           CONF.redfish.file_permission)
    return url


# -- the boot ISO

def _url_cache_name(url):
    return 'url-%s.iso' % hashlib.sha256(url.encode()).hexdigest()


def glance_cache_name(image):
    """The name of a Glance image's copy in the cache: of its id and
    checksum, so that an image whose checksum changed is downloaded
    again, not served from the copy of its former data.
    """
    algo, value = image.get('os_hash_algo'), image.get('os_hash_value')
    if not (algo and value):
        algo, value = 'md5', image.get('checksum')
    if not value:
        return 'glance-%s.iso' % image['id']
    tag = hashlib.sha256(('%s:%s' % (algo, value.lower())).encode())
    return 'glance-%s-%s.iso' % (image['id'], tag.hexdigest()[:16])


def _boot_iso_of_glance(node, image_id):
    image = glance_images.glance_image(image_id)
    iso_id = (image.get('boot_iso_id') or
              (image.get('properties') or {}).get('boot_iso_id'))
    if iso_id and iso_id != image_id:
        # The image of a ramdisk deploy may name its ISO (Ironic's
        # boot_iso_id property).
        image = glance_images.glance_image(iso_id)
    if image.get('disk_format') != 'iso':
        raise errors.InvalidParameterValue(
            err='Unable to find kernel, ramdisk for building ISO, or '
                'explicit ISO for %s' % node.uuid)
    return _publish_image(glance_cache_name(image), boot_iso_name(node),
                          glance_images.fetch_glance(image))


def boot_iso_url(context, node):
    """The URL of the node's boot ISO for its BMC (see prepare)."""
    info = node.instance_info or {}
    boot_iso = info.get('boot_iso')
    image_source = info.get('image_source')
    if boot_iso and image_source:
        raise errors.InvalidParameterValue(
            err="An 'image_source' and 'boot_iso' parameter may not be "
                "specified at the same time.")
    href = boot_iso or image_source
    if _is_url(href):
        source = (info.get('ramdisk_image_download_source') or
                  CONF.deploy.ramdisk_image_download_source)
        if source not in ('http', 'local'):
            raise errors.InvalidParameterValue(
                err='ramdisk_image_download_source must be http or local, '
                    'not %s' % source)
        if source == 'http':
            return href
        return _publish_image(_url_cache_name(href), boot_iso_name(node),
                              image_cache.http_fetch(href, image_cache.cache_limit(), 'boot ISO'))
    image_id = _glance_id(href)
    if image_id is None:
        raise errors.InvalidParameterValue(
            err='Unable to find kernel, ramdisk for building ISO, or '
                'explicit ISO for %s' % node.uuid)
    return _boot_iso_of_glance(node, image_id)


# -- the config drive

_BASE64 = re.compile(rb'^[A-Za-z0-9+/=\s]+$')


def _gunzip(data):
    """Decompress gzip ``data``, at most CONFIGDRIVE_MAX_BYTES."""
    out = zlib.decompressobj(16 + zlib.MAX_WBITS)
    result = out.decompress(data, CONFIGDRIVE_MAX_BYTES + 1)
    if len(result) > CONFIGDRIVE_MAX_BYTES or out.unconsumed_tail:
        raise ImageCreationFailed(
            image_type='configdrive',
            error='the config drive is larger than %d bytes' %
                  CONFIGDRIVE_MAX_BYTES)
    if not out.eof:
        raise ImageCreationFailed(image_type='configdrive',
                                  error='the gzip data is truncated')
    return result


def decode_configdrive(content, from_url=False):
    """The config drive image of ``content``: gzip + base64 text (what
    the API takes) or, downloaded from a URL (``from_url``), that text or
    the image itself.
    """
    if isinstance(content, str):
        content = content.encode('ascii', 'replace')
    if not from_url or _BASE64.match(content[:4096]):
        try:
            content = base64.b64decode(b''.join(content.split()),
                                       validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ImageCreationFailed(
                image_type='configdrive',
                error='it is not base64 text: %s' % exc)
        if not content.startswith(_GZIP_MAGIC):
            raise ImageCreationFailed(
                image_type='configdrive',
                error='it is not gzip data once base64-decoded')
    if content.startswith(_GZIP_MAGIC):
        try:
            content = _gunzip(content)
        except zlib.error as exc:
            raise ImageCreationFailed(image_type='configdrive',
                                      error='gzip: %s' % exc)
    if len(content) > CONFIGDRIVE_MAX_BYTES:
        raise ImageCreationFailed(
            image_type='configdrive',
            error='the config drive is larger than %d bytes' %
                  CONFIGDRIVE_MAX_BYTES)
    return content


def configdrive_url(node):
    """The URL of the node's config drive for its BMC, or None when its
    instance has none.
    """
    content = (node.instance_info or {}).get('configdrive')
    if not content:
        return None
    if isinstance(content, dict):
        raise errors.InvalidParameterValue(
            err='A config drive given as a JSON object (meta_data, '
                'user_data, network_data) is not supported: give the '
                'gzip + base64 ISO image, or its URL')
    url = url_of(configdrive_name(node))
    from_url = _is_url(content)
    if from_url:
        # Fetched and decoded as Ironic does: such a URL usually holds
        # the gzip + base64 text, which a BMC could not use.
        with tempfile.TemporaryFile() as f:
            image_cache.http_fetch(content, 2 * CONFIGDRIVE_MAX_BYTES,
                                   'config drive')(f)
            f.seek(0)
            content = f.read()
    image = decode_configdrive(content, from_url)
    directory = public_dir()
    image_cache.makedirs(directory)
    name = configdrive_name(node)
    with image_cache.temporary(directory, name) as f:
        f.write(image)
        image_cache.finish(f, os.path.join(directory, name),
                           CONF.redfish.file_permission)
    LOG.debug('Config drive of node %s published (%d bytes)', node.uuid,
              len(image))
    return url


def prepare(context, node):
    """Publish the node's boot ISO and config drive for its BMC:
    ``(boot_iso_url, configdrive_url or None)``. On failure, what was
    published for the node is removed.

    :raises errors.InvalidParameterValue: nothing to boot from, not an
        ISO, no ``[deploy] http_url``.
    :raises image_cache.ImageDownloadFailed: the image could not be downloaded, or
        its checksum does not match.
    :raises ImageCreationFailed: the config drive cannot be decoded.
    """
    try:
        iso = boot_iso_url(context, node)
        return iso, configdrive_url(node)
    except Exception:
        clean_up(node)
        raise
