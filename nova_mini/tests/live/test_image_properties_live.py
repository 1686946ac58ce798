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

"""Image properties read as Nova reads them, against the stack's real
Glance and Keystone (images uploaded by the administrator, private, and
deleted at the end):

* an image with ``hw_cpu_policy=dedicated`` and a flavor with
  ``hw:cpu_policy=shared``: ``openstack server create`` and the compute
  API are refused with Nova's message, and no instance row is written;
* an image whose ``hw_cpu_policy`` Nova cannot coerce: Nova's 400
  "Invalid image metadata", no instance row either;
* ``nova-mini-manage image-properties audit`` with the stack's config
  (``[keystone_authtoken]``'s service credentials) finds a misspelled
  property planted in Glance, with a did-you-mean, exit status 1, as a
  table and as JSON.

An image requiring a trait landing only on a node that has it is
test_images_live.test_image_trait_picks_the_node_with_it.
"""

import json
import uuid

import pytest
import requests

from nova_mini.db import models
from nova_mini.tests.live import helpers

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
FLAVOR = 'bm-imgprop-%s' % RUN
RESOURCE_CLASS = 'baremetal-imgprop-%s' % RUN
# name -> properties
IMAGES = {
    'dedicated': {'hw_cpu_policy': 'dedicated'},
    'bogus': {'hw_cpu_policy': 'bogus'},
    'misspelled': {'hw_cpu_polcy': 'dedicated'},
}
PINNING = ("Image property 'hw_cpu_policy' is not permitted to override "
           "CPU pinning policy set against the flavor")
INVALID = ("Invalid image metadata. Error: Image property 'hw_cpu_policy': "
           "'bogus' is not one of: dedicated, shared, mixed.")
DID_YOU_MEAN = ("Image property 'hw_cpu_polcy' is not a known image "
                "property; did you mean 'hw_cpu_policy'? Nova ignores it.")


@pytest.fixture(scope='module')
def flavor(stack):
    helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS)
    url = stack.nova.compute_url + '/flavors/%s' % FLAVOR
    headers = {'X-Auth-Token': stack.token('admin')}
    response = requests.post(
        url + '/os-extra_specs',
        json={'extra_specs': {'hw:cpu_policy': 'shared'}},
        headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    yield FLAVOR
    requests.delete(url, headers=headers, timeout=30)


@pytest.fixture(scope='module')
def images(stack):
    """``{kind: (name, id)}``: the images of IMAGES in Glance."""
    session = stack.glance.session('admin', stack.passwords['admin'],
                                   'admin')
    made = {}
    try:
        for kind, properties in IMAGES.items():
            name = 'imgprop-%s-%s' % (kind, RUN)
            made[kind] = (name, stack.glance.ensure_image(
                session, name, properties, visibility='private'))
        yield made
    finally:
        for _name, image_id in made.values():
            session.delete(stack.glance.url + '/v2/images/%s' % image_id,
                           raise_exc=False)


def _instance_rows(engine, name, image_id):
    instances = models.Instance.__table__
    with engine.connect() as connection:
        return connection.execute(instances.select().where(
            (instances.c.name == name) |
            (instances.c.image_ref == image_id))).fetchall()


def _post(stack, name, image_id):
    return requests.post(stack.nova.compute_url + '/servers', json={
        'server': {'name': name, 'flavorRef': FLAVOR, 'imageRef': image_id,
                   'networks': 'none'}},
        headers={'X-Auth-Token': stack.token('admin'),
                 'OpenStack-API-Version': 'compute 2.37'}, timeout=60)


def _refused(proc, message):
    # openstacksdk's words for the API's 400, then the API's message.
    assert proc.stderr.startswith(
        'BadRequestException: 400: Client Error for url: '), proc.stderr
    assert proc.stderr.rstrip('\n').endswith(
        '/compute/v2.1/servers, ' + message), proc.stderr


def test_dedicated_image_with_shared_flavor_is_refused(stack, flavor, images,
                                                       engine):
    image_name, image_id = images['dedicated']
    name = 'imgprop-pin-%s' % RUN
    proc = stack.openstack('server', 'create', '--flavor', flavor,
                           '--image', image_name, '--no-network', name,
                           check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    _refused(proc, PINNING)
    response = _post(stack, name, image_id)
    assert response.status_code == 400, response.text
    assert response.json() == {'badRequest': {'message': PINNING,
                                              'code': 400}}
    assert _instance_rows(engine, name, image_id) == []


def test_invalid_image_property_is_refused(stack, flavor, images, engine):
    image_name, image_id = images['bogus']
    name = 'imgprop-bogus-%s' % RUN
    response = _post(stack, name, image_id)
    assert response.status_code == 400, response.text
    assert response.json() == {'badRequest': {'message': INVALID,
                                              'code': 400}}
    proc = stack.openstack('server', 'create', '--flavor', flavor,
                           '--image', image_name, '--no-network', name,
                           check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    _refused(proc, INVALID)
    assert _instance_rows(engine, name, image_id) == []


def test_audit_finds_misspelled_property(stack, flavor, images):
    # The stack's own config: Keystone, the service user's credentials.
    sections = stack.nova.config_sections()
    assert sections['api']['auth_strategy'] == 'keystone'
    assert sections['keystone_authtoken']['username'] == 'nova'
    _name, misspelled = images['misspelled']
    _name, dedicated = images['dedicated']
    _name, bogus = images['bogus']

    proc = stack.nova.manage('image-properties', 'audit', '--format', 'json',
                             check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    by_id = {image['id']: image for image in report['images']}
    assert by_id[misspelled]['findings'] == [{
        'kind': 'misspelled', 'property': 'hw_cpu_polcy',
        'message': DID_YOU_MEAN}]
    # The other two images of this module, as the API refused them.
    assert by_id[bogus]['findings'] == [{
        'kind': 'invalid', 'property': 'hw_cpu_policy', 'message': INVALID}]
    assert {'kind': 'conflict', 'property': 'flavor %s' % FLAVOR,
            'message': PINNING} in by_id[dedicated]['findings']
    assert report['images_checked'] >= 3
    assert report['images_failing'] >= 3

    proc = stack.nova.manage('image-properties', 'audit', check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines()
            if misspelled in line]
    assert rows and 'misspelled' in rows[0] and 'hw_cpu_polcy' in rows[0]
    assert "did you mean 'hw_cpu_policy'?" in proc.stdout
