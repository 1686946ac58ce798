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

"""Management of a node over Redfish (Ironic's ``redfish`` management
interface): the boot device, sensors and indicator LEDs.

A boot device is set with one PATCH of the ComputerSystem's ``Boot``:
``BootSourceOverrideTarget``, and ``BootSourceOverrideEnabled``
(``Continuous`` when persistent, ``Once`` otherwise) only when it differs
from what the BMC has, as Ironic sends it. A BMC that refuses a persistent
boot device gets a one-time one instead, and the node remembers it in
``driver_internal_info['redfish_boot_device']``: power on and reboot set
it again (:func:`restore_boot_device`); the caller stores the node.
"""

from oslo_log import log as logging
import sushy

from nova_mini.drivers.redfish import connection
from nova_mini.drivers.redfish import errors

LOG = logging.getLogger(__name__)

PXE = 'pxe'
DISK = 'disk'
CDROM = 'cdrom'
BIOS = 'bios'
UEFIHTTP = 'uefihttp'

BOOT_DEVICE_MAP = {
    sushy.BOOT_SOURCE_TARGET_PXE: PXE,
    sushy.BOOT_SOURCE_TARGET_HDD: DISK,
    sushy.BOOT_SOURCE_TARGET_CD: CDROM,
    sushy.BOOT_SOURCE_TARGET_BIOS_SETUP: BIOS,
    sushy.BOOT_SOURCE_TARGET_UEFI_HTTP: UEFIHTTP,
}
BOOT_DEVICE_MAP_REV = {v: k for k, v in BOOT_DEVICE_MAP.items()}

BOOT_DEVICE_PERSISTENT_MAP = {
    sushy.BOOT_SOURCE_ENABLED_CONTINUOUS: True,
    sushy.BOOT_SOURCE_ENABLED_ONCE: False,
}
BOOT_DEVICE_PERSISTENT_MAP_REV = {
    v: k for k, v in BOOT_DEVICE_PERSISTENT_MAP.items()}

# Ironic's indicator states and components.
INDICATOR_MAP = {
    sushy.INDICATOR_LED_LIT: 'ON',
    sushy.INDICATOR_LED_OFF: 'OFF',
    sushy.INDICATOR_LED_BLINKING: 'BLINKING',
    sushy.INDICATOR_LED_UNKNOWN: 'UNKNOWN',
}
INDICATOR_MAP_REV = {v: k for k, v in INDICATOR_MAP.items()}
# The states an indicator LED can be set to (all of them settable).
INDICATOR_STATES = ['BLINKING', 'OFF', 'ON']
SYSTEM = 'system'
CHASSIS = 'chassis'

INTERNAL_BOOT_DEVICE = 'redfish_boot_device'


def get_boot_device(info):
    """``{'boot_device': ..., 'persistent': ...}`` as the BMC reports it
    (None for what it does not report or nova_mini does not know).
    """
    def _get(system):
        return {'boot_device': BOOT_DEVICE_MAP.get(system.boot.target),
                'persistent': BOOT_DEVICE_PERSISTENT_MAP.get(
                    system.boot.enabled)}
    return connection.call_system(info, _get)


def _supported(system):
    allowed = system.boot.allowed_values
    if not allowed:
        return list(BOOT_DEVICE_MAP_REV)
    allowed = set(allowed)
    return [device for device, target in BOOT_DEVICE_MAP_REV.items()
            if target.value in allowed]


def get_supported_boot_devices(info):
    """The boot devices of BOOT_DEVICE_MAP the BMC allows (all of them
    when it does not list its BootSourceOverrideTarget values).
    """
    return connection.call_system(info, _supported)


def _patch_boot(system, target, persistent):
    """Set ``target``; False when only a one-time boot could be set."""
    desired = BOOT_DEVICE_PERSISTENT_MAP_REV[persistent]
    enabled = desired if desired != system.boot.enabled else None
    try:
        system.set_system_boot_options(target, enabled=enabled)
        return True
    except sushy.exceptions.SushyError as exc:
        if enabled != sushy.BOOT_SOURCE_ENABLED_CONTINUOUS:
            raise
        LOG.warning('Could not set persistent boot device to %(dev)s '
                    '(%(error)s), using one-time boot device instead',
                    {'dev': target.value, 'error': exc})
        system.set_system_boot_options(
            target, enabled=sushy.BOOT_SOURCE_ENABLED_ONCE)
        return False


def set_boot_device(info, device, persistent=False, node=None,
                    handle=None):
    """Make the node boot from ``device`` next (and on, if persistent).

    ``handle`` (a connection.SystemHandle) makes it a step of a longer
    operation: the Boot the operation read (a BMC does not change it on
    its own) decides what the PATCH holds.

    :raises: InvalidBootDevice for a device the BMC does not offer.
    :raises: RedfishError when the BMC refuses it.
    """
    internal = node.driver_internal_info if node is not None else None
    if internal is not None:
        internal.pop(INTERNAL_BOOT_DEVICE, None)

    def _set(system):
        supported = _supported(system)
        if device not in supported:
            raise errors.InvalidBootDevice(device=device,
                                           supported=', '.join(supported))
        return _patch_boot(system, BOOT_DEVICE_MAP_REV[device], persistent)

    try:
        if handle is None:
            kept = connection.call_system(info, _set)
        else:
            kept = handle.call(_set)
    except sushy.exceptions.SushyError as exc:
        message = ('Redfish set boot device failed for node %(node)s. '
                   'Error: %(error)s' % {'node': info.node_uuid,
                                         'error': exc})
        LOG.error(message)
        raise errors.RedfishError(error=message)
    if not kept and internal is not None:
        internal[INTERNAL_BOOT_DEVICE] = device


def restore_boot_device(info, node, handle=None):
    """Set again the one-time boot device standing for a persistent one
    the BMC refused; a failure is only logged (as Ironic). The System is
    read first (with a ``handle``, its operation may have set the boot
    device already).
    """
    device = (node.driver_internal_info or {}).get(INTERNAL_BOOT_DEVICE)
    if not device or device not in BOOT_DEVICE_MAP_REV:
        return
    LOG.debug('Restoring boot device %(dev)s on node %(node)s',
              {'dev': device, 'node': info.node_uuid})
    try:
        (handle or connection.SystemHandle(info)).call(
            lambda system: _patch_boot(
                system, BOOT_DEVICE_MAP_REV[device], False), fresh=True)
    except (sushy.exceptions.SushyError, errors.RedfishError) as exc:
        LOG.warning('Unable to recover boot device %(dev)s for node '
                    '%(node)s, relying on the pre-configured boot order. '
                    'Error: %(error)s', {'dev': device,
                                         'node': info.node_uuid,
                                         'error': exc})


def _sensor(resource, *fields):
    values = {}
    for field in fields:
        value = getattr(resource, field, None)
        if value is not None:
            values[field] = getattr(value, 'value', value)
    status = getattr(resource, 'status', None)
    if status is not None:
        for field in ('state', 'health'):
            value = getattr(status, field, None)
            if value is not None:
                values[field] = getattr(value, 'value', value)
    return values


def _chassis_sensors(chassis, sensors):
    try:
        thermal = chassis.thermal
    except sushy.exceptions.SushyError:
        thermal = None
    if thermal is not None:
        for fan in thermal.fans or ():
            sensors['Fan']['%s@%s' % (fan.identity, chassis.identity)] = (
                _sensor(fan, 'identity', 'max_reading_range',
                        'min_reading_range', 'reading', 'reading_units',
                        'serial_number', 'physical_context'))
        for temp in thermal.temperatures or ():
            sensors['Temperature']['%s@%s' % (temp.identity,
                                              chassis.identity)] = (
                _sensor(temp, 'identity', 'max_reading_range_temp',
                        'min_reading_range_temp', 'reading_celsius',
                        'physical_context', 'sensor_number'))
    try:
        power = chassis.power
    except sushy.exceptions.SushyError:
        power = None
    if power is not None:
        for supply in power.power_supplies or ():
            name = '%s:%s@%s' % (supply.identity, power.identity,
                                 chassis.identity)
            sensors['Power'][name] = _sensor(
                supply, 'power_capacity_watts', 'line_input_voltage',
                'last_power_output_watts', 'serial_number')


def get_sensors_data(info):
    """Ironic's sensor data: ``Extra`` (manufacturer, model, UUID),
    ``Fan``, ``Temperature``, ``Power`` of the system's first chassis and
    ``Drive`` of its simple storage, each {name@resource: {field: value}};
    what the BMC does not have is empty.
    """
    def _get(system):
        sensors = {'Extra': {'Manufacturer': system.manufacturer,
                             'Model': system.model, 'UUID': system.uuid},
                   'Fan': {}, 'Temperature': {}, 'Power': {}, 'Drive': {}}
        try:
            chassis = system.chassis
        except sushy.exceptions.MissingAttributeError:
            chassis = []
        if chassis:
            _chassis_sensors(chassis[0], sensors)
        try:
            storages = system.simple_storage.get_members()
        except sushy.exceptions.SushyError:
            storages = []
        for storage in storages:
            for drive in storage.devices or ():
                name = '%s:%s@%s' % (drive.name, storage.identity,
                                     system.identity)
                sensors['Drive'][name] = _sensor(drive, 'name', 'model',
                                                 'capacity_bytes')
        return sensors
    return connection.call_system(info, _get)


def _indicator_name(resource):
    # As Ironic's: an indicator is named by its resource's UUID (its
    # identity when the BMC gives none).
    return resource.uuid or resource.identity


def _indicator_resources(system, component):
    if component == SYSTEM:
        return [system]
    if component == CHASSIS:
        try:
            return list(system.chassis or [])
        except sushy.exceptions.MissingAttributeError:
            return []
    return []


def _indicator_resource(info, system, component, indicator):
    for resource in _indicator_resources(system, component):
        if indicator in (_indicator_name(resource), resource.identity):
            return resource
    raise errors.MissingParameterValue(
        err='Unknown indicator %(indicator)s for component %(component)s '
            'of node %(node)s' % {'indicator': indicator,
                                  'component': component,
                                  'node': info.node_uuid})


def get_supported_indicators(info, component=None):
    """Ironic's ``{component: {indicator: {'readonly': bool, 'states':
    [...]}}}`` of the LEDs the BMC reports on the system and its chassis
    (only ``component``'s if given).
    """
    def _get(system):
        found = {}
        for name in (SYSTEM, CHASSIS):
            if component is not None and name != component:
                continue
            for resource in _indicator_resources(system, name):
                if resource.indicator_led is not None:
                    found.setdefault(name, {})[_indicator_name(resource)] = {
                        'readonly': False,
                        'states': list(INDICATOR_STATES)}
        return found
    return connection.call_system(info, _get)


def get_indicator_state(info, component, indicator):
    """The state (ON, OFF, BLINKING, UNKNOWN) of the LED ``indicator`` of
    ``component``.

    :raises: MissingParameterValue for an indicator the BMC does not have.
    """
    return connection.call_system(
        info, lambda system: INDICATOR_MAP.get(
            _indicator_resource(info, system, component,
                                indicator).indicator_led, 'UNKNOWN'))


def set_indicator_state(info, component, indicator, state):
    """Set the LED ``indicator`` of ``component`` to ON, OFF or BLINKING.

    :raises: InvalidParameterValue for another state.
    :raises: MissingParameterValue for an indicator the BMC does not have.
    :raises: RedfishError when the BMC refuses it.
    """
    if state not in INDICATOR_STATES:
        raise errors.InvalidParameterValue(
            err='Invalid indicator state %(state)s: use one of %(states)s'
                % {'state': state, 'states': ', '.join(INDICATOR_STATES)})

    def _set(system):
        resource = _indicator_resource(info, system, component, indicator)
        resource.set_indicator_led(INDICATOR_MAP_REV[state])
    try:
        connection.call_system(info, _set)
    except sushy.exceptions.SushyError as exc:
        raise errors.RedfishError(
            error='Redfish set %(component)s indicator failed for node '
                  '%(node)s: %(error)s' % {'component': component,
                                           'node': info.node_uuid,
                                           'error': exc})
