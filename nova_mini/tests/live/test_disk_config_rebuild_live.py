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

"""The disk configuration and rebuild against the stack's real Glance:

* an image's ``auto_disk_config`` property decides a server's
  ``OS-DCF:diskConfig`` when the request gives none (``True``: AUTO), and
  AUTO on an image whose property is ``disabled`` is Nova's 400, on
  create and on rebuild;
* AUTO deploys the node with its whole disk as the root partition
  (instance_info ``root_gb`` the node's ``local_gb``), MANUAL with the
  flavor's disk;
* rebuild checks ``imageRef`` in Glance as create does (unknown or not
  active: 400 in Nova's words; Glance away: 503), changing nothing when
  it refuses; the new image's id and properties go into the node's
  instance_info.
"""

import uuid

import pytest
import requests

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-dcf-%s' % RUN
FLAVOR = 'bm-dcf-%s' % RUN
NODE_GB = 100
FLAVOR_GB = 50      # helpers.make_flavor's disk


@pytest.fixture(scope='module')
def flavor(stack):
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS)


@pytest.fixture(scope='module')
def images(stack):
    """Public images whose auto_disk_config is ``disabled`` and
    ``True``: {property value: image id}; deleted afterwards.
    """
    admin = stack.glance.session('admin', stack.passwords['admin'],
                                 'admin')
    made = {value: stack.glance.ensure_image(
        admin, 'dcf-%s-%s' % (value.lower(), RUN),
        properties={'auto_disk_config': value})
        for value in ('disabled', 'True')}
    yield made
    for image_id in made.values():
        admin.delete(stack.glance.url + '/v2/images/%s' % image_id)


def _headers(stack):
    return {'X-Auth-Token': stack.token('demo'),
            'OpenStack-API-Version': 'compute 2.57'}


def _info(engine, node_uuid):
    nodes = models.Node.__table__
    with engine.connect() as connection:
        return connection.execute(nodes.select().where(
            nodes.c.uuid == node_uuid)).first().instance_info


def _show(stack, server_id):
    response = requests.get(
        stack.nova.compute_url + '/servers/%s' % server_id,
        headers=_headers(stack), timeout=30)
    assert response.status_code == 200, response.text
    return response.json()['server']


def _boot(stack, engine, flavor, name, **fields):
    node = helpers.insert_node(engine, RESOURCE_CLASS)
    url = stack.nova.compute_url
    server_id = helpers.create_server(url, _headers(stack), flavor, name,
                                      **fields)
    server = helpers.wait_for_build(url, _headers(stack), server_id)
    assert server['status'] == 'ACTIVE', server
    return server, node


def _rebuild(url, stack, server_id, body):
    return requests.post(url + '/servers/%s/action' % server_id,
                         json={'rebuild': body}, headers=_headers(stack),
                         timeout=60)


def _servers(stack):
    response = requests.get(stack.nova.compute_url + '/servers',
                            headers=_headers(stack), timeout=30)
    return {server['id'] for server in response.json()['servers']}


def test_image_property_and_auto_on_the_node(stack, flavor, images,
                                             engine):
    # The image's True makes the server AUTO: the node's whole disk.
    server, node = _boot(stack, engine, flavor, 'dcf-auto-%s' % RUN,
                         imageRef=images['True'])
    assert server['OS-DCF:diskConfig'] == 'AUTO'
    info = _info(engine, node)
    assert info['root_gb'] == str(NODE_GB)
    assert info['auto_disk_config'] is True
    assert info['image_source'] == images['True']
    helpers.delete(stack, server['id'])

    # MANUAL asked for wins over the image's True: the flavor's disk.
    server, node = _boot(stack, engine, flavor, 'dcf-manual-%s' % RUN,
                         imageRef=images['True'],
                         **{'OS-DCF:diskConfig': 'MANUAL'})
    assert server['OS-DCF:diskConfig'] == 'MANUAL'
    info = _info(engine, node)
    assert info['root_gb'] == str(FLAVOR_GB)
    assert info['auto_disk_config'] is False
    helpers.delete(stack, server['id'])


def test_auto_refused_where_the_image_disables_it(stack, flavor, images):
    before = _servers(stack)
    response = requests.post(
        stack.nova.compute_url + '/servers', json={'server': {
            'name': 'dcf-no-%s' % RUN, 'flavorRef': flavor,
            'imageRef': images['disabled'], 'OS-DCF:diskConfig': 'AUTO'}},
        headers=_headers(stack), timeout=30)
    assert response.status_code == 400, response.text
    assert response.json() == {'badRequest': {
        'code': 400, 'message': 'Requested image %s has automatic disk '
                                'resize disabled.' % images['disabled']}}
    assert _servers(stack) == before


def test_rebuild_checks_the_image_in_glance(stack, flavor, images, engine,
                                            extra_api):
    server, node = _boot(stack, engine, flavor, 'dcf-rb-%s' % RUN,
                         imageRef=glance_harness.CIRROS_ID)
    url = stack.nova.compute_url
    kept = (_show(stack, server['id']), _info(engine, node))

    def unchanged():
        shown = _show(stack, server['id'])
        assert shown['image'] == kept[0]['image']
        assert shown['name'] == kept[0]['name']
        assert shown['status'] == 'ACTIVE'
        assert shown['OS-DCF:diskConfig'] == 'MANUAL'
        assert _info(engine, node) == kept[1]

    unknown = str(uuid.uuid4())
    response = _rebuild(url, stack, server['id'],
                        {'imageRef': unknown, 'name': 'other'})
    assert response.status_code == 400, response.text
    assert response.json()['badRequest']['message'] == \
        'Can not find requested image'
    unchanged()

    session = stack.glance.session('demo', stack.passwords['demo'], 'demo')
    queued = stack.glance.create_queued_image(session, 'dcf-q-%s' % RUN)
    try:
        response = _rebuild(url, stack, server['id'],
                            {'imageRef': queued, 'name': 'other'})
        assert response.status_code == 400, response.text
        assert response.json()['badRequest']['message'] == \
            'Image %s is not active.' % queued
    finally:
        session.delete(stack.glance.url + '/v2/images/%s' % queued)
    unchanged()

    response = _rebuild(url, stack, server['id'], {
        'imageRef': images['disabled'], 'OS-DCF:diskConfig': 'AUTO'})
    assert response.status_code == 400, response.text
    assert response.json()['badRequest']['message'] == (
        'Requested image %s has automatic disk resize disabled.'
        % images['disabled'])
    unchanged()

    closed = util.free_port()
    _proc, port = extra_api(sections={'glance': {
        'endpoint_override': 'http://127.0.0.1:%d' % closed,
        'timeout': 5}})
    response = _rebuild('http://127.0.0.1:%d/compute/v2.1' % port, stack,
                        server['id'], {'imageRef': images['True'],
                                       'name': 'other'})
    assert response.status_code == 503, response.text
    assert 'could not be reached' in \
        response.json()['serviceUnavailable']['message']
    unchanged()

    # A rebuild onto the image with auto_disk_config True: AUTO, the new
    # image and its properties on the node.
    response = _rebuild(url, stack, server['id'],
                        {'imageRef': images['True']})
    assert response.status_code == 202, response.text
    rebuilt = response.json()['server']
    assert rebuilt['image']['id'] == images['True']
    assert rebuilt['OS-DCF:diskConfig'] == 'AUTO'
    info = _info(engine, node)
    assert info['image_source'] == images['True']
    assert info['image_properties'] == {'auto_disk_config': 'True'}
    assert info['image_checksum'] and info['image_os_hash_value']
    assert info['root_gb'] == str(NODE_GB)
    assert info['traits'] == kept[1]['traits']
    assert info['project_id'] == kept[1]['project_id']
    helpers.delete(stack, server['id'])
