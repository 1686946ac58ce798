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

"""``nova-mini-manage metadata show SERVER --config-drive``: read the
config drive a server's node received, as the instance reads the disk.

The drive is the text the node stores in ``instance_info['configdrive']``
(gzip + base64 of an ISO 9660 image, the form Nova's ironic driver sends):
read through the object layer with an admin context, so neither the
bare-metal API's masking nor its policy applies. The image's files are
named as a Linux instance sees them when it mounts the disk (Rock Ridge),
else as Windows does (Joliet), else by their plain ISO 9660 names.

Without ``--path`` the command lists the drive's files, one path a line;
with it, it prints that file: JSON pretty-printed as ``metadata show``
prints the service's answers, anything else as it is on the disk.
"""

import io
import json
import sys

import pycdlib
from pycdlib import pycdlibexception

from nova_mini.configdrive import iso
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.baremetal import node_configdrive

CONFIGDRIVE = 'configdrive'
# The directory the metadata service's paths are relative to.
OPENSTACK = 'openstack'


class DriveError(Exception):
    """What the command says, on one line, when it cannot show a drive."""


def _name(name, plain_iso):
    if plain_iso:
        # NOTE: the plain ISO 9660 names end with the file's version.
        return name.split(';', 1)[0]
    return name


def read_image(image):
    """Return the files of a config drive image.

    :param image: an ISO 9660 image (bytes).
    :returns: {path relative to the image's root: bytes}.
    :raises DriveError: not an ISO 9660 image pycdlib can read.
    """
    reader = pycdlib.PyCdlib()
    try:
        reader.open_fp(io.BytesIO(image))
    except pycdlibexception.PyCdlibException as exc:
        raise DriveError('The config drive is not an ISO 9660 image: %s'
                         % exc) from exc
    try:
        if reader.has_rock_ridge():
            kind = 'rr_path'
        elif reader.has_joliet():
            kind = 'joliet_path'
        else:
            kind = 'iso_path'
        plain_iso = kind == 'iso_path'
        files = {}
        for directory, _dirs, names in reader.walk(**{kind: '/'}):
            for name in names:
                source = '%s/%s' % (directory.rstrip('/'), name)
                data = io.BytesIO()
                reader.get_file_from_iso_fp(data, **{kind: source})
                path = '%s/%s' % (directory.strip('/'),
                                  _name(name, plain_iso))
                files[path.lstrip('/')] = data.getvalue()
        return files
    finally:
        reader.close()


def node_drive(context, instance, max_size):
    """Return the image of the config drive of ``instance``'s node.

    :param max_size: the largest image decoded, in bytes.
    :raises DriveError: the server is on no node, the node has no drive,
        or keeps a URL of one, or its text is not gzip + base64 of an
        image of at most ``max_size``.
    """
    if not instance.node_uuid:
        raise DriveError('Server %s is on no node: it has no config drive.'
                         % instance.uuid)
    try:
        node = objects.Node.get_by_uuid(context, instance.node_uuid)
    except exception.NotFound:
        raise DriveError('The node %s of server %s is gone.'
                         % (instance.node_uuid, instance.uuid))
    text = (node.instance_info or {}).get(CONFIGDRIVE)
    if not text:
        raise DriveError('Server %s has no config drive (node %s).'
                         % (instance.uuid, node.uuid))
    if not isinstance(text, str):
        raise DriveError('The config drive of server %s (node %s) is '
                         'not text.' % (instance.uuid, node.uuid))
    if node_configdrive.is_url(text):
        # NOTE: Ironic takes a URL, which the deploy fetches; the node
        # keeps only the URL, and this tool fetches nothing.
        raise DriveError('The config drive of server %s (node %s) is '
                         'given as a URL, not stored: %s'
                         % (instance.uuid, node.uuid, text.strip()))
    try:
        return iso.decode(''.join(text.split()), max_size=max_size)
    except exception.NovaMiniException as exc:
        raise DriveError('The config drive of server %s (node %s) cannot '
                         'be read: %s' % (instance.uuid, node.uuid,
                                          exc.format_message()))


def find_file(files, path):
    """The path on the drive that ``path`` names: as given, or below
    ``openstack/`` as the metadata service's paths are; ``None`` when
    neither is on the drive.
    """
    path = path.strip('/')
    for candidate in (path, '%s/%s' % (OPENSTACK, path)):
        if candidate in files:
            return candidate
    return None


def _print_file(path, data):
    if path.endswith('.json'):
        try:
            document = json.loads(data)
        except ValueError:
            pass
        else:
            print(json.dumps(document, indent=2, sort_keys=True))
            return
    out = sys.stdout.buffer
    sys.stdout.flush()
    out.write(data)
    if data and not data.endswith(b'\n'):
        try:
            data.decode('utf-8')
        except UnicodeDecodeError:
            # Bytes (gzip'd user data, say) are given unchanged.
            pass
        else:
            out.write(b'\n')
    out.flush()


def show(conf, context, instance):
    """List the drive's files, or print the one ``--path`` names: 0, or
    1 with the reason on stderr.
    """
    path = conf.command.path
    try:
        files = read_image(node_drive(context, instance,
                                      conf.config_drive_max_size))
        if path is None:
            for name in sorted(files):
                print(name)
            return 0
        found = find_file(files, path)
        if found is None:
            raise DriveError('No file %s on the config drive of server %s '
                             '(%d files: list them without --path).'
                             % (path, instance.uuid, len(files)))
    except DriveError as exc:
        print(exc, file=sys.stderr)
        return 1
    _print_file(found, files[found])
    return 0
