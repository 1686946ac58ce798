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

"""An image refused at boot or rebuild by Nova's typing or its rules
against the flavor (api.compute.image_flavor_rules), with a real Glance,
on each database backend: the rows tell that nothing was created (no
instance, no request spec, no instance action) or changed (the server,
its stored request spec, its node, its actions).
"""

import sys
import uuid

from keystoneauth1 import session as ks_session
import pytest
import sqlalchemy as sa
import webtest

from nova_mini.api.validation.image_properties import registry
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects.compute import instance_task
from nova_mini.objects import image_meta
from nova_mini.objects import request_spec
from nova_mini import states
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import plugins
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

V21 = '/compute/v2.1'
HEADERS = {'X-Auth-Token': 'demo:demo',
           'OpenStack-API-Version': 'compute 2.84'}

PLAIN = 'b2b2b2b2-0000-4000-8000-000000000001'
PINNED = 'b2b2b2b2-0000-4000-8000-000000000002'
DEDICATED = 'b2b2b2b2-0000-4000-8000-000000000003'
PAGES = 'b2b2b2b2-0000-4000-8000-000000000004'
COUNTED = 'b2b2b2b2-0000-4000-8000-000000000005'
IMAGES = {
    'plain': {'id': PLAIN, 'os_distro': 'cirros'},
    'pinned': {'id': PINNED, 'hw_cpu_policy': 'pinned'},
    'dedicated': {'id': DEDICATED, 'hw_cpu_policy': 'dedicated'},
    'pages': {'id': PAGES, 'hw_mem_page_size': 'large'},
    'counted': {'id': COUNTED, 'acme_counted': 'rack-1',
                'trait:CUSTOM_COUNTED': 'required'},
}
FLAVOR_SPECS = {'resources:CUSTOM_BM': '1', 'resources:VCPU': '0',
                'resources:MEMORY_MB': '0', 'resources:DISK_GB': '0',
                'hw:cpu_policy': 'shared'}
REFUSALS = [
    (PINNED, "Invalid image metadata. Error: Image property "
     "'hw_cpu_policy': 'pinned' is not one of: dedicated, shared, mixed."),
    (DEDICATED, "Image property 'hw_cpu_policy' is not permitted to "
     "override CPU pinning policy set against the flavor"),
    (PAGES, "Page size large forbidden against '<empty>'"),
]


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


def _rows(context):
    """Every row boot and rebuild write, by table."""
    tables = (models.Instance, models.RequestSpec, models.InstanceAction,
              models.InstanceActionEvent, models.Node)
    with db_api.context_manager.reader.using(context) as session:
        return {model.__tablename__: sorted(
            tuple(str(v) for v in row) for row in session.execute(
                sa.select(model.__table__)).all()) for model in tables}


def _setup(factory, backend, glance):
    fixture = factory(backend=backend, conf_overrides={
        'glance.endpoint_override': glance.url})
    context = nm_context.get_admin_context()
    flavor = objects.Flavor(
        context, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
        root_gb=10, is_public=True, extra_specs=dict(FLAVOR_SPECS))
    flavor.create()
    return webtest.TestApp(fixture.app), context, flavor


@pytest.mark.parametrize('image, message', REFUSALS)
def test_refused_boot_creates_nothing(api_fixture_factory, backend, glance,
                                      image, message):
    app, context, flavor = _setup(api_fixture_factory, backend, glance)
    before = _rows(context)
    response = app.post_json(V21 + '/servers', {'server': {
        'name': 'srv', 'flavorRef': flavor.flavorid, 'imageRef': image}},
        headers=HEADERS, status=400)
    assert response.json == {'badRequest': {'code': 400,
                                            'message': message}}
    assert _rows(context) == before
    assert not before['instances']


def _server(context, flavor, node_traits=()):
    """An ACTIVE server of image PLAIN on its node, its RequestSpec
    stored.
    """
    server = str(uuid.uuid4())
    node = builders.create_node(
        context, 'n-%s' % server[:8], list(node_traits), resource_class='bm',
        properties=builders.node_properties(cpu_arch='x86_64'),
        provision_state=states.ACTIVE, power_state=states.POWER_ON,
        instance_uuid=server,
        instance_info={'traits': [], 'image_source': PLAIN})
    builders.boot_server(context, server, name='box', user_id='demo',
                         flavor=flavor, image_ref=PLAIN,
                         vm_state=instance_task.ACTIVE,
                         power_state=instance_task.RUNNING,
                         node_uuid=node.uuid)
    request_spec.RequestSpec.from_components(
        context, flavor, image_meta.ImageMeta.from_dict({'id': PLAIN}),
        instance_uuids=[server], project_id='demo',
        user_id='demo').store(context)
    return server


@pytest.mark.parametrize('image, message', REFUSALS)
def test_refused_rebuild_changes_nothing(api_fixture_factory, backend,
                                         glance, image, message):
    app, context, flavor = _setup(api_fixture_factory, backend, glance)
    server = _server(context, flavor)
    before = _rows(context)
    response = app.post_json(V21 + '/servers/%s/action' % server, {
        'rebuild': {'imageRef': image, 'name': 'other'}},
        headers=HEADERS, status=400)
    assert response.json == {'badRequest': {'code': 400,
                                            'message': message}}
    assert _rows(context) == before
    instance = objects.Instance.get_by_uuid(context, server)
    assert (instance.image_ref, instance.name) == (PLAIN, 'box')


def test_accepted_boot_keeps_unknown_properties_raw(api_fixture_factory,
                                                    backend, glance):
    app, context, flavor = _setup(api_fixture_factory, backend, glance)
    server = app.post_json(V21 + '/servers', {'server': {
        'name': 'srv', 'flavorRef': flavor.flavorid, 'imageRef': PLAIN}},
        headers=HEADERS, status=202).json['server']['id']
    spec = request_spec.RequestSpec.get_by_instance_uuid(context, server)
    assert spec.image.raw_properties == {'os_distro': 'cirros'}
    assert spec.image.properties.traits_required == []


COUNTING_PLUGIN = '''
from nova_mini.api.validation.image_properties import base

TYPED = []


def _coerce(value):
    TYPED.append(value)
    return value


DEFINITIONS = [base.ImageProperty(
    name='acme_counted', description='Counts the typings of its value.',
    value=base.Value(str), coerce=_coerce)]
'''


@pytest.fixture
def counting_plugin(tmp_path, monkeypatch):
    """An operator's image property definition (an installed
    distribution, its entry point in the registry's namespace) whose
    coercion records each value it types; the process' registry is built
    again with it, and without it afterwards.
    """
    with plugins.installed(tmp_path, monkeypatch, 'acme_counted_props',
                           COUNTING_PLUGIN, {registry.PLUGIN_NAMESPACE: {
                               'acme_counted':
                                   'acme_counted_props:DEFINITIONS'}}):
        registry.get_registry.cache_clear()
        try:
            assert registry.get_registry().lookup(
                'acme_counted').source == 'acme_counted'
            yield sys.modules['acme_counted_props']
        finally:
            registry.get_registry.cache_clear()


def test_boot_and_rebuild_type_the_image_once(api_fixture_factory, backend,
                                              glance, counting_plugin):
    app, context, flavor = _setup(api_fixture_factory, backend, glance)
    server = app.post_json(V21 + '/servers', {'server': {
        'name': 'srv', 'flavorRef': flavor.flavorid, 'imageRef': COUNTED}},
        headers=HEADERS, status=202).json['server']['id']

    # One typing (the image property registry's) for the request's checks
    # and for what the scheduler reads.
    assert counting_plugin.TYPED == ['rack-1']
    spec = request_spec.RequestSpec.get_by_instance_uuid(context, server)
    assert spec.image.properties.traits_required == ['CUSTOM_COUNTED']
    assert spec.image.raw_properties['acme_counted'] == 'rack-1'

    del counting_plugin.TYPED[:]
    server = _server(context, flavor, node_traits=['CUSTOM_COUNTED'])
    app.post_json(V21 + '/servers/%s/action' % server, {
        'rebuild': {'imageRef': COUNTED}}, headers=HEADERS, status=202)

    assert counting_plugin.TYPED == ['rack-1']
    spec = request_spec.RequestSpec.get_by_instance_uuid(context, server)
    assert (spec.image.id, spec.image.properties.traits_required) == (
        COUNTED, ['CUSTOM_COUNTED'])
