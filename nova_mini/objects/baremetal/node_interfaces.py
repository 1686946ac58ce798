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

nova_mini drives one hardware type, Ironic's ``fake-hardware``: every
interface of a node is one of the implementations below, the first of
each being the default a node gets when it names none (as Ironic picks
the first implementation its hardware type supports and its
configuration enables). There is no networking service, so the network
interface is ``noop`` only.
"""

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

HARDWARE_TYPES = {FAKE_HARDWARE: _FAKE_HARDWARE_INTERFACES}

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


def resolve(driver, values):
    """Return the interface fields of a node of hardware type ``driver``.

    :param driver: the node's hardware type (one of HARDWARE_TYPES).
    :param values: ``{field: implementation or None}`` for some of FIELDS;
        None or absent means the default.
    :returns: ``{field: implementation}`` for every field of FIELDS.
    :raises nova_mini.exception_baremetal.IncompatibleInterface: an implementation
        the hardware type does not have.
    """
    supported = HARDWARE_TYPES[driver]
    result = {}
    for name in TYPES:
        field = '%s_interface' % name
        impl = values.get(field)
        if impl is None:
            impl = supported[name][0]
        elif impl not in supported[name]:
            raise exception_baremetal.IncompatibleInterface(
                interface_type=name, interface_impl=impl,
                hardware_type=driver, valid=', '.join(supported[name]))
        result[field] = impl
    return result


def implemented(node, interface_type):
    """Return whether ``node``'s ``interface_type`` interface does
    something: not a ``no-...`` implementation, nor none at all.
    """
    impl = getattr(node, '%s_interface' % interface_type)
    return bool(impl) and not impl.startswith('no-')
