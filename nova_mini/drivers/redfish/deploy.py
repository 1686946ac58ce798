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

"""The ``ramdisk`` deploy of a node over Redfish virtual media.

The instance boots its image from a virtual CD, as Ironic's ``ramdisk``
deploy interface with the ``redfish-virtual-media`` boot interface does:

deploy
    power off (waited for); eject every virtual medium; insert the boot
    ISO into the CD; insert the config drive image into the USB device
    when there is one to insert (a BMC without a USB device fails the
    deploy, as Ironic's); boot device ``cdrom``, persistent; power on
    (waited for).
tear down
    power off (waited for); eject every virtual medium.

Each is one operation on the BMC (connection.SystemHandle): the System
and the virtual media devices are read once, the power state again only
while a power change is waited for. A deploy of a node that is off with
empty media costs the BMC a GET of the System, of the media collection
and of each device, the insert, the boot device's PATCH, the Reset and
the GETs of the power-on wait.

Nothing is written to the node's disks: the ``direct`` deploy (an agent
writing the image) is not supported.
"""

from oslo_log import log as logging

from nova_mini.drivers.redfish import connection
from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import management
from nova_mini.drivers.redfish import power
from nova_mini.drivers.redfish import virtual_media
from nova_mini import states

LOG = logging.getLogger(__name__)


def image_info(node):
    """The image keys of ``node.instance_info`` a ramdisk deploy uses.

    :raises: InvalidParameterValue with both boot_iso and image_source.
    :raises: MissingParameterValue with none of boot_iso, image_source,
        kernel and ramdisk (Ironic's message).
    """
    instance_info = node.instance_info or {}
    boot_iso = instance_info.get('boot_iso')
    image_source = instance_info.get('image_source')
    if boot_iso:
        if image_source:
            raise errors.InvalidParameterValue(
                err="An 'image_source' and 'boot_iso' parameter may not be "
                    "specified at the same time.")
        return {'boot_iso': boot_iso}
    kernel = instance_info.get('kernel')
    ramdisk = instance_info.get('ramdisk')
    if kernel or ramdisk:
        info = {'kernel': kernel, 'ramdisk': ramdisk}
    elif image_source:
        info = {'image_source': image_source}
    else:
        info = {'kernel': None, 'ramdisk': None}
    missing = [key for key, value in info.items() if not value]
    if missing:
        raise errors.MissingParameterValue(
            err="Cannot validate image information for node %(node)s "
                "because one or more parameters are missing from its "
                "instance_info and insufficient information is present to "
                "boot from a remote volume. Missing are: %(missing)s"
                % {'node': node.uuid, 'missing': missing})
    return info


def _eject_all(info, handle):
    virtual_media.eject(info, virtual_media.CD, handle=handle)
    if virtual_media.has_device(info, virtual_media.USB, handle=handle):
        virtual_media.eject(info, virtual_media.USB, handle=handle)


def deploy(info, node, boot_iso_url, configdrive_url=None, timeout=None):
    """Boot ``node`` from ``boot_iso_url`` (and its config drive image).

    :returns: {'configdrive': True when a config drive was inserted}.
    :raises: InstanceDeployFailure when the config drive has no device;
        InvalidParameterValue when no CD takes the ISO; the power and
        connection errors.
    """
    if not boot_iso_url:
        raise errors.MissingParameterValue(
            err='No boot ISO to deploy node %s from' % node.uuid)
    handle = connection.SystemHandle(info)
    power.set_power_state(info, states.POWER_OFF, timeout=timeout,
                          handle=handle)
    _eject_all(info, handle)
    virtual_media.insert(info, boot_iso_url, virtual_media.CD,
                         handle=handle)
    attached = False
    if configdrive_url:
        if not virtual_media.has_device(info, virtual_media.USB,
                                        handle=handle):
            raise errors.InstanceDeployFailure(
                reason='Cannot attach configdrive for node %s: no suitable '
                       'virtual USB slot has been found' % node.uuid)
        try:
            virtual_media.insert(info, configdrive_url, virtual_media.USB,
                                 handle=handle)
        except errors.InvalidParameterValue as exc:
            raise errors.InstanceDeployFailure(reason=exc.format_message())
        attached = True
    management.set_boot_device(info, management.CDROM, persistent=True,
                               node=node, handle=handle)
    power.set_power_state(info, states.POWER_ON, timeout=timeout, node=node,
                          handle=handle)
    LOG.info('Deployment setup for node %s done', node.uuid)
    return {'configdrive': attached}


def tear_down(info, node, timeout=None):
    """Power ``node`` off and eject its virtual media."""
    handle = connection.SystemHandle(info)
    power.set_power_state(info, states.POWER_OFF, timeout=timeout,
                          handle=handle)
    _eject_all(info, handle)
    LOG.info('Tear down of node %s done', node.uuid)
