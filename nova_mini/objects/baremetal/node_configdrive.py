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

"""The config drive of a node's deploy or rebuild, in the forms the
provision request gives it (``configdrive``), as Ironic takes them:

* text: gzip + base64 of an ISO image (what Nova's Ironic driver sends),
  or the http(s) URL of one (fetched by the deploy, not here). The text
  must decode to an image of at most ``[DEFAULT] config_drive_max_size``;
  a URL is checked for its scheme and host only.
* a JSON object (API 1.56) with ``meta_data``, ``network_data``,
  ``user_data`` and (1.59) ``vendor_data``, from which the bare-metal side
  builds the image itself, in the layout Ironic's build writes (see
  ``files``), and stores it encoded as the text form.

Node.set_provision_state stores the text in ``instance_info['configdrive']``
(masked by the API unless ``show_instance_secrets`` allows it). Nothing here
logs a config drive or puts its content in a message.
"""

import json
import string
import urllib.parse

from nova_mini import conf
from nova_mini.configdrive import iso
from nova_mini import exception

CONF = conf.CONF

# The metadata versions Ironic's build writes each file under.
VERSIONS = ('2012-08-10', 'latest')
URL_SCHEMES = ('http', 'https')
# base64's alphabet, and the line breaks and spaces Ironic lets through
# (``base64`` wraps its output).
_BASE64_OR_SPACE = frozenset(string.ascii_letters + string.digits +
                             '+/=' + ' \t\r\n')


def is_url(text):
    """Whether ``text`` is given as a URL (``://`` is no base64)."""
    return '://' in text


def check_text(text):
    """Check the text form of a config drive (see the module).

    :param text: a URL, or gzip + base64 of an image.
    :raises nova_mini.exception.Invalid: a URL of another scheme or no host.
    :raises nova_mini.exception.ConfigDriveInvalid: not gzip + base64.
    :raises nova_mini.exception.ConfigDriveTooLarge: the image is over the cap.
    """
    if is_url(text):
        try:
            parts = urllib.parse.urlsplit(text.strip())
        except ValueError:
            parts = None
        if parts is None or parts.scheme.lower() not in URL_SCHEMES or \
                not parts.hostname:
            raise exception.Invalid(
                'Invalid configdrive format: a config drive URL must be '
                'http or https, with a host.')
        return
    if set(text) - _BASE64_OR_SPACE:
        raise exception.Invalid(
            'Invalid configdrive format: it is neither a JSON, nor a URL, '
            'nor a base64 string')
    iso.decode(''.join(text.split()), max_size=CONF.config_drive_max_size)


def _json(value):
    return json.dumps(value).encode('utf-8')


def files(node, document):
    """Return the files of the image built from ``document``: for each of
    VERSIONS, ``openstack/<version>/meta_data.json`` (the node's uuid and,
    when it has one, name unless ``meta_data`` gives them),
    ``network_data.json``, ``vendor_data2.json`` (``vendor_data``) and
    ``user_data`` (a JSON object or list as JSON text, a string as UTF-8),
    each of the last three only when given and not empty.

    :param node: the Node (its uuid and name are read).
    :param document: the checked JSON object.
    :returns: {path: bytes}.
    """
    meta_data = dict(document.get('meta_data') or {})
    meta_data.setdefault('uuid', node.uuid)
    if node.name:
        meta_data.setdefault('name', node.name)
    user_data = document.get('user_data')
    if isinstance(user_data, (dict, list)):
        user_data = _json(user_data)
    elif user_data:
        user_data = user_data.encode('utf-8')
    content = {'meta_data.json': _json(meta_data)}
    if document.get('network_data'):
        content['network_data.json'] = _json(document['network_data'])
    if document.get('vendor_data'):
        content['vendor_data2.json'] = _json(document['vendor_data'])
    if user_data:
        content['user_data'] = user_data
    return {'openstack/%s/%s' % (version, name): data
            for version in VERSIONS for name, data in content.items()}


def build(node, document):
    """Build the image of ``document`` (see files) and return its text form.

    :raises nova_mini.exception.ConfigDriveTooLarge: over the cap.
    """
    return iso.encode(iso.build(files(node, document),
                                max_size=CONF.config_drive_max_size))
