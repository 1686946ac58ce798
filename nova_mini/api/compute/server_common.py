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

"""What the servers resource and its sub-resources share.

The one lookup of a server with the caller's rights checked
(``get_server``, and ``authorize`` for the actions of a deleted server),
and the parts of a body that a create (servers.py) and a rebuild
(server_actions.py) both read: user data, disk configuration, key pair,
name and access addresses, the image the flavor must fit.
"""

import ipaddress

from oslo_serialization import base64
from oslo_utils import strutils
from oslo_utils import units
from oslo_utils import uuidutils

from nova_mini.api.validation import messages
from nova_mini import conf
from nova_mini import exception
from nova_mini import objects
from nova_mini import rpc

CONF = conf.CONF


def build_timeout(conf=CONF):
    """Seconds a server may stay in BUILD: ``[DEFAULT]
    rpc_response_timeout``, the time a scheduler call may take.
    """
    return rpc.response_timeout(conf)


def authorize(context, server_id, project_id, user_id, rule):
    """Check that the caller may ``rule`` server ``server_id`` of
    ``project_id`` and ``user_id``.

    :returns: the policy target, the server's project and user.
    :raises nova_mini.exception.InstanceNotFound: another project's server
        for a caller who is not an administrator, as Nova's project-scoped
        lookups do not find it.
    :raises nova_mini.exception.PolicyNotAuthorized: the rule refuses.
    """
    if not context.is_admin and project_id != context.project_id:
        raise exception.InstanceNotFound(instance_id=server_id)
    # The rules compare the caller's project with the server's.
    target = {'project_id': project_id, 'user_id': user_id}
    context.can(rule, target)
    return target


def get_server(context, server_id, rule):
    """Return the instance ``server_id`` if the caller may ``rule`` it
    (404 first, as Nova looks the server up before checking the policy on
    its project); a build overdue (``build_timeout``) is failed on the
    way.
    """
    instance = objects.Instance.get_by_uuid(context, server_id)
    authorize(context, server_id, instance.project_id, instance.user_id,
              rule)
    instance.expire_build(build_timeout())
    return instance


def check_user_data(body):
    """400 unless ``user_data`` is base64 as Nova's schema checks it (its
    ``base64`` format, in Nova's words); the text is kept as received.
    """
    user_data = body.get('user_data')
    if user_data is None:
        return
    try:
        base64.decode_as_bytes(user_data.encode('utf-8'))
    except (TypeError, ValueError):     # ValueError: not even ASCII
        raise exception.ValidationError(
            detail='Invalid input for field/attribute user_data. Value: '
                   '%s. Must be %s.' % (user_data,
                                        messages.FORMAT_MEANINGS['base64']))


def disk_config(body):
    """``OS-DCF:diskConfig`` of a create, rebuild or PUT body: True for
    AUTO, False for MANUAL, None when not given (the schema allows no
    other value).
    """
    value = body.get('OS-DCF:diskConfig')
    return None if value is None else value == 'AUTO'


def get_image_disk_config(image, requested):
    """The server's disk configuration with ``image``, as Nova settles it:
    the request's, else the image's ``auto_disk_config`` property (AUTO
    when it reads true). Nova's 400 for AUTO on an image whose property is
    ``disabled``.

    :param image: the ImageMeta (its Glance properties).
    :param requested: disk_config() of the body.
    :returns: True for AUTO, False for MANUAL.
    """
    prop = (image.get('raw_properties') or {}).get('auto_disk_config')
    disabled = prop is not None and prop.strip().lower() == 'disabled'
    if requested and disabled:
        raise exception.Invalid('Requested image %s has automatic disk '
                                'resize disabled.' % image.id)
    if requested is None:
        return strutils.bool_from_string(prop)
    return requested


def address(text):
    """An access address as Nova keeps it: in its standard form (an IPv6
    one compressed, '::babe:dc0c:1602'), the schema having checked it.
    """
    return None if text is None else str(ipaddress.ip_address(text))


def details_of(body):
    """What a PUT or rebuild body changes of the server's name,
    description and access addresses, as stored.
    """
    values = {}
    for field, name in (('name', 'name'), ('description', 'description'),
                        ('accessIPv4', 'access_ip_v4'),
                        ('accessIPv6', 'access_ip_v6')):
        if field in body:
            values[name] = body[field]
    for name in ('access_ip_v4', 'access_ip_v6'):
        if values.get(name) is not None:
            values[name] = address(values[name])
    return values


def refuse_personality():
    raise exception.Invalid(
        'Personality files are not supported: nova_mini injects no '
        'files into bare-metal instances; pass the files in user_data '
        '(for example as cloud-init write_files) instead.')


def generate_password():
    """An administrator password for a server whose request gave none
    (nothing sets it on the node, as with Nova's Ironic driver).
    """
    return uuidutils.generate_uuid(dashed=False)[:12]


def get_key_pair(context, key_name):
    """``(key_name, public key)`` of the caller's key pair ``key_name``
    (both None without one); Nova's 400 for one the user does not have.
    """
    if key_name is None:
        return None, None
    try:
        keypair = objects.KeyPair.get_by_name(context, context.user_id,
                                              key_name)
    except exception.KeypairNotFound:
        raise exception.Invalid('Invalid key_name provided.')
    return keypair.name, keypair.public_key


def _image_value(image, name):
    if image.obj_attr_is_set(name) and getattr(image, name) is not None:
        return int(getattr(image, name))
    return 0


def check_image_fits(flavor, image):
    """Nova's 400s for an image the flavor is too small for: its
    ``min_ram`` (MiB), and for a flavor with a disk size its ``min_disk``
    (GiB) and size (bytes). A flavor's 0 disk means no check, as in Nova.
    """
    if flavor.memory_mb < _image_value(image, 'min_ram'):
        raise exception.Invalid(
            "Flavor's memory is too small for requested image.")
    disk = flavor.root_gb * units.Gi
    if not disk:
        return
    if _image_value(image, 'size') > disk:
        raise exception.Invalid(
            "Flavor's disk is too small for requested image. Flavor disk "
            "is %d bytes, image is %d bytes."
            % (disk, _image_value(image, 'size')))
    min_disk = _image_value(image, 'min_disk') * units.Gi
    if min_disk > disk:
        raise exception.Invalid(
            "Flavor's disk is smaller than the minimum size specified in "
            "image metadata. Flavor disk is %d bytes, minimum size is %d "
            "bytes." % (disk, min_disk))
