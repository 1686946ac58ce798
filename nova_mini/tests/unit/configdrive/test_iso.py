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

"""The config drive image, read back by pycdlib (Rock Ridge, Joliet and
the volume label) and by blkid (how cloud-init finds a drive by label).
"""

import base64
import gzip
import io
import shutil
import subprocess

import pycdlib
import pytest

from nova_mini.configdrive import iso
from nova_mini import exception

FILES = {
    'openstack/latest/meta_data.json': b'{"uuid": "u"}',
    'openstack/latest/user_data': b'#!/bin/sh\necho hi\n',
    'openstack/2012-08-10/meta_data.json': b'{}',
    'openstack/content/0000': b'ssh-ed25519 AAAA key',
    # Two names that fold to one ISO 9660 name.
    'openstack/latest/user-data': b'other',
    'openstack/latest/vendor_data2.json': b'{"sample": {}}',
}


def _read(image, **path):
    out = io.BytesIO()
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    try:
        reader.get_file_from_iso_fp(out, **path)
    finally:
        reader.close()
    return out.getvalue()


def _tree(image, kind):
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    try:
        found = set()
        for root, _dirs, files in reader.walk(**{kind: '/'}):
            for name in files:
                found.add(('%s/%s' % (root, name)).lstrip('/'))
        return found
    finally:
        reader.close()


@pytest.fixture(scope='module')
def image():
    return iso.build(FILES)


def test_rock_ridge_names_and_content(image):
    assert _tree(image, 'rr_path') == set(FILES)
    for path, data in FILES.items():
        assert _read(image, rr_path='/' + path) == data


def test_joliet_names_and_content(image):
    assert _tree(image, 'joliet_path') == set(FILES)
    for path, data in FILES.items():
        assert _read(image, joliet_path='/' + path) == data


def test_label_and_extensions(image):
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    try:
        assert reader.pvd.volume_identifier.rstrip() == b'config-2'
        assert reader.has_rock_ridge()
        assert reader.has_joliet()
        # The plain ISO 9660 names: upper-case d1 characters, unique.
        plain = set()
        for root, _dirs, files in reader.walk(iso_path='/'):
            plain.update('%s/%s' % (root, name) for name in files)
        assert len(plain) == len(FILES)
        assert '/OPENSTACK/LATEST/META_DATA.JSON;1' in plain
    finally:
        reader.close()


@pytest.mark.skipif(shutil.which('blkid') is None, reason='no blkid')
def test_blkid_finds_the_label(image, tmp_path):
    # cloud-init looks for LABEL=config-2 through blkid.
    path = tmp_path / 'drive.iso'
    path.write_bytes(image)
    found = subprocess.run(
        ['blkid', '-p', '-o', 'export', str(path)], check=True,
        capture_output=True, text=True).stdout.splitlines()
    assert 'LABEL=config-2' in found
    assert 'TYPE=iso9660' in found


def test_other_label():
    image = iso.build({'a': b'x'}, label='other')
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    assert reader.pvd.volume_identifier.rstrip() == b'other'
    reader.close()


def test_encode_is_gzip_then_base64(image):
    text = iso.encode(image)
    assert isinstance(text, str)
    assert gzip.decompress(base64.b64decode(text)) == image
    assert iso.decode(text) == image
    assert iso.decode(text.encode()) == image


@pytest.mark.parametrize('text', [
    'not base64 at all!',
    base64.b64encode(b'an ISO that was not gzipped').decode(),
    base64.b64encode(gzip.compress(b'truncated', mtime=0)[:-6]).decode(),
])
def test_decode_refuses_what_is_not_gzip_base64(text):
    with pytest.raises(exception.ConfigDriveInvalid):
        iso.decode(text)


_GZIP = gzip.compress(b'secret data', mtime=0)


@pytest.mark.parametrize('data,reason', [
    # gzip's own messages quote the stream's first bytes, or checksums and
    # lengths of its content.
    (b'SECRET-not-gzip', 'the decoded text is not a valid gzip stream.'),
    (_GZIP + b'SECRET', 'the decoded text is not a valid gzip stream.'),
    (_GZIP[:-8] + b'\0\0\0\0' + _GZIP[-4:],
     'the decoded text is not a valid gzip stream.'),
    (_GZIP[:-4] + b'\1\0\0\0', 'the decoded text is not a valid gzip stream.'),
    (_GZIP[:10] + b'\xff' * 8 + _GZIP[18:],
     'the decoded text is not a valid gzip stream.'),
    (_GZIP[:-6], 'the gzip stream ends early.'),
], ids=['not-gzip', 'trailing-data', 'crc', 'length', 'corrupt', 'truncated'])
def test_decode_refusal_quotes_nothing_of_the_input(data, reason):
    with pytest.raises(exception.ConfigDriveInvalid) as raised:
        iso.decode(base64.b64encode(data).decode())
    assert raised.value.format_message() == (
        'Invalid config drive: not gzip: ' + reason)


def test_size_cap_on_build():
    with pytest.raises(exception.ConfigDriveTooLarge) as raised:
        iso.build({'big': b'\0' * 5000}, max_size=4096)
    assert 'over the limit of 4096 bytes' in raised.value.format_message()
    # The files fit, the image (volume descriptors, directories) not.
    with pytest.raises(exception.ConfigDriveTooLarge):
        iso.build({'small': b'x'}, max_size=4096)
    assert iso.build({'small': b'x'}, max_size=iso.MAX_SIZE)


def test_size_cap_on_decode_stops_inflating():
    text = base64.b64encode(gzip.compress(b'\0' * (1 << 20))).decode()
    with pytest.raises(exception.ConfigDriveTooLarge) as raised:
        iso.decode(text, max_size=1000)
    # Not inflated past the cap plus one byte.
    assert raised.value.kwargs['size'] == 1001
    assert len(iso.decode(text, max_size=1 << 20)) == 1 << 20


def test_default_cap_is_64_mib():
    assert iso.MAX_SIZE == 64 * 1024 * 1024


@pytest.mark.parametrize('path', ['/abs', 'a/../b', 'a//b', '', 'a/./b',
                                  'x' * 65])
def test_paths_must_be_relative_and_named(path):
    with pytest.raises(ValueError):
        iso.build({path: b''})


def test_a_path_cannot_be_file_and_directory():
    with pytest.raises(ValueError):
        iso.build({'a': b'', 'a/b': b''})
