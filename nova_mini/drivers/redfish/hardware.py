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

"""The ``redfish`` hardware type as nova-mini-conductor calls it.

Interfaces (Ironic's names): power ``redfish``, management ``redfish``,
boot ``redfish-virtual-media``, deploy ``ramdisk``. Every method blocks
until the BMC has done what it was asked (or fails with an error of
:mod:`nova_mini.drivers.redfish.errors`), takes a node with ``uuid``,
``driver_info``, ``instance_info`` and ``driver_internal_info``, and
touches no database: the caller stores what changed, which is at most
``driver_internal_info['redfish_boot_device']`` (see management).
"""

import functools

from oslo_log import log as logging
import sushy

from nova_mini.drivers.redfish import deploy as deploy_mod
from nova_mini.drivers.redfish import driver_info
from nova_mini.drivers.redfish import errors
from nova_mini.drivers.redfish import management
from nova_mini.drivers.redfish import power
from nova_mini.drivers.redfish import virtual_media

LOG = logging.getLogger(__name__)

NAME = 'redfish'
INTERFACES = {
    'power': 'redfish',
    'management': 'redfish',
    'boot': 'redfish-virtual-media',
    'deploy': 'ramdisk',
}


def _redfish_errors(method):
    """sushy's errors that reach this far become RedfishError."""
    @functools.wraps(method)
    def wrapper(self, node, *args, **kwargs):
        try:
            return method(self, node, *args, **kwargs)
        except sushy.exceptions.SushyError as exc:
            LOG.error('Redfish operation %(op)s failed for node %(node)s: '
                      '%(error)s', {'op': method.__name__,
                                    'node': node.uuid, 'error': exc})
            raise errors.RedfishError(error=exc)
    return wrapper


class RedfishHardware(object):
    """The redfish hardware type's operations on one node at a time."""

    name = NAME
    interfaces = INTERFACES
    supported_power_states = power.SUPPORTED_POWER_STATES

    def validate(self, node):
        """{interface: (ok, reason)} for power, management, boot and
        deploy, from the node's driver_info and instance_info alone (no
        BMC is reached, as in Ironic).
        """
        try:
            driver_info.parse(node)
            info_result = (True, None)
        except errors.InvalidParameterValue as exc:
            info_result = (False, exc.format_message())
        boot_result = info_result
        if info_result[0]:
            try:
                deploy_mod.image_info(node)
            except errors.InvalidParameterValue as exc:
                boot_result = (False, exc.format_message())
        return {'power': info_result, 'management': info_result,
                'boot': boot_result, 'deploy': boot_result}

    def validate_interface(self, node, interface):
        """Check what ``interface`` (power, management, boot or deploy)
        needs of the node, as ``validate`` does, raising its error.

        :raises: MissingParameterValue, InvalidParameterValue (Ironic's
            messages).
        """
        driver_info.parse(node)
        if interface in ('boot', 'deploy'):
            deploy_mod.image_info(node)

    @_redfish_errors
    def get_power_state(self, node):
        return power.get_power_state(driver_info.parse(node))

    @_redfish_errors
    def set_power_state(self, node, target, timeout=None):
        power.set_power_state(driver_info.parse(node), target,
                              timeout=timeout, node=node)

    @_redfish_errors
    def get_boot_device(self, node):
        return management.get_boot_device(driver_info.parse(node))

    @_redfish_errors
    def set_boot_device(self, node, device, persistent=False):
        management.set_boot_device(driver_info.parse(node), device,
                                   persistent=persistent, node=node)

    @_redfish_errors
    def get_supported_boot_devices(self, node):
        return management.get_supported_boot_devices(
            driver_info.parse(node))

    @_redfish_errors
    def deploy(self, node, boot_iso_url, configdrive_url=None):
        return deploy_mod.deploy(driver_info.parse(node), node, boot_iso_url,
                                 configdrive_url=configdrive_url)

    @_redfish_errors
    def tear_down(self, node):
        deploy_mod.tear_down(driver_info.parse(node), node)

    @_redfish_errors
    def get_sensors_data(self, node):
        return management.get_sensors_data(driver_info.parse(node))

    @_redfish_errors
    def get_supported_indicators(self, node, component=None):
        return management.get_supported_indicators(driver_info.parse(node),
                                                   component=component)

    @_redfish_errors
    def get_indicator_state(self, node, component, indicator):
        return management.get_indicator_state(driver_info.parse(node),
                                              component, indicator)

    @_redfish_errors
    def set_indicator_state(self, node, component, indicator, state):
        management.set_indicator_state(driver_info.parse(node), component,
                                       indicator, state)

    @_redfish_errors
    def get_virtual_media(self, node):
        return virtual_media.get(driver_info.parse(node))
