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

"""The hardware objects a nova-mini-conductor drives nodes with, by
hardware type (the node's driver).

The redfish one is imported on first use, so that the conductor's other
modules (and nova-mini-api, which asks the hash ring) do not load sushy.
"""

import threading

from oslo_utils import importutils

from nova_mini import exception

# Hardware type -> the class of its hardware object (module:Class).
HARDWARE = {
    'redfish': 'nova_mini.drivers.redfish.hardware.RedfishHardware',
}
# The hardware types a conductor drives (the others of [DEFAULT]
# enabled_hardware_types, fake-hardware, are driven by nova-mini-api).
REAL_HARDWARE_TYPES = tuple(sorted(HARDWARE))

_LOCK = threading.Lock()
_LOADED = {}


def enabled(hardware_types):
    """Return the hardware types of hardware_types (an [DEFAULT]
    enabled_hardware_types) a conductor drives, sorted.
    """
    return sorted(set(hardware_types) & set(REAL_HARDWARE_TYPES))


def hardware_for(node):
    """Return the hardware object of node's hardware type (one per
    type and process: it keeps the BMC sessions).

    :raises nova_mini.exception.Invalid: no conductor drives this type.
    """
    name = node.driver
    if name not in HARDWARE:
        raise exception.Invalid(
            'Hardware type %s is not driven by nova-mini-conductor (it '
            'drives %s).' % (name, ', '.join(REAL_HARDWARE_TYPES)))
    with _LOCK:
        if name not in _LOADED:
            _LOADED[name] = importutils.import_class(HARDWARE[name])()
        return _LOADED[name]
