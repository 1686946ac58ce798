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

"""The image of POST /servers under ``[api] auth_strategy = noauth2``
(nova_mini.image.glance): without ``[glance] endpoint_override`` the
image is not looked up (no token to send Glance), yet ``imageRef`` must
be an image id or a URL ending in one, as Nova's schema wants; with it, Glance is asked,
and a Glance that does not answer (a port nothing listens on: no mock) is
a 503 with nothing created. The Keystone cases, with the real Glance, are
in the live test test_images_live.
"""

import uuid

import pytest
import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.image import glance
from nova_mini import objects
from nova_mini_deploy import util

V21 = '/compute/v2.1'
DEMO = {'X-Auth-Token': 'demo:demo',
        'OpenStack-API-Version': 'compute 2.64'}


def _app(factory, **overrides):
    fixture = factory(conf_overrides=overrides)
    objects.Flavor(
        nm_context.get_admin_context(), flavorid='bm', name='bm',
        memory_mb=1024, vcpus=1, root_gb=10, is_public=True,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                     'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                     'resources:DISK_GB': '0'}).create()
    return webtest.TestApp(fixture.app)


def _instances():
    with db_api.context_manager.reader.using(
            nm_context.get_admin_context()) as session:
        return session.execute(sa.select(
            models.Instance.__table__.c.image_ref)).scalars().all()


def _post(app, image_ref, status):
    return app.post_json(V21 + '/servers', {'server': {
        'name': 'srv', 'flavorRef': 'bm', 'imageRef': image_ref}},
        headers=DEMO, status=status)


def test_unchecked_without_endpoint_override(api_fixture_factory):
    app = _app(api_fixture_factory)
    image_id = str(uuid.uuid4())
    _post(app, image_id, 202)
    # A URL ending in an image id names that image; the server keeps the
    # id.
    other = str(uuid.uuid4())
    _post(app, 'http://glance.example.com/v2/images/%s' % other, 202)
    assert sorted(_instances()) == sorted([image_id, other])


@pytest.mark.parametrize('image_ref', [
    'not-a-uuid', 'any-image', 'http://glance.example.com/v2/images/cirros',
    '%s-x' % uuid.UUID(int=1)])
def test_not_an_image_id_is_refused_without_glance(api_fixture_factory,
                                                   image_ref):
    app = _app(api_fixture_factory)
    response = _post(app, image_ref, 400)
    assert response.json == {'badRequest': {
        'message': 'Invalid imageRef provided.', 'code': 400}}
    assert _instances() == []


def test_glance_away_is_503_and_nothing_created(api_fixture_factory):
    port = util.free_port()
    app = _app(api_fixture_factory, **{
        'glance.endpoint_override': 'http://127.0.0.1:%d' % port})
    image_id = str(uuid.uuid4())
    response = _post(app, image_id, 503)
    fault = response.json['serviceUnavailable']
    assert fault['code'] == 503
    assert fault['message'].startswith(
        'The Image service (Glance) could not be reached to check image '
        '%s: ConnectFailure.' % image_id), fault
    assert 'Nothing was created' in fault['message']
    assert response.headers['Retry-After'] == str(glance.RETRY_AFTER)
    assert _instances() == []


def test_malformed_image_ref_with_endpoint_override(api_fixture_factory):
    app = _app(api_fixture_factory, **{
        'glance.endpoint_override': 'http://127.0.0.1:%d'
        % util.free_port()})
    response = _post(app, 'cirros', 400)
    assert response.json == {'badRequest': {
        'message': 'Invalid imageRef provided.', 'code': 400}}
    assert _instances() == []
