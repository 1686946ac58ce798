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

"""The hardware types nodes may have, and the interfaces of each.

nova_mini has two hardware types, named as Ironic's:

* ``fake-hardware``, driven by nova-mini-api within its requests (its
  "hardware" is the node's row);
* ``redfish``, driven by nova-mini-conductor over Redfish
  (nova_mini.drivers.redfish). Only what nova_mini implements is listed:
  ``redfish`` power and management, ``redfish-virtual-media`` boot and
  the ``ramdisk`` deploy (the instance boots its image from virtual
  media; Ironic's ``direct`` deploy needs its agent, which nova_mini does
  not have), and for every other interface the implementation of
  Ironic's redfish hardware type that does nothing (``no-bios``,
  ``no-console``, ``no-inspect``, ``no-raid``, ``no-rescue``,
  ``no-vendor``, ``noop`` network and storage).

Every interface of a node is one of the implementations of its hardware
type below that ``[DEFAULT] enabled_<type>_interfaces`` enables (Ironic's
options; by default every implementation nova_mini has). A node naming
none gets ``[DEFAULT] default_<type>_interface`` if set, or else the
first implementation of its hardware type's list (their order is the
hardware type's preference) that is enabled, as Ironic's driver factory
picks it. There is no networking service, so the network interface is
``noop`` only.

Each service registers what its options enable of the hardware types it
drives (objects.baremetal.conductor.enabled_interfaces: nova-mini-api for
fake-hardware, nova-mini-conductor for redfish); nova-mini-api checks and
fills in the interfaces of the nodes created and patched from what the
alive conductors of the node's hardware type registered
(resolve_registered), as Ironic's conductor checks them against its own,
and its drivers resource shows the same; nova-mini-conductor refuses to
start when a hardware type it drives would have no default for an
interface type (check_config).
"""

from nova_mini import conf
from nova_mini import exception
from nova_mini import exception_baremetal

FAKE_HARDWARE = 'fake-hardware'

# Interface type -> implementations of fake-hardware, the default first.
_FAKE_HARDWARE_INTERFACES = {
    'bios': ('fake', 'no-bios'),
    'boot': ('fake',),
    'console': ('fake', 'no-console'),
    'deploy': ('fake',),
    'inspect': ('fake', 'no-inspect'),
    'management': ('fake',),
    'network': ('noop',),
    'power': ('fake',),
    'raid': ('fake', 'no-raid'),
    'rescue': ('fake', 'no-rescue'),
    'storage': ('fake', 'noop'),
    'vendor': ('fake', 'no-vendor'),
}

REDFISH = 'redfish'

# Interface type -> implementations of redfish nova_mini has, the default
# first (a subset of those of Ironic 39's redfish hardware type).
_REDFISH_INTERFACES = {
    'bios': ('no-bios',),
    'boot': ('redfish-virtual-media',),
    'console': ('no-console',),
    'deploy': ('ramdisk',),
    'inspect': ('no-inspect',),
    'management': ('redfish',),
    'network': ('noop',),
    'power': ('redfish',),
    'raid': ('no-raid',),
    'rescue': ('no-rescue',),
    'storage': ('noop',),
    'vendor': ('no-vendor',),
}

HARDWARE_TYPES = {FAKE_HARDWARE: _FAKE_HARDWARE_INTERFACES,
                  REDFISH: _REDFISH_INTERFACES}

# The hardware types a nova-mini-conductor drives (over RPC, through the
# hash ring); the others are driven by nova-mini-api in its requests.
# nova_mini.conductor.drivers.REAL_HARDWARE_TYPES is the same list.
CONDUCTOR_HARDWARE_TYPES = (REDFISH,)
# The interfaces of a conductor's hardware that its conductor validates
# (the others do nothing and are validated as fake-hardware's are).
CONDUCTOR_INTERFACES = ('boot', 'deploy', 'management', 'power')

# The interface types, and the node field of each.
TYPES = tuple(sorted(_FAKE_HARDWARE_INTERFACES))
FIELDS = tuple('%s_interface' % name for name in TYPES)


def check_driver(driver):
    """Refuse a hardware type nova_mini does not drive.

    :param driver: the node's ``driver``.
    :raises nova_mini.exception_baremetal.DriverNotFound: not one of HARDWARE_TYPES.
    """
    if driver not in HARDWARE_TYPES:
        raise exception_baremetal.DriverNotFound(
            driver=driver, drivers=', '.join(sorted(HARDWARE_TYPES)))


def conductor_driven(driver):
    """Whether nodes of the hardware type ``driver`` are driven by a
    nova-mini-conductor (their operations go over RPC), not by the API.
    """
    return driver in CONDUCTOR_HARDWARE_TYPES


# Interface type -> every implementation nova_mini has, of any hardware
# type (what [DEFAULT] enabled_<type>_interfaces may name).
KNOWN = {name: tuple(sorted({impl for interfaces in HARDWARE_TYPES.values()
                             for impl in interfaces[name]}))
         for name in TYPES}

# How Ironic's messages name where the implementations of a type come
# from (its entry points).
_ENTRYPOINT = 'ironic.hardware.interfaces.%s'


def enabled(interface_type):
    """Return the implementations ``[DEFAULT]
    enabled_<interface_type>_interfaces`` enables, in its order, without
    duplicates or empty items.
    """
    names = getattr(conf.CONF, 'enabled_%s_interfaces' % interface_type)
    result = []
    for name in names or ():
        name = name.strip()
        if name and name not in result:
            result.append(name)
    return result


def enabled_supported(driver, interface_type):
    """Return the implementations of ``interface_type`` that the hardware
    type ``driver`` supports and the configuration enables, in the
    hardware type's order of preference.
    """
    names = enabled(interface_type)
    return [impl for impl in HARDWARE_TYPES[driver][interface_type]
            if impl in names]


def _not_enabled(interface_type, impl):
    return exception_baremetal.InterfaceNotFoundInEntrypoint(
        iface=impl, entrypoint=_ENTRYPOINT % interface_type,
        valid=enabled(interface_type))


def _no_default(driver, interface_type, node):
    return exception_baremetal.NoValidDefaultForInterface(
        node_info='' if node is None else ' node %s with' % node,
        driver=driver, interface_type=interface_type)


def check_interface(driver, interface_type, impl):
    """Refuse ``impl`` for the ``interface_type`` interface of a node of
    hardware type ``driver`` unless it is enabled and supported.

    :raises nova_mini.exception_baremetal.InterfaceNotFoundInEntrypoint:
        an implementation nova_mini has that the configuration does not
        enable.
    :raises nova_mini.exception_baremetal.IncompatibleInterface: one the
        hardware type does not support (or nova_mini does not have).
    """
    names = enabled(interface_type)
    if impl not in names and impl in KNOWN[interface_type]:
        raise _not_enabled(interface_type, impl)
    if impl not in HARDWARE_TYPES[driver][interface_type]:
        raise exception_baremetal.IncompatibleInterface(
            interface_type=interface_type, interface_impl=impl,
            hardware_type=driver,
            valid=', '.join(enabled_supported(driver, interface_type)))


def default(driver, interface_type, node=None):
    """Return the implementation a node of hardware type ``driver`` gets
    for ``interface_type`` when it names none: ``[DEFAULT]
    default_<interface_type>_interface`` if set, else the first one the
    hardware type supports that is enabled.

    :param node: the node's uuid, for the message, if known.
    :raises nova_mini.exception_baremetal.InterfaceNotFoundInEntrypoint:
        the configured default is not enabled.
    :raises nova_mini.exception_baremetal.NoValidDefaultForInterface: the
        configured default is not one of the hardware type, or none of
        its implementations is enabled.
    """
    impl = getattr(conf.CONF, 'default_%s_interface' % interface_type)
    if impl is not None:
        if impl not in enabled(interface_type):
            raise _not_enabled(interface_type, impl)
        if impl not in HARDWARE_TYPES[driver][interface_type]:
            raise _no_default(driver, interface_type, node)
        return impl
    usable = enabled_supported(driver, interface_type)
    if not usable:
        raise _no_default(driver, interface_type, node)
    return usable[0]


def resolve(driver, values, node=None):
    """Return the interface fields of a node of hardware type ``driver``.

    :param driver: the node's hardware type (one of HARDWARE_TYPES).
    :param values: ``{field: implementation or None}`` for some of FIELDS;
        None or absent means the default.
    :param node: the node's uuid, for the messages, if known.
    :returns: ``{field: implementation}`` for every field of FIELDS.
    :raises nova_mini.exception_baremetal.IncompatibleInterface,
        InterfaceNotFoundInEntrypoint, NoValidDefaultForInterface: see
        check_interface and default.
    """
    result = {}
    for name in TYPES:
        field = '%s_interface' % name
        impl = values.get(field)
        if impl is None:
            impl = default(driver, name, node=node)
        else:
            check_interface(driver, name, impl)
        result[field] = impl
    return result


def resolve_registered(registered, values, node=None):
    """Return the interface fields of a node of the hardware type
    ``registered.driver``, checked against what its alive conductors
    registered (as Ironic's conductor checks a node against its own
    interfaces) rather than this service's configuration.

    :param registered: the conductors' registrations
        (objects.baremetal.conductor.Registered: ``enabled(type)``,
        ``enabled_any(type)``, ``default(type)``).
    :param values: ``{field: implementation or None}`` for some of FIELDS;
        None or absent means the registered default.
    :param node: the node's uuid, for the messages, if known.
    :returns: ``{field: implementation}`` for every field of FIELDS.
    :raises nova_mini.exception_baremetal.InterfaceNotFoundInEntrypoint:
        an implementation nova_mini has that no alive conductor enables,
        for any hardware type (the message lists those they do).
    :raises nova_mini.exception_baremetal.IncompatibleInterface: one the
        conductors of the hardware type do not enable for it (or that
        nova_mini does not have).
    :raises nova_mini.exception_baremetal.NoValidDefaultForInterface: no
        default registered for an interface type the node names none of.
    """
    driver = registered.driver
    result = {}
    for name in TYPES:
        field = '%s_interface' % name
        impl = values.get(field)
        if impl is None:
            impl = registered.default(name)
            if impl is None:
                raise _no_default(driver, name, node)
        elif impl not in registered.enabled(name):
            loaded = registered.enabled_any(name)
            if impl in KNOWN[name] and impl not in loaded:
                raise exception_baremetal.InterfaceNotFoundInEntrypoint(
                    iface=impl, entrypoint=_ENTRYPOINT % name, valid=loaded)
            raise exception_baremetal.IncompatibleInterface(
                interface_type=name, interface_impl=impl,
                hardware_type=driver,
                valid=', '.join(registered.enabled(name)))
        result[field] = impl
    return result


def fill_defaults(driver, values, node=None):
    """Return ``values`` with the interface fields it leaves unset (None
    or absent) given this service's defaults (see default); those it
    sets are kept as they are (checked by the caller).
    """
    result = dict(values)
    for name in TYPES:
        field = '%s_interface' % name
        if result.get(field) is None:
            result[field] = default(driver, name, node=node)
    return result


def check_config(hardware_types):
    """Refuse a configuration a service cannot drive ``hardware_types``
    with (Ironic's conductor does not start with it): an
    ``enabled_<type>_interfaces`` naming an implementation nova_mini does
    not have, or an interface type of one of ``hardware_types`` with no
    default.

    :raises nova_mini.exception.Invalid: with the first problem found.
    """
    for name in TYPES:
        unknown = [impl for impl in enabled(name)
                   if impl not in KNOWN[name]]
        if unknown:
            raise exception.Invalid(
                '[DEFAULT] enabled_%s_interfaces names implementations '
                'nova_mini does not have: %s (it has: %s).' % (
                    name, ', '.join(unknown), ', '.join(KNOWN[name])))
    for driver in hardware_types:
        for name in TYPES:
            default(driver, name)


def implemented(node, interface_type):
    """Return whether ``node``'s ``interface_type`` interface does
    something: not a ``no-...`` implementation, nor none at all.
    """
    impl = getattr(node, '%s_interface' % interface_type)
    return bool(impl) and not impl.startswith('no-')
