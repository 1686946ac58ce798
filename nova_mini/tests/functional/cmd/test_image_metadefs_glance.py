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

"""The image property metadefs in a real Glance: written by
``nova-mini-manage image-properties metadefs``, loaded into the test
Glance's database by its own ``glance-manage db load_metadefs``, and read
back through Glance's metadef API.
"""

import os
import urllib.parse

from keystoneauth1 import session as ks_session
import pytest

from nova_mini.cmd import manage
from nova_mini.tests.fixtures import console_scripts
from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import util

HW = 'OS::Compute::NovaMini::Image::hw'
TRAIT = 'OS::Compute::NovaMini::Image::trait'
LEGACY = 'OS::Compute::NovaMini::Image'


@pytest.fixture(scope='module')
def glance(tmp_path_factory):
    state = tmp_path_factory.mktemp('glance')
    # One worker: the tests' requests come one at a time.
    service = glance_harness.Glance(str(state), util.free_port(),
                                    workers=1).setup()
    metadefs = state / 'metadefs'
    # nova-mini-manage's main in process (the console script's start is
    # test_manage's): the files it writes are the subject.
    written = console_scripts.call(manage.main, None, 'image-properties',
                                   'metadefs', '--output-dir', str(metadefs))
    assert written.returncode == 0, written.stderr
    util.run([os.path.join(service.venv, 'bin', 'glance-manage'),
              '--config-file', service.conf_path, 'db', 'load_metadefs',
              '--path', str(metadefs)],
             log_path=str(state / 'load_metadefs.log'), timeout=300,
             env=service._env(), what='glance-manage db load_metadefs')
    service.start()
    try:
        yield service
    finally:
        service.stop()


def _get(glance, path):
    return ks_session.Session(timeout=60).get(
        glance.url + '/v2/metadefs' + path).json()


def _namespace(name):
    return '/namespaces/' + urllib.parse.quote(name)


def test_namespaces_are_listed_for_images(glance):
    listed = _get(glance, '/namespaces?resource_types=OS::Glance::Image'
                          '&limit=100')
    names = {n['namespace'] for n in listed['namespaces']}
    assert {HW, TRAIT, LEGACY, 'OS::Compute::NovaMini::Image::img',
            'OS::Compute::NovaMini::Image::os'} <= names


def test_prefixed_namespace_and_property(glance):
    namespace = _get(glance, _namespace(HW))
    associations = {a['name']: a for a in
                    namespace['resource_type_associations']}
    assert associations['OS::Glance::Image']['prefix'] == 'hw_'
    volume = associations['OS::Cinder::Volume']
    assert (volume['prefix'], volume['properties_target']) == ('hw_',
                                                               'image')
    assert (namespace['visibility'], namespace['protected']) == (
        'public', True)
    # Glance stores a property without the prefix: hw_cpu_policy.
    policy = _get(glance, _namespace(HW) + '/properties/cpu_policy')
    assert policy['title'] == 'hw_cpu_policy'
    assert policy['type'] == 'string'
    assert policy['enum'] == ['dedicated', 'shared', 'mixed']
    assert 'hw:cpu_policy' in policy['description']
    # And through the namespace with its prefix applied, as Horizon asks.
    shown = _get(glance, _namespace(HW) +
                 '?resource_type=OS::Glance::Image')
    assert 'hw_cpu_policy' in shown['properties']


def test_traits_and_legacy_names(glance):
    trait = _get(glance, _namespace(TRAIT))
    [image] = [a for a in trait['resource_type_associations']
               if a['name'] == 'OS::Glance::Image']
    assert image['prefix'] == 'trait:'
    legacy = _get(glance, _namespace(LEGACY))
    [image] = [a for a in legacy['resource_type_associations']
               if a['name'] == 'OS::Glance::Image']
    assert image.get('prefix') in (None, '')
    assert 'architecture' in legacy['properties']
