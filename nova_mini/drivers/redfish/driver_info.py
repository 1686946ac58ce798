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

"""A node's ``driver_info`` for the redfish hardware type, checked.

:func:`parse` reads the ``redfish_*`` keys of a node into a
:class:`RedfishInfo`, or raises Ironic's errors: MissingParameterValue
without ``redfish_address``, InvalidParameterValue for a value the driver
cannot use. It reaches no BMC.
"""

import dataclasses
import os
import re
from urllib import parse as urlparse

from oslo_utils import netutils
from oslo_utils import strutils

from nova_mini import conf
from nova_mini.drivers.redfish import errors

REQUIRED_PROPERTIES = ('redfish_address',)
OPTIONAL_PROPERTIES = ('redfish_system_id', 'redfish_username',
                       'redfish_password', 'redfish_verify_ca',
                       'redfish_auth_type')
# driver_info keys whose values are never logged nor shown.
SECRET_KEYS = ('redfish_password',)
AUTH_TYPES = ('basic', 'session', 'auto')
SCHEMES = ('http', 'https')

# A host name, an IPv4 address or a bracketed IPv6 one, then a port.
_AUTHORITY = re.compile(r'^(?:[A-Za-z0-9._~%!$&\'()*+,;=-]+|\[[0-9A-Fa-f:.]+\])'
                        r'(?::[0-9]{1,5})?$')


@dataclasses.dataclass(frozen=True)
class RedfishInfo:
    """What the driver needs to reach a node's BMC."""

    address: str                 # scheme://host[:port]
    system_id: str | None        # a path, None: the BMC's only system
    username: str | None
    password: str | None = dataclasses.field(repr=False)
    verify_ca: bool | str = True  # or the path to a CA bundle / directory
    auth_type: str = 'auto'
    node_uuid: str | None = None
    root_prefix: str | None = None   # the path of redfish_address, if any

    def cache_key_parts(self):
        """The fields naming a client, without the password itself."""
        return (self.address, self.root_prefix, self.username,
                self.verify_ca, self.auth_type)


def _invalid_address(address, node):
    return errors.InvalidParameterValue(
        err='Invalid Redfish address %(address)s set in '
            'driver_info/redfish_address on node %(node)s'
            % {'address': address, 'node': node})


def _parse_address(address, node):
    """(scheme://authority, root prefix or None) of redfish_address."""
    if not isinstance(address, str):
        raise _invalid_address(address, node)
    address = netutils.escape_ipv6(address.strip())
    parsed = urlparse.urlsplit(address)
    if not parsed.scheme or not parsed.netloc:
        # No scheme: https, as Ironic assumes.
        address = 'https://%s' % address
        parsed = urlparse.urlsplit(address)
    authority = parsed.netloc
    if (parsed.scheme.lower() not in SCHEMES or '@' in authority
            or not _AUTHORITY.match(authority) or parsed.query
            or parsed.fragment or re.search(r'\s', address)):
        raise _invalid_address(address, node)
    try:
        parsed.port
    except ValueError:
        raise _invalid_address(address, node)
    return ('%s://%s' % (parsed.scheme.lower(), authority),
            parsed.path or None)


def _parse_verify_ca(value, node):
    if value is None:
        value = True
    if value is True and conf.CONF.redfish.verify_ca:
        value = conf.CONF.redfish.verify_ca
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        if os.path.isdir(value) or os.path.isfile(value):
            return value
        try:
            return strutils.bool_from_string(value, strict=True)
        except ValueError:
            pass
    raise errors.InvalidParameterValue(
        err='Invalid value type set in driver_info/redfish_verify_ca on '
            'node %(node)s. The value should be a Boolean or the path to a '
            'file/directory, not "%(value)s"' % {'value': value,
                                                 'node': node})


def parse(node):
    """The :class:`RedfishInfo` of ``node`` (its ``driver_info``).

    :raises: MissingParameterValue when redfish_address is missing.
    :raises: InvalidParameterValue when a value is unusable.
    """
    info = node.driver_info or {}
    missing = [key for key in REQUIRED_PROPERTIES if not info.get(key)]
    if missing:
        raise errors.MissingParameterValue(
            err='Missing the following Redfish properties in node %(node)s '
                'driver_info: %(info)s' % {'node': node.uuid,
                                           'info': missing})
    address, root_prefix = _parse_address(info['redfish_address'],
                                          node.uuid)

    system_id = info.get('redfish_system_id')
    if system_id is not None:
        if not isinstance(system_id, str):
            raise errors.InvalidParameterValue(
                err='Invalid value "%(value)s" set in '
                    'driver_info/redfish_system_id on node %(node)s. The '
                    'value should be a path (string) to the resource that '
                    'the driver will interact with. For example: '
                    '/redfish/v1/Systems/1' % {'value': system_id,
                                               'node': node.uuid})
        system_id = urlparse.quote(system_id)

    verify_ca = _parse_verify_ca(info.get('redfish_verify_ca'), node.uuid)

    auth_type = info.get('redfish_auth_type') or conf.CONF.redfish.auth_type
    if auth_type not in AUTH_TYPES:
        raise errors.InvalidParameterValue(
            err='Invalid value "%(value)s" set in '
                'driver_info/redfish_auth_type on node %(node)s. The value '
                'should be one of "basic", "session" or "auto".'
                % {'value': auth_type, 'node': node.uuid})

    return RedfishInfo(address=address, system_id=system_id,
                       username=info.get('redfish_username'),
                       password=info.get('redfish_password'),
                       verify_ca=verify_ca, auth_type=auth_type,
                       node_uuid=node.uuid, root_prefix=root_prefix)


def mask(driver_info):
    """A copy of ``driver_info`` safe to log: secrets as ``******``."""
    return {key: ('******' if key in SECRET_KEYS and value else value)
            for key, value in (driver_info or {}).items()}
