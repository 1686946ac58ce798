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

"""Rebuild (POST /servers/{id}/action) of what the server keeps: the key
pair from 2.54, stored, shown and served in the metadata; a key the user
does not have and a Glance that does not answer (a port nothing listens
on: no mock) change nothing. The Glance-checked images (unknown, not
active, their properties) are in the live test test_images_live.
"""

import uuid

import webtest

from nova_mini import context as nm_context
from nova_mini.metadata import documents
from nova_mini import objects
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task
from nova_mini.tests.fixtures import builders
from nova_mini_deploy import util

# Image ids (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'
IMAGE_2 = 'c0ffee00-0000-4000-8000-000000000002'

V21 = '/compute/v2.1'
KEY = ('ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxY2FFvN6hRn7Pc4TVKtfFfJb2v'
       'Whxy0K6s5FRT4p+I demo@host')


def _headers(version='2.54'):
    return {'X-Auth-Token': 'demo:demo',
            'OpenStack-API-Version': 'compute %s' % version}


def _setup(factory, **overrides):
    fixture = factory(conf_overrides=overrides)
    context = nm_context.get_admin_context()
    server = str(uuid.uuid4())
    builders.boot_server(context, server, name='box', user_id='demo',
                         vm_state=instance_task.ACTIVE,
                         power_state=instance_task.RUNNING)
    return webtest.TestApp(fixture.app), fixture.conf, context, server


def _rebuild(app, server, body, status, version='2.54'):
    return app.post_json(V21 + '/servers/%s/action' % server,
                         {'rebuild': body}, headers=_headers(version),
                         status=status)


def _kept(context, server):
    instance = objects.Instance.get_by_uuid(context, server)
    return (instance.image_ref, instance.name, instance.key_name,
            instance.key_data, instance.vm_state, instance.task_state,
            instance.auto_disk_config,
            len(instance_action.list_actions(context, server)))


def test_rebuild_with_a_key_pair(api_fixture_factory):
    app, conf, context, server = _setup(api_fixture_factory)
    app.post_json(V21 + '/os-keypairs', {'keypair': {
        'name': 'mykey', 'public_key': KEY}}, headers=_headers(), status=201)

    body = _rebuild(app, server, {'imageRef': IMAGE_2, 'key_name': 'mykey'},
                    202).json['server']
    assert body['key_name'] == 'mykey'
    assert body['image']['id'] == IMAGE_2
    shown = app.get(V21 + '/servers/%s' % server,
                    headers=_headers()).json['server']
    assert shown['key_name'] == 'mykey'
    # The metadata serves the new key.
    instance = objects.Instance.get_by_uuid(context, server)
    doc = documents.meta_data(instance, '2012-08-10', conf)
    assert doc['public_keys'] == {'mykey': KEY}
    assert doc['keys'] == [{'name': 'mykey', 'type': 'ssh', 'data': KEY}]

    # key_name null takes the key away, as in Nova.
    body = _rebuild(app, server, {'imageRef': IMAGE_2, 'key_name': None},
                    202).json['server']
    assert body['key_name'] is None
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.key_name, instance.key_data) == (None, None)
    doc = documents.meta_data(instance, '2012-08-10', conf)
    assert 'public_keys' not in doc and 'keys' not in doc


def test_key_name_before_254_is_refused(api_fixture_factory):
    app, _conf, context, server = _setup(api_fixture_factory)
    before = _kept(context, server)
    response = _rebuild(app, server, {'imageRef': IMAGE_2, 'key_name': 'k'},
                        400, version='2.53')
    assert 'key_name' in response.json['badRequest']['message']
    assert _kept(context, server) == before


def test_unknown_key_changes_nothing(api_fixture_factory):
    app, _conf, context, server = _setup(api_fixture_factory)
    before = _kept(context, server)
    response = _rebuild(app, server, {'imageRef': IMAGE_2, 'key_name': 'no',
                                      'name': 'other'}, 400)
    assert response.json == {'badRequest': {
        'message': 'Invalid key_name provided.', 'code': 400}}
    assert _kept(context, server) == before


def test_glance_away_is_503_and_nothing_changed(api_fixture_factory):
    port = util.free_port()
    app, _conf, context, server = _setup(api_fixture_factory, **{
        'glance.endpoint_override': 'http://127.0.0.1:%d' % port})
    before = _kept(context, server)
    image = str(uuid.uuid4())
    response = _rebuild(app, server, {
        'imageRef': image, 'name': 'other', 'OS-DCF:diskConfig': 'AUTO'},
        503)
    fault = response.json['serviceUnavailable']
    assert fault['message'].startswith(
        'The Image service (Glance) could not be reached to check image '
        '%s' % image)
    assert _kept(context, server) == before


def test_an_image_ref_that_is_no_image_id(api_fixture_factory):
    port = util.free_port()
    app, _conf, context, server = _setup(api_fixture_factory, **{
        'glance.endpoint_override': 'http://127.0.0.1:%d' % port})
    before = _kept(context, server)
    response = _rebuild(app, server, {'imageRef': 'cirros'}, 400)
    assert response.json['badRequest']['message'] == \
        'Invalid imageRef provided.'
    assert _kept(context, server) == before


def test_a_server_whose_node_is_rescued_is_not_rebuilt(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory().app)
    context = nm_context.get_admin_context()
    server = str(uuid.uuid4())
    node = builders.create_node(context, 'n-r', provision_state='rescue',
                                power_state='power on',
                                instance_uuid=server,
                                instance_info={'image_source': IMAGE})
    builders.boot_server(context, server, name='box', user_id='demo',
                         vm_state=instance_task.ACTIVE,
                         power_state=instance_task.RUNNING,
                         node_uuid=node.uuid)
    before = _kept(context, server)
    response = _rebuild(app, server, {'imageRef': IMAGE_2, 'name': 'other'},
                        409)
    assert response.json['conflictingRequest']['message'] == (
        "Cannot 'rebuild' instance %s while it is in node provision_state "
        "rescue" % server)
    assert _kept(context, server) == before
    stored = objects.Node.get_by_uuid(context, node.uuid)
    assert stored.instance_info == {'image_source': IMAGE}
    assert stored.provision_state == 'rescue'
    # Deleting the server tears the rescued node down.
    app.delete(V21 + '/servers/%s' % server, headers=_headers(),
               status=204)
    stored = objects.Node.get_by_uuid(context, node.uuid)
    assert (stored.provision_state, stored.instance_uuid) == (
        'available', None)
