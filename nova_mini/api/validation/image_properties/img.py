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

"""Definitions of the ``img_`` image properties: how the image is stored,
cached, signed and mapped to block devices, and what the guest agent
does with it.
"""

from nova_mini.api.validation.image_properties import base

_VMWARE = ('vmware',)


def _mappings(name, what):
    return base.ImageProperty(
        name=name,
        description=(
            '%s, as a list of mappings. Nova reads this name only as a '
            'list, which a Glance property (text) never is, so Nova '
            'refuses any value of it from Glance; the legacy name '
            '(without ``img_``), which Nova decodes from JSON, is the one '
            'to use.' % what),
        value=base.Value(str, description=(
            'A list of mappings (never text).')),
        coerce=base.list_of_mappings(json_text=False),
        drivers=('compute API',),
    )


DEFINITIONS = [
    base.ImageProperty(
        name='img_config_drive',
        description=(
            'Whether servers of the image get a config drive: '
            '``mandatory`` always, ``optional`` as the request or the '
            'configuration says.'),
        value=base.Value(str, enum=('optional', 'mandatory')),
        drivers=('compute API',),
        example='mandatory',
    ),
    _mappings('img_block_device_mapping',
              'Block devices to create for servers of the image (image '
              'snapshots of volume-backed servers record them)'),
    _mappings('img_mappings', 'Device names of the image\'s partitions'),
    base.ImageProperty(
        name='img_bdm_v2',
        description=(
            'The image\'s block device mappings are in the version 2 '
            'format.'),
        value=base.Value(bool),
        drivers=('compute API',),
        example='true',
    ),
    base.ImageProperty(
        name='img_root_device_name',
        description=(
            'Device name of the root disk in the image\'s block device '
            'mappings (``/dev/vda``).'),
        value=base.Value(str),
        drivers=('compute API',),
        example='/dev/vda',
    ),
    base.ImageProperty(
        name='img_owner_id',
        description='Project that owns the image (a snapshot\'s server\'s).',
        value=base.Value(str),
        drivers=(),
        example='6c8f7a2e2b3c4f0d9a1b2c3d4e5f6a7b',
    ),
    base.ImageProperty(
        name='img_signature',
        description='Signature of the image data, base64 encoded.',
        value=base.Value(str),
        drivers=('libvirt (image signature verification)',),
        requires=('img_signature_hash_method', 'img_signature_key_type',
                  'img_signature_certificate_uuid'),
    ),
    base.ImageProperty(
        name='img_signature_hash_method',
        description='Hash algorithm of the image signature.',
        value=base.Value(str, enum=('SHA-224', 'SHA-256', 'SHA-384',
                                    'SHA-512')),
        drivers=('libvirt (image signature verification)',),
        requires=('img_signature',),
        example='SHA-256',
    ),
    base.ImageProperty(
        name='img_signature_key_type',
        description='Key type of the image signature.',
        value=base.Value(str, enum=(
            'DSA', 'ECC_SECP384R1', 'ECC_SECP521R1', 'ECC_SECT409K1',
            'ECC_SECT409R1', 'ECC_SECT571K1', 'ECC_SECT571R1', 'RSA-PSS')),
        drivers=('libvirt (image signature verification)',),
        requires=('img_signature',),
        example='RSA-PSS',
    ),
    base.ImageProperty(
        name='img_signature_certificate_uuid',
        description=(
            'UUID of the signing certificate in the key manager. Nova '
            'keeps a malformed UUID (it only warns).'),
        value=base.Value(str, description='A UUID.'),
        coerce=base.any_uuid,
        drivers=('libvirt (image signature verification)',),
        requires=('img_signature',),
    ),
    base.ImageProperty(
        name='img_linked_clone',
        description=(
            'Boot VMware servers from linked clones of a cached copy of '
            'the image rather than full copies.'),
        value=base.Value(bool),
        drivers=_VMWARE,
        example='true',
    ),
    base.ImageProperty(
        name='img_version',
        description='Version of the VMware image format.',
        value=base.Value(int),
        drivers=_VMWARE,
        example='1',
    ),
    base.ImageProperty(
        name='img_bittorrent',
        description='Download the image over BitTorrent (XenAPI).',
        value=base.Value(bool),
        support=base.XENAPI_ONLY,
        example='false',
    ),
    base.ImageProperty(
        name='img_cache_in_nova',
        description='Keep a copy of the image on the host (XenAPI).',
        value=base.Value(bool),
        support=base.XENAPI_ONLY,
        example='true',
    ),
    base.ImageProperty(
        name='img_compression_level',
        description='gzip level for uploaded snapshots (XenAPI).',
        value=base.Value(int),
        support=base.XENAPI_ONLY,
        example='6',
    ),
    base.ImageProperty(
        name='img_use_agent',
        description='The image runs the XenAPI guest agent.',
        value=base.Value(bool),
        support=base.XENAPI_ONLY,
        example='false',
    ),
]
