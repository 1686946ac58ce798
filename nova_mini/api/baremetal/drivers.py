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

"""The drivers resource: /drivers, /drivers/{name}, its ``properties``
and ``raid/logical_disk_properties``.

The drivers are the hardware types of nova_mini.objects.baremetal.node_interfaces
(``fake-hardware``, and ``redfish`` where a nova-mini-conductor enables
it) that an alive conductor drives (the ``hosts``, from
the conductors registry: objects/baremetal/conductor.py; as Ironic's, a hardware
type no alive conductor drives is neither listed nor found), with the
implementations of each interface type its alive conductors registered
(those ``[DEFAULT] enabled_<type>_interfaces`` enables on them, see
nova_mini.objects.baremetal.node_interfaces) and the default nodes get. Every hardware type is
``dynamic`` (Ironic's classic drivers are gone), so a ``type=classic``
list is empty.
"""

import pecan
from pecan import rest

from nova_mini.api.baremetal.schemas import drivers as schema
from nova_mini.api.baremetal import vendor_passthru
from nova_mini.api.baremetal import versions
from nova_mini.api.baremetal.views import nodes as node_views
from nova_mini.api import validation
from nova_mini.api import wsgi
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.policies.baremetal import drivers as policies

# The node properties each hardware type reads: those of its default
# interfaces (fake-hardware's default vendor interface names two).
_PROPERTIES = {
    node_interfaces.FAKE_HARDWARE: {
        'B1': 'B1 description. Required.',
        'B2': 'B2 description. Required.',
    },
    # The driver_info keys nova_mini's redfish driver reads
    # (nova_mini.drivers.redfish.driver_info), Ironic's names.
    node_interfaces.REDFISH: {
        'redfish_address': 'URL of the BMC\'s Redfish service: scheme, '
                           'host and port (https when no scheme is '
                           'given), e.g. https://bmc.example.com. '
                           'Required.',
        'redfish_system_id': 'Path of the node\'s ComputerSystem on the '
                             'BMC, e.g. /redfish/v1/Systems/1; needed only '
                             'when the BMC has more than one system (the '
                             'only one is used otherwise). Optional.',
        'redfish_username': 'BMC account to log in with; recommended. '
                            'Optional.',
        'redfish_password': 'Password of the BMC account (never shown: '
                            'masked in node bodies); recommended. '
                            'Optional.',
        'redfish_verify_ca': 'True to verify the BMC\'s TLS certificate '
                             'with the system\'s CAs (the default, or '
                             '[redfish] verify_ca), False not to verify '
                             'it, or the path of a CA bundle file or '
                             'directory to verify it with. Optional.',
        'redfish_auth_type': 'How to authenticate to the BMC: "basic", '
                             '"session" or "auto" (a session, or basic '
                             'authentication when the BMC has no session '
                             'service). The default is [redfish] '
                             'auth_type. Optional.',
    },
}

# What a logical disk of a RAID configuration may state (the RAID
# configuration schema every RAID interface checks against).
_LOGICAL_DISK_PROPERTIES = {
    'raid_level': 'RAID level of the logical disk: 0, 1, 2, 5, 6, 1+0, '
                  '5+0 or 6+0. Required.',
    'size_gb': 'Size in GiB (an integer) of the logical disk, or "MAX" '
               'for all the space left. Required.',
    'volume_name': 'Name of the volume. Optional.',
    'is_root_volume': 'Whether the logical disk is the root device. '
                      'Optional.',
    'share_physical_disks': 'Whether the logical disk may share physical '
                            'disks with other logical disks. Optional.',
    'disk_type': 'Type of physical disks: "hdd" or "ssd". Optional.',
    'interface_type': 'Interface of the physical disks: "sata", "scsi" or '
                      '"sas". Optional.',
    'number_of_physical_disks': 'How many physical disks the logical disk '
                                'spans. Optional.',
    'controller': 'The RAID controller holding the logical disk. Optional.',
    'physical_disks': 'The physical disks to use, as the controller names '
                      'them. Optional.',
}

# RAID implementations that configure nothing.
_NO_RAID = ('no-raid',)


def _hosts(name):
    return conductor.alive_hostnames(pecan.request.ctxt, driver=name)


def _get_driver(name):
    if name not in node_interfaces.HARDWARE_TYPES:
        raise exception_baremetal.HardwareTypeNotFound(driver=name)
    return node_interfaces.HARDWARE_TYPES[name]


def _links(path):
    view = node_views.NodeView(pecan.request)
    return [{'href': view.link(path), 'rel': 'self'},
            {'href': view.link(path, bookmark=True), 'rel': 'bookmark'}]


def _render(name, hosts, detail):
    req = pecan.request
    body = {'name': name, 'hosts': hosts,
            'links': _links('drivers/%s' % name)}
    if req.since(versions.STATES_LINKS):
        body['properties'] = _links('drivers/%s/properties' % name)
    if not req.since(versions.DYNAMIC_DRIVERS):
        return body
    body['type'] = 'dynamic'
    if detail:
        registered = conductor.hardware_interfaces(req.ctxt, name)
        for kind in node_interfaces.TYPES:
            if not req.since(versions.DRIVER_INTERFACES.get(kind)):
                continue
            enabled, default = registered.get(kind, ([], None))
            body['default_%s_interface' % kind] = default
            body['enabled_%s_interfaces' % kind] = enabled
    return body


def _bool(text):
    return text.lower() in ('1', 't', 'true', 'on', 'y', 'yes')


def _refuse_before_dynamic_drivers(name):
    req = pecan.request
    if req.GET.get(name) is not None and \
            not req.since(versions.DYNAMIC_DRIVERS):
        raise versions.not_acceptable(req)


class DriverRaidController(rest.RestController):
    """/drivers/{name}/raid/logical_disk_properties (from 1.12)."""

    _custom_actions = {'logical_disk_properties': ['GET']}

    def __init__(self, driver_name):
        self.driver_name = driver_name

    @wsgi.expose()
    @validation.query(schema.no_query)
    def logical_disk_properties(self):
        req = pecan.request
        req.ctxt.can(policies.GET_RAID_PROPERTIES)
        if not req.since(versions.RAID_CONFIG):
            raise versions.not_acceptable(req)
        _get_driver(self.driver_name)
        _enabled, default = conductor.hardware_interfaces(
            req.ctxt, self.driver_name).get('raid', ([], None))
        if default in _NO_RAID + (None,):
            raise exception_baremetal.HardwareTypeNotFound(driver=self.driver_name)
        return dict(_LOGICAL_DISK_PROPERTIES)


class DriverPropertiesController(rest.RestController):
    """/drivers/{name}/properties."""

    def __init__(self, driver_name):
        self.driver_name = driver_name

    @wsgi.expose()
    @validation.query(schema.no_query)
    def get_all(self):
        pecan.request.ctxt.can(policies.GET_PROPERTIES)
        _get_driver(self.driver_name)
        # As Ironic's, asked of a conductor of the hardware type: none
        # alive, not found.
        if not _hosts(self.driver_name):
            raise exception_baremetal.HardwareTypeNotFound(
                driver=self.driver_name)
        return dict(_PROPERTIES.get(self.driver_name, {}))


class DriversController(rest.RestController):
    """/drivers and /drivers/{name}."""

    @wsgi.expose()
    @validation.query(schema.list_query)
    def get_all(self):
        req = pecan.request
        detail = req.GET.get('detail')
        if req.GET.get('fields') is not None and detail is not None:
            raise exception.Invalid('Can not specify ?detail=True and fields '
                                    'in the same request.')
        req.ctxt.can(policies.GET)
        _refuse_before_dynamic_drivers('detail')
        _refuse_before_dynamic_drivers('type')
        if req.GET.get('fields') is not None:
            # Ironic takes fields= on drivers from 1.77 only.
            raise versions.not_acceptable(req)
        kind = req.GET.get('type')
        if kind not in (None, 'classic', 'dynamic'):
            raise exception.Invalid('"type" filter must be one of "classic" '
                                    'or "dynamic", if specified.')
        names = [] if kind == 'classic' else sorted(
            node_interfaces.HARDWARE_TYPES)
        detail = detail is not None and _bool(detail)
        drivers = []
        for name in names:
            hosts = _hosts(name)
            if hosts:
                drivers.append(_render(name, hosts, detail))
        return {'drivers': drivers}

    @wsgi.expose()
    @validation.query(schema.show_query)
    def get_one(self, driver_name):
        req = pecan.request
        req.ctxt.can(policies.GET)
        if req.GET.get('fields') is not None:
            raise versions.not_acceptable(req)
        _get_driver(driver_name)
        hosts = _hosts(driver_name)
        if not hosts:
            raise exception_baremetal.HardwareTypeNotFound(driver=driver_name)
        return _render(driver_name, hosts, detail=True)

    @pecan.expose()
    def _lookup(self, driver_name, *remainder):
        if remainder and remainder[0] == 'properties':
            return DriverPropertiesController(driver_name), remainder[1:]
        if remainder and remainder[0] == 'raid':
            return DriverRaidController(driver_name), remainder[1:]
        if remainder and remainder[0] == 'vendor_passthru':
            return (vendor_passthru.DriverVendorPassthruController(
                driver_name), remainder[1:])
        return None
