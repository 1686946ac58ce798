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

"""A redfish deploy's Glance images, as nova-mini-conductor reads them:
the image's record (``glance_image``; deploys of one image asking at the
same time share one read) and its download into the image cache, checked
against Glance's size and checksum (``fetch_glance``), with the
service's own credentials. Used by nova_mini.conductor.deploy_images.
"""

import copy
import hashlib
import threading

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging
import requests

from nova_mini.conductor import image_cache
from nova_mini import conf
from nova_mini.drivers.redfish import errors
from nova_mini import exception
from nova_mini.image import glance

CONF = conf.CONF
LOG = logging.getLogger(__name__)

# The service's credentials for Glance (keystonemiddleware's group, as
# nova-mini-manage image-properties audit reads them).
AUTH_GROUP = 'keystone_authtoken'

# The errors of downloads (Ironic's names and messages).
ImageDownloadFailed = image_cache.ImageDownloadFailed
ImageChecksumError = image_cache.ImageChecksumError


class ImageUnacceptable(exception.Invalid):
    msg_fmt = 'Image %(image_id)s is unacceptable: %(reason)s'


class ImageNotFound(exception.NotFound):
    msg_fmt = 'Image %(image_id)s could not be found.'


_AUTH = {}
_AUTH_LOCK = threading.Lock()


def _glance_auth():
    """The conductor's credentials for Glance: the service user of
    [keystone_authtoken], or None without Keystone (then
    ``[glance] endpoint_override`` is the Glance, called without token).
    """
    if CONF.api.auth_strategy != 'keystone':
        return None
    with _AUTH_LOCK:
        ks_loading.register_auth_conf_options(CONF, AUTH_GROUP)
        auth = ks_loading.load_auth_from_conf_options(CONF, AUTH_GROUP)
        if auth is None:
            raise errors.InvalidParameterValue(
                err='[%s] has no auth_type: the conductor reads Glance with '
                    'the service\'s credentials' % AUTH_GROUP)
        # One plugin per set of credentials, which keeps its token until
        # it expires: not a token request to Keystone per Glance call.
        key = auth.get_cache_id()
        if key is None:
            return auth
        return _AUTH.setdefault(key, auth)


def _glance_get(path, image_id, **kwargs):
    try:
        resp = glance.adapter(_glance_auth()).get(path, raise_exc=False,
                                                  **kwargs)
    except ks_exc.ClientException as exc:
        # Unreachable, no endpoint in the catalog, credentials refused.
        raise ImageDownloadFailed(image_href=image_id,
                                  reason='Glance: %s' % exc)
    if resp.status_code == 404:
        raise ImageNotFound(image_id=image_id)
    if resp.status_code != 200:
        raise ImageDownloadFailed(
            image_href=image_id,
            reason='Glance answered HTTP %d' % resp.status_code)
    return resp


class _Read(object):
    """One GET of an image's record, shared by the deploys that joined
    it before it started.
    """

    def __init__(self):
        self.done = False
        self.image = None
        self.error = None
        # The callers that joined it (the first one included).
        self.joined = 0


# image id -> {'running': the _Read in flight or None, 'next': the _Read
# the deploys asking now join, started once 'running' ends}; an entry
# goes when no read of its image runs or waits.
_READS = {}
_READS_CHANGED = threading.Condition()


def _shared_read(image_id, read_once):
    """``read_once()`` for ``image_id``, its result shared by the callers
    asking at the same time: a caller joins the next read of the image,
    never one already in flight (which may have started before the image
    changed), so that it sees Glance as it was at the earliest when it
    asked; at most one read of an image at a time. 100 deploys of one
    image at once make two reads, not 100 (Glance answered them one
    after the other, a second and more each).
    """
    with _READS_CHANGED:
        reads = _READS.setdefault(image_id, {'running': None, 'next': None})
        read = reads['next']
        if read is None:
            read = reads['next'] = _Read()
        read.joined += 1
        while reads['running'] is not None and not read.done:
            _READS_CHANGED.wait()
        if not read.done:
            # The first of the joiners to find no read running makes it.
            reads['running'], reads['next'] = read, None
    if read.done:
        if read.error is not None:
            raise read.error
        return copy.deepcopy(read.image)
    try:
        read.image = read_once()
    except Exception as exc:
        read.error = exc
        raise
    finally:
        with _READS_CHANGED:
            if read.image is None and read.error is None:
                read.error = ImageDownloadFailed(
                    image_href=image_id,
                    reason='the read of its record was interrupted')
            read.done = True
            reads['running'] = None
            if reads['next'] is None:
                del _READS[image_id]
            _READS_CHANGED.notify_all()
    return read.image


def _read_glance_image(image_id):
    return _glance_get('/v2/images/%s' % image_id, image_id,
                       headers={'Accept': 'application/json'}).json()


def glance_image(image_id):
    """Glance's record of the image (GET /v2/images/{id}, shared by the
    deploys asking at the same time: _shared_read).
    """
    image = _shared_read(image_id,
                         lambda: _read_glance_image(image_id))
    if image.get('status') != 'active':
        raise ImageUnacceptable(
            image_id=image_id,
            reason='The image is required to be in an active state.')
    return image


def _hasher(image):
    """(hashlib object, expected hex digest) of a Glance image: its
    multihash (os_hash_algo, os_hash_value), else its MD5 checksum.
    """
    algo, value = image.get('os_hash_algo'), image.get('os_hash_value')
    if not (algo and value):
        algo, value = 'md5', image.get('checksum')
    if not value:
        return None, None
    try:
        if algo == 'md5':
            return hashlib.md5(usedforsecurity=False), value.lower()
        return hashlib.new(algo), value.lower()
    except ValueError:
        raise ImageDownloadFailed(
            image_href=image['id'],
            reason='The requested image checksum algorithm cannot be '
                   'loaded: %s' % algo)


def fetch_glance(image):
    image_id = image['id']
    size = image.get('size')
    limit = image_cache.cache_limit()
    if size is not None and size > limit:
        raise ImageDownloadFailed(
            image_href=image_id,
            reason='the image (%d bytes) is larger than [deploy] '
                   'iso_cache_size (%d MiB)' % (size, limit // 1048576))
    if size is not None:
        limit = size

    def fetch(f):
        hasher, expected = _hasher(image)
        resp = _glance_get('/v2/images/%s/file' % image_id, image_id,
                           stream=True,
                           headers={'Accept': 'application/octet-stream'})
        try:
            written = image_cache.download_to(
                f, resp.iter_content(image_cache.CHUNK), image_id, limit,
                hasher)
        except requests.RequestException as exc:
            raise ImageDownloadFailed(image_href=image_id, reason=str(exc))
        finally:
            resp.close()
        if size is not None and written != size:
            raise ImageDownloadFailed(
                image_href=image_id,
                reason='%d bytes received, the image has %d' % (written,
                                                                size))
        if hasher is not None and hasher.hexdigest() != expected:
            LOG.error('Image %s: %s %s downloaded, Glance has %s',
                      image_id, hasher.name, hasher.hexdigest(), expected)
            raise ImageChecksumError(image_href=image_id)
        LOG.info('Image %s downloaded from Glance (%d bytes, %s checked)',
                 image_id, written, hasher.name if hasher else 'nothing')
    return fetch
