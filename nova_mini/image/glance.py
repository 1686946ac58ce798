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

"""The image of a new server, from Glance's v2 API.

``image_meta(context, image_ref, user_auth)`` answers the ImageMeta the
RequestSpec carries, after checking, as Nova does, that the image exists
for the caller (``400 Can not find requested image``) and is ``active``
(``400 Image <id> is not active.``). A Glance that does not answer, or
answers 5xx, is a 503 (``ImageServiceUnavailable``): the create is
refused before anything is written.

Who calls Glance, and how (doc/source/admin/images.rst):

* with ``[api] auth_strategy = keystone``, keystonemiddleware's user
  plugin of the request (``keystone.token_auth``): the caller's token,
  and the endpoint of type ``[glance] service_type`` in the caller's
  service catalog (``valid_interfaces``, ``region_name``), unless
  ``[glance] endpoint_override`` names one;
* with ``noauth2`` (development) there is no Keystone token: with
  ``[glance] endpoint_override`` Glance is called there without a token
  (a Glance of its own ``noauth`` pipeline); without it the image is not
  looked up and the server keeps the image id, with no properties.

Whatever the deployment, ``imageRef`` must be an image id (a UUID) or a
URL ending in one, as Nova's schema wants it: anything else is a 400
before Glance is asked, and the server keeps the id.
"""

import threading

from keystoneauth1 import exceptions as ks_exc
from keystoneauth1 import loading as ks_loading
from oslo_log import log as logging
from oslo_utils import uuidutils

from nova_mini import conf
from nova_mini import exception
from nova_mini.objects import image_meta as image_meta_obj

CONF = conf.CONF
LOG = logging.getLogger(__name__)

GROUP = 'glance'
# The seconds a client is told to wait (Retry-After) when Glance does not
# answer.
RETRY_AFTER = 10
# The WSGI environ key of keystonemiddleware's user auth plugin.
USER_AUTH_KEY = 'keystone.token_auth'


class ImageNotFound(exception.Invalid):
    # Nova's words for an imageRef that names no image of the caller's.
    msg_fmt = 'Can not find requested image'


class ImageNotActive(exception.Invalid):
    msg_fmt = 'Image %(image_id)s is not active.'


class InvalidImageRef(exception.Invalid):
    msg_fmt = 'Invalid imageRef provided.'


class ImageServiceUnavailable(exception.ServiceUnavailable):
    msg_fmt = ('The Image service (Glance) could not be reached to check '
               'image %(image_id)s: %(reason)s. Nothing was created: retry '
               'the request in %(retry_after)d seconds.')


_SESSION = {}
_SESSION_LOCK = threading.Lock()


def _session():
    """The keystoneauth1 session of the [glance] options, made once per
    process (it holds the connection pool).
    """
    with _SESSION_LOCK:
        if 'session' not in _SESSION:
            _SESSION['session'] = ks_loading.load_session_from_conf_options(
                CONF, GROUP)
        return _SESSION['session']


def adapter(auth):
    """A keystoneauth1 adapter to Glance, of the [glance] options, on the
    process' session.

    :param auth: the auth plugin of the calls (the caller's, or the
        service's), or None (no token: ``[glance] endpoint_override``).
    """
    return ks_loading.load_adapter_from_conf_options(
        CONF, GROUP, session=_session(), auth=auth)


def image_id_of(image_ref):
    """Return the image id of an ``imageRef`` (an id, or a URL ending in
    one, as Nova takes it).

    :raises InvalidImageRef: not an image id.
    """
    image_id = str(image_ref).rstrip('/').rsplit('/', 1)[-1]
    if not uuidutils.is_uuid_like(image_id):
        raise InvalidImageRef()
    return image_id


def checks_images(user_auth):
    """Whether images are checked in Glance for a request with
    ``user_auth`` (see the module).
    """
    return user_auth is not None or bool(CONF.glance.endpoint_override)


def get_image(image_id, user_auth):
    """Return the image as Glance's ``GET /v2/images/{id}`` shows it.

    :param image_id: the image id.
    :param user_auth: the caller's keystoneauth1 auth plugin, or None
        (no token: ``[glance] endpoint_override`` only).
    :raises ImageNotFound: Glance does not show it to the caller.
    :raises ImageServiceUnavailable: Glance cannot be reached, or fails.
    """
    try:
        resp = adapter(user_auth).get('/v2/images/%s' % image_id,
                                      raise_exc=False,
                                      headers={'Accept': 'application/json'})
    except ks_exc.EndpointNotFound:
        raise ImageServiceUnavailable(
            image_id=image_id, retry_after=RETRY_AFTER,
            reason='the service catalog has no endpoint of type %r '
                   '(interfaces %s); register Glance in Keystone or set '
                   '[glance] endpoint_override' % (
                       CONF.glance.service_type,
                       ', '.join(CONF.glance.valid_interfaces or ())))
    except (ks_exc.ConnectionError, ks_exc.RequestTimeout) as exc:
        LOG.warning('Glance did not answer for image %s: %s', image_id, exc)
        raise ImageServiceUnavailable(
            image_id=image_id, retry_after=RETRY_AFTER,
            reason='%s' % exc.__class__.__name__)
    if resp.status_code == 404:
        raise ImageNotFound()
    if resp.status_code >= 500 or resp.status_code in (401, 403):
        # 401/403: nova_mini accepted the token, Glance did not (its own
        # Keystone settings are wrong): the user cannot fix that.
        LOG.warning('Glance answered %d for image %s: %s',
                    resp.status_code, image_id, resp.text[:500])
        raise ImageServiceUnavailable(
            image_id=image_id, retry_after=RETRY_AFTER,
            reason='Glance answered HTTP %d' % resp.status_code)
    if resp.status_code != 200:
        raise ImageNotFound()
    return resp.json()


def image_meta(image_ref, user_auth):
    """Return the ImageMeta of the image of a new server.

    :param image_ref: the ``imageRef`` (or root disk image) asked for.
    :param user_auth: keystonemiddleware's user plugin of the request
        (``environ['keystone.token_auth']``), or None under noauth2.
    :returns: an ImageMeta, its properties not typed yet
        (``ImageMeta.untyped_from_glance``); with only ``id`` when images
        are not looked up (see the module).
    :raises ImageNotFound, ImageNotActive, InvalidImageRef: 400.
    :raises ImageServiceUnavailable: 503.
    """
    image_id = image_id_of(image_ref)
    if not checks_images(user_auth):
        return image_meta_obj.ImageMeta.from_dict({'id': image_id})
    image = get_image(image_id, user_auth)
    if image.get('status') != 'active':
        raise ImageNotActive(image_id=image_id)
    # Not typed here: as Nova, the image's properties are typed after the
    # checks made first (size, img_config_drive), once, by
    # api.compute.image_flavor_rules.check (Nova's 400 for a value it
    # cannot read), which sets what the scheduler reads.
    return image_meta_obj.ImageMeta.untyped_from_glance(image)
