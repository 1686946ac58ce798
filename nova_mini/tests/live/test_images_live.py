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

"""Images from the stack's real Glance (harness.glance: PyPI glance, its
own venv, SQLite, file store, Keystone tokens), through the unchanged
openstack CLI and the compute API:

* ``openstack image list`` shows Glance's images;
* ``openstack server create --image NAME`` (and ``--image ID``)
  ``--no-network --wait`` builds ACTIVE (``--no-network`` is OSC's
  ``--nic none``; its ``--network none`` looks up a network named
  "none" in a Networking service nova_mini does not have); the node's
  instance_info records the image (``image_source`` and its properties);
* an image requiring a trait lands only on a node with that trait (and
  finds no node once that one is taken);
* an unknown, malformed or not yet active image is a 400 in Nova's words,
  and a Glance that does not answer a 503, nothing created either way.
"""

import json
import uuid

import pytest
import requests

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-img-%s' % RUN
FLAVOR = 'bm-img-%s' % RUN
X86 = {'cpus': 8, 'memory_mb': 8192, 'local_gb': 100, 'cpu_arch': 'x86_64'}


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS)


def _cli_json(stack, *args, user='demo'):
    return json.loads(stack.openstack(*args, '-f', 'json',
                                      user=user).stdout)


def _servers(stack, user='demo'):
    response = requests.get(stack.nova.compute_url + '/servers',
                            headers={'X-Auth-Token': stack.token(user)},
                            timeout=30)
    assert response.status_code == 200, response.text
    return {s['id'] for s in response.json()['servers']}


def _node_row(engine, node_uuid):
    nodes = models.Node.__table__
    with engine.connect() as connection:
        return connection.execute(
            nodes.select().where(nodes.c.uuid == node_uuid)).first()


def test_image_list_shows_glances_images(stack):
    listed = _cli_json(stack, 'image', 'list')
    by_name = {image['Name']: image for image in listed}
    assert by_name[glance_harness.CIRROS]['ID'] == glance_harness.CIRROS_ID
    assert by_name[glance_harness.CIRROS]['Status'] == 'active'
    assert (by_name[glance_harness.TRAITS_IMAGE]['ID'] ==
            glance_harness.TRAITS_IMAGE_ID)
    shown = _cli_json(stack, 'image', 'show', glance_harness.TRAITS_IMAGE)
    assert shown['size'] == glance_harness.IMAGE_SIZE
    assert shown['properties']['trait:%s' % glance_harness.IMAGE_TRAIT] == \
        'required'
    assert shown['properties']['hw_architecture'] == 'x86_64'


@pytest.mark.parametrize('by', ['name', 'id'])
def test_server_create_with_image(stack, flavor, engine, by):
    node = helpers.insert_node(engine, RESOURCE_CLASS, properties=X86)
    image = (glance_harness.CIRROS if by == 'name'
             else glance_harness.CIRROS_ID)
    name = 'img-%s-%s' % (by, RUN)
    created = _cli_json(stack, 'server', 'create', '--flavor', flavor,
                        '--image', image, '--no-network', '--wait',
                        name)
    assert created['status'] == 'ACTIVE', created
    # OSC names the image it finds in Glance.
    expected = '%s (%s)' % (glance_harness.CIRROS, glance_harness.CIRROS_ID)
    assert created['image'] == expected
    response = requests.get(
        stack.nova.compute_url + '/servers/%s' % created['id'],
        headers={'X-Auth-Token': stack.token('demo')}, timeout=30)
    image_field = response.json()['server']['image']
    assert image_field['id'] == glance_harness.CIRROS_ID
    assert [link['rel'] for link in image_field['links']] == ['bookmark']
    assert image_field['links'][0]['href'].endswith(
        '/images/%s' % glance_harness.CIRROS_ID)

    row = _node_row(engine, node)
    assert row.instance_uuid == created['id']
    info = row.instance_info
    assert info['image_source'] == glance_harness.CIRROS_ID
    assert info['image_properties'] == {}
    assert info['image_disk_format'] == 'raw'
    assert info['image_container_format'] == 'bare'
    assert info['image_checksum'] and info['image_os_hash_value']
    stack.openstack('server', 'delete', '--wait', created['id'])


def test_image_trait_picks_the_node_with_it(stack, flavor, engine):
    plain = [helpers.insert_node(engine, RESOURCE_CLASS, properties=X86)
             for _index in range(3)]
    gifted = helpers.insert_node(engine, RESOURCE_CLASS, properties=X86,
                                 traits=[glance_harness.IMAGE_TRAIT])
    created = _cli_json(stack, 'server', 'create', '--flavor', flavor,
                        '--image', glance_harness.TRAITS_IMAGE,
                        '--no-network', '--wait', 'img-trait-%s' % RUN)
    assert created['status'] == 'ACTIVE', created
    row = _node_row(engine, gifted)
    assert row.instance_uuid == created['id']
    assert row.instance_info['traits'] == [glance_harness.IMAGE_TRAIT]
    assert row.instance_info['image_source'] == \
        glance_harness.TRAITS_IMAGE_ID
    assert row.instance_info['image_properties'] == {
        'trait:%s' % glance_harness.IMAGE_TRAIT: 'required',
        'hw_architecture': 'x86_64'}
    for node in plain:
        assert _node_row(engine, node).instance_uuid is None

    # The only node with the trait is taken: the next one finds none.
    proc = stack.openstack('server', 'create', '--flavor', flavor, '--image',
                           glance_harness.TRAITS_IMAGE, '--no-network',
                           '--wait', 'img-trait2-%s' % RUN, user='demo',
                           check=False)
    assert proc.returncode == 1
    failed = _cli_json(stack, 'server', 'show', 'img-trait2-%s' % RUN)
    assert failed['status'] == 'ERROR'
    assert failed['fault']['message'].startswith('No valid host was found')
    for node in plain:
        assert _node_row(engine, node).instance_uuid is None
    stack.openstack('server', 'delete', '--wait', created['id'],
                    failed['id'])


def _post(url, token, image_ref):
    return requests.post(url + '/servers', json={'server': {
        'name': 'img-bad-%s' % RUN, 'flavorRef': FLAVOR,
        'imageRef': image_ref}}, headers={'X-Auth-Token': token},
        timeout=60)


def test_bad_images_are_refused(stack, flavor):
    token = stack.token('demo')
    url = stack.nova.compute_url
    before = _servers(stack)
    unknown = str(uuid.uuid4())
    response = _post(url, token, unknown)
    assert response.status_code == 400
    assert response.json() == {'badRequest': {
        'message': 'Can not find requested image', 'code': 400}}
    response = _post(url, token, 'cirros')
    assert response.status_code == 400
    assert response.json()['badRequest']['message'] == \
        'Invalid imageRef provided.'

    session = stack.glance.session('demo', stack.passwords['demo'], 'demo')
    queued = stack.glance.create_queued_image(session, 'queued-%s' % RUN)
    try:
        response = _post(url, token, queued)
        assert response.status_code == 400
        assert response.json()['badRequest']['message'] == \
            'Image %s is not active.' % queued
    finally:
        session.delete(stack.glance.url + '/v2/images/%s' % queued)
    # Another project's private image is not found either.
    admin = stack.glance.session('admin', stack.passwords['admin'],
                                 'admin')
    private = stack.glance.ensure_image(admin, 'private-%s' % RUN,
                                        visibility='private')
    try:
        response = _post(url, token, private)
        assert response.status_code == 400
        assert response.json()['badRequest']['message'] == \
            'Can not find requested image'
    finally:
        admin.delete(stack.glance.url + '/v2/images/%s' % private)
    assert _servers(stack) == before


def test_glance_away_is_503(stack, flavor, extra_api):
    closed = util.free_port()
    _proc, port = extra_api(sections={'glance': {
        'endpoint_override': 'http://127.0.0.1:%d' % closed,
        'timeout': 5}})
    url = 'http://127.0.0.1:%d/compute/v2.1' % port
    before = _servers(stack)
    response = _post(url, stack.token('demo'), glance_harness.CIRROS_ID)
    assert response.status_code == 503, response.text
    fault = response.json()['serviceUnavailable']
    assert fault['code'] == 503
    assert fault['message'].startswith(
        'The Image service (Glance) could not be reached to check image '
        '%s' % glance_harness.CIRROS_ID)
    assert 'Nothing was created' in fault['message']
    assert response.headers['Retry-After']
    assert _servers(stack) == before


def test_quick_start_boot(stack):
    """The quick start's steps (doc/source/admin/quickstart.rst), with
    names of this run: a node and a flavor made with the CLI, then a
    server of the cirros-like image.
    """
    resource_class = 'baremetal-qs-%s' % RUN
    node_name, flavor_name = 'qs-node-%s' % RUN, 'bm.qs-%s' % RUN
    admin_cli = stack.openstack
    admin_cli('baremetal', 'node', 'create', '--driver', 'fake-hardware',
              '--resource-class', resource_class,
              '--property', 'cpus=8', '--property', 'memory_mb=8192',
              '--property', 'local_gb=100', '--property', 'cpu_arch=x86_64',
              '--name', node_name)
    admin_cli('baremetal', 'node', 'manage', node_name)
    admin_cli('baremetal', 'node', 'provide', node_name)
    admin_cli('flavor', 'create', '--ram', '8192', '--disk', '100',
              '--vcpus', '8', '--property',
              'resources:CUSTOM_%s=1' % resource_class.upper().replace(
                  '-', '_'),
              '--property', 'resources:VCPU=0',
              '--property', 'resources:MEMORY_MB=0',
              '--property', 'resources:DISK_GB=0', flavor_name)
    created = _cli_json(stack, 'server', 'create', '--flavor', flavor_name,
                        '--image', glance_harness.CIRROS, '--no-network',
                        '--wait', 'qs-%s' % RUN)
    assert created['status'] == 'ACTIVE', created
    node = _cli_json(stack, 'baremetal', 'node', 'show', node_name,
                     user='admin')
    assert node['instance_uuid'] == created['id']
    assert node['instance_info']['image_source'] == \
        glance_harness.CIRROS_ID
    stack.openstack('server', 'delete', '--wait', created['id'],
                    user='demo')
    admin_cli('baremetal', 'node', 'delete', node_name, check=False)
    admin_cli('flavor', 'delete', flavor_name)
