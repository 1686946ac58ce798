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

"""Helpers of the vendordata provider tests: CONF, instances as the
metadata service reads them (no database needed), providers loaded as
nova-mini-metadata loads them.
"""

import uuid

from keystoneauth1 import exceptions as ks_exceptions
from keystoneauth1 import loading as ks_loading
from oslo_config import fixture as config_fixture
import pytest

from nova_mini.metadata import vendordata
from nova_mini import objects
from nova_mini.tests.fixtures import conf as conf_fixture
from nova_mini.tests.fixtures import memcached

AUTH_GROUP = 'vendordata_dynamic_auth'


@pytest.fixture
def vd_conf():
    """nova_mini's CONF parsed from nothing; overrides undone after."""
    fixture = conf_fixture.ConfFixture()
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


@pytest.fixture
def load(vd_conf):
    """``load(**{'group.option': value})``: vendordata.load(CONF) with
    those options ([api] when no group is given); closed after the test.

    A keystoneauth1 plugin named by ``vendordata_dynamic_auth.auth_type``
    has its options registered first (they cannot be set before), and
    unregistered after the test: left on the global CONF, a plugin's
    required options would fail every later parse of it.
    """
    loaded = []
    registrar = config_fixture.Config(vd_conf.conf)
    registrar.setUp()

    def _load(**overrides):
        plugin = overrides.get(AUTH_GROUP + '.auth_type')
        if plugin:
            try:
                opts = ks_loading.get_auth_plugin_conf_options(plugin)
            except ks_exceptions.NoMatchingPlugin:
                opts = []
            registrar.register_opts(opts, group=AUTH_GROUP)
        for name, value in overrides.items():
            group, _sep, option = name.rpartition('.')
            vd_conf.config(group=group or 'api', **{option: value})
        providers = vendordata.load(vd_conf.conf)
        loaded.append(providers)
        return providers

    yield _load
    for providers in loaded:
        providers.close()
    registrar.cleanUp()


@pytest.fixture
def memcached_server():
    """A memcached of the test's own, on a free port."""
    fixture = memcached.MemcachedServer()
    fixture.setUp()
    try:
        yield fixture
    finally:
        fixture.cleanUp()


def memcached_options(server):
    """The ``load()`` overrides that put the cache on ``server``."""
    return {'cache.enabled': True,
            'cache.backend': 'dogpile.cache.pymemcache',
            'cache.memcache_servers': [server.url]}


def make_instance(**values):
    """An Instance with the fields the providers read."""
    fields = dict(uuid=str(uuid.uuid4()), name='Web_1.example',
                  project_id='demo-project', user_id='alice',
                  image_ref='155d900f-4e14-4e4c-a73d-069cbf4541e6',
                  user_data='I2Nsb3VkLWNvbmZpZwo=', metadata={'role': 'web'},
                  boot_roles=['member', 'reader'])
    fields.update(values)
    return objects.Instance(**fields)
