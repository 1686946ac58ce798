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

"""Fixtures of the metadata service's in-process tests: the application
built as nova-mini-metadata builds it (``app.build_app``, every
middleware), on a real database, and instances stored through the
Instance object.
"""

import base64
import uuid

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini.metadata import app as metadata_app
from nova_mini.metadata import identity
from nova_mini import objects
from nova_mini.objects import instance as instance_obj
from nova_mini.tests.fixtures import conf as conf_fixture

SECRET = 'proxy-secret-%s' % uuid.uuid4().hex
PROJECT = 'demo-project'
NODE = '2f1c6a4e-8b7d-4e3a-9c5f-0d1e2a3b4c5d'


@pytest.fixture
def conf(db):
    """CONF with a shared secret, on the module's database (emptied after
    each test).
    """
    fixture = conf_fixture.ConfFixture(**{
        'metadata.metadata_proxy_shared_secret': SECRET})
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


@pytest.fixture
def make_app(conf):
    """Build the application with more ``{'group.option': value}``; a
    webtest TestApp.
    """
    def make(**overrides):
        for group_and_name, value in overrides.items():
            group, _sep, name = group_and_name.rpartition('.')
            conf.config(group=group or None, **{name: value})
        return webtest.TestApp(metadata_app.build_app(conf.conf))
    return make


@pytest.fixture
def app(make_app):
    return make_app()


def encode(data):
    """``data`` (bytes) as the compute API receives user data."""
    return base64.b64encode(data).decode('ascii')


@pytest.fixture
def make_instance():
    """Store an instance (ACTIVE on NODE unless told otherwise); the
    Instance object.
    """
    admin = nm_context.get_admin_context()

    def make(**values):
        flavor = objects.Flavor(
            admin, flavorid='bm', name='bm', memory_mb=1024, vcpus=1,
            root_gb=10, ephemeral_gb=0, swap=0, is_public=True,
            disabled=False, description=None, extra_specs={})
        fields = dict(uuid=str(uuid.uuid4()), name='web-1',
                      project_id=PROJECT, user_id='alice', flavor=flavor,
                      image_ref='img-1', vm_state=instance_obj.ACTIVE,
                      node_uuid=NODE, fault=None, metadata={},
                      user_data=None, launch_index=0,
                      boot_roles=['member', 'reader'])
        fields.update(values)
        instance = objects.Instance(admin, **fields)
        instance.create()
        return instance
    return make


def headers(instance_id, project_id=PROJECT, secret=SECRET):
    """The identity headers the metadata proxy sends."""
    return {identity.INSTANCE_ID: instance_id,
            identity.TENANT_ID: project_id,
            identity.SIGNATURE: identity.sign(secret, instance_id)}
