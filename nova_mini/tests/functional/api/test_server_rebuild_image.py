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

"""A rebuild with a new image honours what a boot honours, on each
database backend
(nova_mini.scheduler.rebuild): the image, read from a real Glance (its
pipeline without authentication, ``[glance] endpoint_override``), is
checked against the server's node with the scheduler's own filters. A
refusal is a 400 that changes nothing (the server's row, its stored
RequestSpec row, its node) and records the rebuild action's error; a
success saves the RequestSpec with the new image and gives the node's
instance_info the new image and traits.
"""

import uuid

from keystoneauth1 import session as ks_session
from oslo_serialization import jsonutils
import pytest
import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.compute import instance_action
from nova_mini.objects.compute import instance_task
from nova_mini.objects import image_meta
from nova_mini.objects import request_spec
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

V21 = '/compute/v2.1'
HEADERS = {'X-Auth-Token': 'demo:demo',
           'OpenStack-API-Version': 'compute 2.84'}

PLAIN = 'f0f0f0f0-0000-4000-8000-000000000001'
GPU = 'f0f0f0f0-0000-4000-8000-000000000002'
ARM = 'f0f0f0f0-0000-4000-8000-000000000003'
RAID = 'f0f0f0f0-0000-4000-8000-000000000004'
IMAGES = {
    'plain': {'id': PLAIN, 'os_distro': 'cirros'},
    'gpu': {'id': GPU, 'trait:CUSTOM_GPU': 'required',
            'hw_architecture': 'x86_64', 'os_distro': 'ubuntu'},
    'arm': {'id': ARM, 'architecture': 'aarch64'},
    'raid': {'id': RAID, 'trait:CUSTOM_RAID': 'required'},
}
FLAVOR_SPECS = {'resources:CUSTOM_BM': '1', 'resources:VCPU': '0',
                'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0',
                'trait:CUSTOM_BASE': 'required',
                'trait:CUSTOM_RAID': 'forbidden'}
NOVA_TRAITS_WORDS = ('No valid host was found. Image traits cannot be '
                     'satisfied by the current resource providers')


@pytest.fixture(scope='module')
def glance(tmp_path_factory):
    service = glance_harness.Glance(
        str(tmp_path_factory.mktemp('glance')), util.free_port()).setup()
    service.start()
    try:
        session = ks_session.Session(timeout=60)
        for name, properties in IMAGES.items():
            service.ensure_image(session, name, properties,
                                 visibility='shared')
        yield service
    finally:
        service.stop()


def _glance_image(service, image_id):
    return ks_session.Session(timeout=60).get(
        service.url + '/v2/images/%s' % image_id).json()


def _setup(factory, backend, glance, node_traits, **overrides):
    overrides['glance.endpoint_override'] = glance.url
    fixture = factory(backend=backend, conf_overrides=overrides)
    context = nm_context.get_admin_context()
    server = str(uuid.uuid4())
    flavor = builders.make_flavor(context, extra_specs=dict(FLAVOR_SPECS))
    node = builders.create_node(
        context, 'n-%s' % server[:8], node_traits, resource_class='bm',
        properties=builders.node_properties(cpu_arch='x86_64'),
        provision_state=states.ACTIVE, power_state=states.POWER_ON,
        instance_uuid=server,
        instance_info={'traits': ['CUSTOM_BASE'], 'image_source': PLAIN})
    builders.boot_server(context, server, name='box', user_id='demo',
                         flavor=flavor, image_ref=PLAIN,
                         vm_state=instance_task.ACTIVE,
                         power_state=instance_task.RUNNING,
                         node_uuid=node.uuid)
    # As the API stores it on create.
    request_spec.RequestSpec.from_components(
        context, flavor, image_meta.ImageMeta.from_glance(
            _glance_image(glance, PLAIN)),
        instance_uuids=[server], project_id='demo',
        user_id='demo').store(context)
    return webtest.TestApp(fixture.app), context, server, node


def _stored_spec(context, server):
    """The request_specs row of the server, as stored."""
    with db_api.context_manager.reader.using(context) as session:
        text = session.execute(sa.select(
            models.RequestSpec.__table__.c.spec).where(
                models.RequestSpec.__table__.c.instance_uuid == server)
        ).scalar()
    return jsonutils.loads(text)['nova_mini_object.data']


def _image_of(stored):
    return stored['image']['nova_mini_object.data']


def _state(context, server, node):
    instance = objects.Instance.get_by_uuid(context, server)
    stored = objects.Node.get_by_uuid(context, node.uuid)
    return ((instance.image_ref, instance.name, instance.vm_state,
             instance.task_state, instance.power_state),
            _stored_spec(context, server),
            (stored.instance_info, stored.provision_state,
             stored.power_state))


def _rebuild(app, server, image, status):
    return app.post_json(V21 + '/servers/%s/action' % server, {
        'rebuild': {'imageRef': image, 'name': 'other'}},
        headers=HEADERS, status=status)


def _last_action(context, server):
    [latest] = instance_action.list_actions(context, server, limit=1)
    return instance_action.get_action(context, server,
                                      latest['request_id'])


@pytest.mark.parametrize('image, words', [
    # The node lacks the trait the image requires (TraitsFilter).
    (GPU, NOVA_TRAITS_WORDS + ' (node %(node)s lacks CUSTOM_GPU). Either '
     'specify a different image during rebuild or create a new server '
     'with the specified image.'),
    # The node is x86_64, the image aarch64 (ImagePropertiesFilter).
    (ARM, "No valid host was found. The server's node %(node)s cannot run "
     'image ' + ARM + ' (ImagePropertiesFilter: image needs aarch64/*/*, '
     'node runs x86_64/baremetal/hvm). Either specify a different image during '
     'rebuild or create a new server with the specified image.'),
    # The flavor forbids the trait the image requires.
    (RAID, 'No valid host was found. Image traits are part of forbidden '
     'traits in flavor associated with the server (CUSTOM_RAID). Either '
     'specify a different image during rebuild or create a new server '
     'with the specified image and a compatible flavor.'),
])
def test_refused_image_changes_nothing(api_fixture_factory, backend, glance,
                                       image, words):
    app, context, server, node = _setup(api_fixture_factory, backend, glance,
                                        ['CUSTOM_BASE'])
    before = _state(context, server, node)
    assert _image_of(before[1])['id'] == PLAIN
    response = _rebuild(app, server, image, 400)
    message = words % {'node': node.uuid}
    assert response.json == {'badRequest': {'code': 400,
                                            'message': message}}
    # The server ACTIVE on its old image, its stored RequestSpec and its
    # node as they were.
    assert _state(context, server, node) == before
    shown = app.get(V21 + '/servers/%s' % server,
                    headers=HEADERS).json['server']
    assert (shown['status'], shown['image']['id'], shown['name']) == (
        'ACTIVE', PLAIN, 'box')
    # The rebuild action records why, as Nova's conductor does.
    action = _last_action(context, server)
    assert (action['action'], action['message']) == ('rebuild', 'Error')
    [event] = action['events']
    assert (event['event'], event['result'], event['details']) == (
        'rebuild_server', 'Error', message)
    # Administrators read it in the API (2.84).
    listed = app.get(V21 + '/servers/%s/os-instance-actions/%s' % (
        server, action['request_id']), headers=dict(
            HEADERS, **{'X-Auth-Token': 'admin:admin'})).json
    assert listed['instanceAction']['events'][0]['details'] == message


def test_accepted_image_is_saved_with_the_spec_and_the_node(
        api_fixture_factory, backend, glance):
    app, context, server, node = _setup(
        api_fixture_factory, backend, glance, ['CUSTOM_BASE', 'CUSTOM_GPU'])
    body = _rebuild(app, server, GPU, 202).json['server']
    assert (body['image']['id'], body['status']) == (GPU, 'ACTIVE')
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.image_ref, instance.name) == (GPU, 'other')
    # The stored RequestSpec asks for the new image: Glance's attributes
    # and properties, its trait among the required ones.
    stored = _stored_spec(context, server)
    image = _image_of(stored)
    assert (image['id'], image['name'], image['status']) == (
        GPU, 'gpu', 'active')
    assert image['raw_properties'] == {
        'trait:CUSTOM_GPU': 'required', 'hw_architecture': 'x86_64',
        'os_distro': 'ubuntu'}
    assert stored['required_traits'] == ['CUSTOM_BASE', 'CUSTOM_GPU']
    spec = request_spec.RequestSpec.get_by_instance_uuid(context, server)
    assert spec.image.properties.traits_required == ['CUSTOM_GPU']
    assert spec.image.checksum == _glance_image(glance, GPU)['checksum']
    # The node deploys the new image with the traits it needs now.
    info = objects.Node.get_by_uuid(context, node.uuid).instance_info
    assert info['traits'] == ['CUSTOM_BASE', 'CUSTOM_GPU']
    assert info['image_source'] == GPU
    assert info['image_properties']['trait:CUSTOM_GPU'] == 'required'
    action = _last_action(context, server)
    assert (action['action'], action['message']) == ('rebuild', None)
    assert [e['result'] for e in action['events']] == ['Success'] * 2


def test_only_the_enabled_rebuild_filters_run(api_fixture_factory, backend,
                                              glance):
    # Without ImagePropertiesFilter the architecture is not checked; the
    # traits always are, as a boot's database query asks for them.
    app, context, server, node = _setup(
        api_fixture_factory, backend, glance, ['CUSTOM_BASE'],
        **{'filter_scheduler.enabled_filters': ['RamFilter']})
    response = _rebuild(app, server, GPU, 400)
    assert response.json['badRequest']['message'].startswith(
        NOVA_TRAITS_WORDS)
    _rebuild(app, server, ARM, 202)
    assert _image_of(_stored_spec(context, server))['id'] == ARM


def test_same_image_keeps_the_spec(api_fixture_factory, backend, glance):
    # As Nova: the scheduler is asked only for a new image.
    app, context, server, node = _setup(api_fixture_factory, backend, glance,
                                        ['CUSTOM_BASE'])
    before = _stored_spec(context, server)
    _rebuild(app, server, PLAIN, 202)
    assert _stored_spec(context, server) == before
    info = objects.Node.get_by_uuid(context, node.uuid).instance_info
    assert (info['traits'], info['image_source']) == (['CUSTOM_BASE'],
                                                      PLAIN)
