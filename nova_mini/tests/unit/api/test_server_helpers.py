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

"""The pure helpers of the servers resource that its gabbits do not reach:
the host name (objects.Instance.hostname) and hostId a server shows, and the image root disk of a
block device mapping (gabbits/servers-create.yaml has the HTTP side).
"""

import hashlib

import pytest

from nova_mini.api.compute import servers
from nova_mini.api.compute.views import servers as server_views
from nova_mini import exception
from nova_mini import objects

# Image ids (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'
IMAGE_2 = 'c0ffee00-0000-4000-8000-000000000002'

UUID = '0b2c7a4e-5f1d-4c3b-9e8a-6d7f1a2b3c4d'
NODE = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a'


class _Server(object):
    def __init__(self, name='s', project_id='demo', node_uuid=None):
        self.uuid = UUID
        self.name = name
        self.project_id = project_id
        self.node_uuid = node_uuid


@pytest.mark.parametrize('name, expected', [
    ('web-1', 'web-1'),
    ('My Server', 'my-server'),
    ('web.example.com', 'web-example-com'),
    ('snake_case', 'snake-case'),
    ('a - b', 'a---b'),
    # Other punctuation is dropped, not turned into a hyphen.
    ('a!b@c', 'abc'),
    ('-edge-', 'edge'),
    ('. leading dot', 'leading-dot'),
    # Letters beyond ASCII stay if Latin-1 holds them.
    ('Étoile du Nord', 'étoile-du-nord'),
    ('x' * 70, 'x' * 63),
    # Cut at 63 characters before the clean-up, as Nova.
    ('a' * 62 + '!b', 'a' * 62),
])
def test_hostname(name, expected):
    assert objects.Instance(uuid=UUID, name=name).hostname == expected


@pytest.mark.parametrize('name', ['', None, '!!!', '...', '日本語'])
def test_hostname_of_nothing_usable_is_the_uuid(name):
    assert objects.Instance(uuid=UUID, name=name).hostname == (
        'Server-%s' % UUID)


def test_host_id_is_empty_without_a_node():
    assert server_views.host_id(_Server()) == ''


def test_host_id_hashes_the_project_and_the_node():
    host_id = server_views.host_id(_Server(node_uuid=NODE))
    assert host_id == hashlib.sha224(
        ('demo' + NODE).encode()).hexdigest()
    # Shared by servers of one project on one node, opaque across
    # projects.
    assert host_id == server_views.host_id(_Server('t', node_uuid=NODE))
    assert host_id != server_views.host_id(
        _Server(project_id='alt', node_uuid=NODE))


def _root(**mapping):
    return dict({'source_type': 'image', 'destination_type': 'local',
                 'boot_index': 0, 'uuid': IMAGE}, **mapping)


def test_root_image():
    assert servers._get_root_image([]) is None
    assert servers._get_root_image([_root()]) == IMAGE
    assert servers._get_root_image([_root(boot_index='0')]) == IMAGE
    # An old client's image_id is the image too.
    assert servers._get_root_image(
        [_root(uuid=None, image_id=IMAGE_2)]) == IMAGE_2


@pytest.mark.parametrize('mapping, words', [
    (_root(boot_index=None), 'the only mapping it takes'),
    (_root(boot_index=1), 'the only mapping it takes'),
    (_root(destination_type='volume'), 'no Block Storage service'),
    (_root(source_type='snapshot'), 'no Block Storage service'),
    (_root(uuid=''), 'Missing device UUID.'),
])
def test_root_image_refuses(mapping, words):
    with pytest.raises(exception.Invalid) as caught:
        servers._get_root_image([mapping])
    message = caught.value.format_message()
    assert message.startswith('Block Device Mapping is Invalid: ')
    assert words in message


def test_image_ref():
    assert servers._get_image_ref({'imageRef': IMAGE}) == IMAGE
    assert servers._get_image_ref(
        {'imageRef': '', 'block_device_mapping_v2': [_root()]}) == IMAGE
    assert servers._get_image_ref(
        {'imageRef': IMAGE, 'block_device_mapping_v2': [_root()]}) == (
        IMAGE)
    with pytest.raises(exception.Invalid, match='is not imageRef'):
        servers._get_image_ref({'imageRef': IMAGE_2,
                                'block_device_mapping_v2': [_root()]})
    with pytest.raises(exception.Invalid,
                       match='^Missing imageRef attribute$'):
        servers._get_image_ref({'imageRef': ''})
