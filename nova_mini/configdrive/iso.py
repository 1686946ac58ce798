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

"""The config drive's image, and the text form a node receives it in.

``build`` writes an ISO 9660 image with Rock Ridge (the names Linux shows
when it mounts the disk) and Joliet (the names Windows shows), labelled
``config-2``: what Nova's ``genisoimage -r -J -V config-2`` gives, written
by pycdlib. The plain ISO 9660 names are upper-case stand-ins that no
reader of a config drive looks at.

``encode`` and ``decode`` convert between the image and gzip + base64
text, as Nova's ironic driver sends it in the provision request's
``configdrive`` and as the bare-metal API stores it.

An image, and a decoded drive, may not exceed ``MAX_SIZE`` (64 MiB, the
size of the disk Nova formats for a vfat config drive):
``ConfigDriveTooLarge`` otherwise.
"""

import base64
import binascii
import gzip
import io
import posixpath
import re
import zlib

import pycdlib

from nova_mini import exception

LABEL = 'config-2'
MAX_SIZE = 64 * 1024 * 1024

# Rock Ridge 1.09 and Joliet level 3, the versions genisoimage writes.
ROCK_RIDGE = '1.09'
JOLIET_LEVEL = 3
# Level 3 permits names of 30 characters and files of any size, as
# genisoimage's -l does; the names stay within the d1 characters.
INTERCHANGE_LEVEL = 3
ISO_NAME_LENGTH = 30
ISO_EXTENSION_LENGTH = 8
# Joliet names have at most 64 UCS-2 characters.
JOLIET_NAME_LENGTH = 64
APPLICATION = 'nova_mini'

_NOT_D1 = re.compile('[^A-Z0-9_]')
_READ_CHUNK = 1024 * 1024


def _check_path(path):
    """Refuse a path that is not a plain relative one (no ``..``, no empty
    segment); return its segments.
    """
    segments = path.split('/')
    if (not path or path.startswith('/') or
            any(segment in ('', '.', '..') for segment in segments)):
        raise ValueError('config drive path %r is not a relative path of '
                         'named segments' % path)
    if any(len(segment) > JOLIET_NAME_LENGTH for segment in segments):
        raise ValueError('config drive path %r has a name longer than %d '
                         'characters' % (path, JOLIET_NAME_LENGTH))
    return segments


def _iso_name(name, is_file, taken):
    """An ISO 9660 name for ``name``: upper case d1 characters, unique
    among ``taken`` (the names already given in its directory).
    """
    stem, dot, extension = name.upper().rpartition('.')
    if not is_file or not dot or not stem:
        stem, extension = name.upper(), ''
    stem = _NOT_D1.sub('_', stem)
    extension = _NOT_D1.sub('_', extension)[:ISO_EXTENSION_LENGTH]
    stem = stem[:ISO_NAME_LENGTH - len(extension)] or '_'
    candidate = stem
    number = 0
    while (candidate, extension) in taken:
        number += 1
        suffix = '_%d' % number
        candidate = stem[:ISO_NAME_LENGTH - len(extension) - len(suffix)]
        candidate += suffix
    taken.add((candidate, extension))
    if is_file:
        return '%s.%s;1' % (candidate, extension)
    return candidate


class _Directories:
    """The directories made so far, by their real path: their ISO 9660
    path, and the ISO 9660 names taken in each.
    """

    def __init__(self, image):
        self.image = image
        self.iso_path = {'': ''}
        self.taken = {'': set()}

    def ensure(self, path):
        """Make the directory ``path`` (and its parents); return its ISO
        9660 path.
        """
        if path in self.iso_path:
            return self.iso_path[path]
        parent, name = posixpath.split(path)
        parent_iso = self.ensure(parent)
        iso_path = '%s/%s' % (parent_iso, _iso_name(
            name, False, self.taken[parent]))
        self.image.add_directory(iso_path, rr_name=name,
                                 joliet_path='/' + path)
        self.iso_path[path] = iso_path
        self.taken[path] = set()
        return iso_path


def _too_large(size, cap):
    return exception.ConfigDriveTooLarge(size=size, cap=cap)


def build(files, label=LABEL, max_size=MAX_SIZE):
    """Write a config drive image.

    :param files: {relative path: bytes}, e.g.
        ``{'openstack/latest/meta_data.json': b'{...}'}``; the directories
        are made from the paths.
    :param label: the volume label.
    :param max_size: the largest image accepted, in bytes.
    :returns: the ISO 9660 image (bytes).
    :raises ValueError: a path that is not relative, or names a file and a
        directory both.
    :raises nova_mini.exception.ConfigDriveTooLarge: the files, or the
        image, exceed ``max_size``.
    """
    content = sum(len(data) for data in files.values())
    if content > max_size:
        raise _too_large(content, max_size)
    paths = sorted(files)
    for path in paths:
        _check_path(path)
        if any(other.startswith(path + '/') for other in paths):
            raise ValueError('config drive path %r is both a file and a '
                             'directory' % path)
    image = pycdlib.PyCdlib()
    image.new(interchange_level=INTERCHANGE_LEVEL, vol_ident=label,
              joliet=JOLIET_LEVEL, rock_ridge=ROCK_RIDGE,
              app_ident_str=APPLICATION)
    try:
        directories = _Directories(image)
        for path in paths:
            parent, name = posixpath.split(path)
            parent_iso = directories.ensure(parent)
            data = files[path]
            image.add_fp(io.BytesIO(data), len(data),
                         '%s/%s' % (parent_iso, _iso_name(
                             name, True, directories.taken[parent])),
                         rr_name=name, joliet_path='/' + path)
        output = io.BytesIO()
        image.write_fp(output)
    finally:
        image.close()
    result = output.getvalue()
    if len(result) > max_size:
        raise _too_large(len(result), max_size)
    return result


def encode(image):
    """Return ``image`` as the text a node receives: gzip, then base64.

    :param image: the ISO image (bytes).
    :returns: str.
    """
    return base64.b64encode(gzip.compress(image)).decode('ascii')


def decode(text, max_size=MAX_SIZE):
    """Return the image that ``encode`` made ``text`` of.

    :param text: base64 of a gzip stream (str or bytes).
    :param max_size: the largest image accepted, in bytes: the stream is
        not inflated past it.
    :returns: the image (bytes).
    :raises nova_mini.exception.ConfigDriveInvalid: not base64 of gzip.
    :raises nova_mini.exception.ConfigDriveTooLarge: the image exceeds
        ``max_size``.
    """
    try:
        compressed = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise exception.ConfigDriveInvalid(
            reason='not base64: %s' % exc) from exc
    chunks = []
    size = 0
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(compressed)) as stream:
            while True:
                chunk = stream.read(min(_READ_CHUNK, max_size + 1 - size))
                if not chunk:
                    break
                size += len(chunk)
                if size > max_size:
                    raise _too_large(size, max_size)
                chunks.append(chunk)
    except EOFError as exc:
        raise exception.ConfigDriveInvalid(
            reason='not gzip: the gzip stream ends early.') from exc
    except (OSError, zlib.error) as exc:
        # Not the exception's text: gzip quotes the stream's first bytes
        # ("Not a gzipped file (b'..')") or checksums of its content.
        raise exception.ConfigDriveInvalid(
            reason='not gzip: the decoded text is not a valid gzip '
                   'stream.') from exc
    return b''.join(chunks)
