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

"""A Glance image's properties choose the node: its required traits and
its architecture (Glance's spelling, coerced as Nova does), on the
database's nodes; the claim records the image in instance_info.
"""

import datetime
import uuid

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects import image_meta
from nova_mini.objects import request_spec
from nova_mini.scheduler import filter_scheduler
from nova_mini import states
from nova_mini.tests.fixtures import builders

IMAGE_ID = '5d0c3c1e-3f39-4bb4-9c55-1b1f1f3e0a11'


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def scheduler(conf):
    return filter_scheduler.FilterScheduler(conf.conf)


def _node(admin, name, traits=(), cpu_arch='x86_64'):
    return builders.create_node(
        admin, name, traits, resource_class='baremetal-img',
        properties=builders.node_properties(memory_mb=4096,
                                            cpu_arch=cpu_arch),
        provision_state=states.AVAILABLE)


def _spec(**properties):
    image = dict(properties, id=IMAGE_ID, name='img', status='active',
                 disk_format='raw', container_format='bare', tags=[],
                 checksum='c0ffee', size=4096)
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=1024, vcpus=2, root_gb=10,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=None,
        is_public=True, disabled=False, description=None,
        extra_specs={'resources:CUSTOM_BAREMETAL_IMG': '1'},
        created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    return request_spec.RequestSpec.from_components(
        None, flavor, image=image_meta.ImageMeta.from_glance(image))


def _claim(admin, scheduler, spec):
    [selection] = scheduler.claim_destinations(admin, spec,
                                               [str(uuid.uuid4())])
    return objects.Node.get_by_uuid(admin, selection.node_uuid)


def test_required_trait_of_the_image(admin, scheduler):
    for index in range(4):
        _node(admin, 'plain-%d' % index)
    _node(admin, 'gpu', ['CUSTOM_GPU'])
    node = _claim(admin, scheduler, _spec(**{
        'trait:CUSTOM_GPU': 'required', 'os_distro': 'cirros'}))
    assert node.name == 'gpu'
    assert node.instance_info == {
        'traits': ['CUSTOM_GPU'], 'image_source': IMAGE_ID,
        'image_properties': {'trait:CUSTOM_GPU': 'required',
                             'os_distro': 'cirros'},
        'image_tags': [], 'image_checksum': 'c0ffee',
        'image_disk_format': 'raw', 'image_container_format': 'bare',
        'image_os_hash_algo': None, 'image_os_hash_value': None}


def test_architecture_of_the_image(admin, scheduler):
    for index in range(3):
        _node(admin, 'x86-%d' % index)
    _node(admin, 'arm', cpu_arch='aarch64')
    # Glance's legacy name and an alias Nova reads as x86_64: any x86 node.
    node = _claim(admin, scheduler, _spec(architecture='AMD64'))
    assert node.name.startswith('x86-')
    node = _claim(admin, scheduler, _spec(hw_architecture='aarch64'))
    assert node.name == 'arm'
    # The only aarch64 node is taken.
    with pytest.raises(exception.NoValidHost):
        _claim(admin, scheduler, _spec(hw_architecture='aarch64'))
