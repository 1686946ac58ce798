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

"""Virtual media of a node over Redfish (Ironic's
``redfish-virtual-media`` boot interface, the media part).

Devices are those of the ComputerSystem when it has ``VirtualMedia``,
else those of its managers. ``cd`` is a device whose MediaTypes has CD
(or DVD); ``usb`` one with USBStick, where Ironic puts the config drive
of a ramdisk deploy. Inserting an image first ejects what the device
holds; an image is inserted write-protected.

The devices are listed once per operation (its connection.SystemHandle:
the collection and each device, one GET each); a device this operation
ejected or inserted into is read again before its state is used.
"""

from oslo_log import log as logging
import sushy

from nova_mini.drivers.redfish import connection
from nova_mini.drivers.redfish import errors

LOG = logging.getLogger(__name__)

CD = 'cd'
USB = 'usb'
FLOPPY = 'floppy'
DEVICES = {
    CD: sushy.VIRTUAL_MEDIA_CD,
    USB: sushy.VIRTUAL_MEDIA_USBSTICK,
    FLOPPY: sushy.VIRTUAL_MEDIA_FLOPPY,
}


def _resources(system):
    """The System, or its managers, that hold virtual media."""
    try:
        system.virtual_media
        return [system]
    except (sushy.exceptions.MissingAttributeError, AttributeError):
        pass
    found = []
    for manager in system.managers:
        try:
            manager.virtual_media
        except sushy.exceptions.MissingAttributeError:
            continue
        found.append(manager)
    return found


def _matches(v_media, media_type):
    types = v_media.media_types or []
    return media_type in types or (media_type == sushy.VIRTUAL_MEDIA_CD
                                   and sushy.VIRTUAL_MEDIA_DVD in types)


def _devices(handle, system, media_type=None):
    devices = handle.cache.get('virtual_media')
    if devices is None:
        devices = [v_media for resource in _resources(system)
                   for v_media in resource.virtual_media.get_members()]
        handle.cache['virtual_media'] = devices
    for v_media in devices:
        if media_type is None or _matches(v_media, media_type):
            # sushy marks a device stale after an insert or an eject.
            v_media.refresh(force=False)
            yield v_media


def _handle(info, handle):
    return handle or connection.SystemHandle(info)


def get(info):
    """[{'name', 'media_types', 'inserted', 'image'}] of each device."""
    def _get(system):
        return [{'name': v_media.identity,
                 'media_types': [t.value for t in v_media.media_types or []],
                 'inserted': bool(v_media.inserted),
                 'image': v_media.image or None}
                for v_media in _devices(handle, system)]
    handle = connection.SystemHandle(info)
    return handle.call(_get)


def has_device(info, device, handle=None):
    """Whether the BMC has a ``device`` (cd, usb, floppy) device."""
    handle = _handle(info, handle)
    return handle.call(
        lambda system: any(_devices(handle, system, DEVICES[device])))


def _eject(info, handle, system, media_type):
    ejected = False
    for v_media in _devices(handle, system, media_type):
        if v_media.inserted:
            v_media.eject_media()
            ejected = True
            LOG.info('Ejected virtual media %(image)s from %(dev)s of node '
                     '%(node)s', {'image': v_media.image,
                                  'dev': v_media.identity,
                                  'node': info.node_uuid})
    return ejected


def eject(info, device=None, handle=None):
    """Eject the media of every ``device`` device (every device when
    None); True when one held an image.
    """
    media_type = DEVICES[device] if device else None
    handle = _handle(info, handle)
    return handle.call(
        lambda system: _eject(info, handle, system, media_type))


def insert(info, image_url, device=CD, handle=None):
    """Insert ``image_url`` into the first ``device`` device taking it.

    :raises: InvalidParameterValue when no device takes it (Ironic's
        messages).
    """
    media_type = DEVICES[device]
    failures = []
    handle = _handle(info, handle)

    def _insert(system):
        for v_media in _devices(handle, system, media_type):
            if v_media.inserted:
                v_media.eject_media()
            try:
                v_media.insert_media(image_url, inserted=True,
                                     write_protected=True)
            except sushy.exceptions.MissingActionError:
                continue
            except sushy.exceptions.HTTPError as exc:
                if exc.status_code >= 500:
                    raise
                message = ('Inserting virtual media into %(dev)s failed for '
                           'node %(node)s, moving to next virtual media '
                           'device, if available. %(exc)s'
                           % {'dev': v_media.identity, 'exc': exc,
                              'node': info.node_uuid})
                LOG.warning(message)
                failures.append(message)
                continue
            LOG.info('Inserted boot media %(url)s into %(dev)s for node '
                     '%(node)s', {'url': image_url, 'dev': v_media.identity,
                                  'node': info.node_uuid})
            return True
        return False

    try:
        if handle.call(_insert):
            return
    except sushy.exceptions.ServerSideError as exc:
        failures.append(str(exc))
    if failures:
        raise errors.InvalidParameterValue(
            err='Virtual media mount failed for node %(node)s with image '
                '%(url)s. Error: %(error)s' % {'node': info.node_uuid,
                                               'url': image_url,
                                               'error': failures[-1]})
    raise errors.InvalidParameterValue(
        err='No suitable virtual media device found for node %(node)s to '
            'mount image %(url)s' % {'node': info.node_uuid,
                                     'url': image_url})
