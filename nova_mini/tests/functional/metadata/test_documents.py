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

"""What each metadata version serves, file by file: every listed file
answers (a listed file that 404s is a bug), every file a version lacks
answers 404, and the content and content types are Nova's. The versions
are Nova 34's (unit test_versions.py).
"""

import base64
import json

import pytest

from nova_mini.metadata import versions
from nova_mini.tests.fixtures import metadata_service

ALL_FILES = ['meta_data.json', 'user_data', 'vendor_data.json',
             'network_data.json', 'vendor_data2.json']
# The first version of each file.
FIRST = {'meta_data.json': '2012-08-10', 'user_data': '2012-08-10',
         'vendor_data.json': '2013-10-17', 'network_data.json': '2015-10-15',
         'vendor_data2.json': '2016-10-06'}
# The keys of meta_data.json at each version for an instance with metadata
# and no key pair, as Nova renders them.
BASE_KEYS = {'uuid', 'meta', 'hostname', 'name', 'launch_index',
             'availability_zone'}
ADDED_KEYS = [('2013-04-04', 'random_seed'), ('2015-10-15', 'project_id'),
              ('2016-06-30', 'devices'), ('2020-10-14', 'dedicated_cpus')]
# The other files, for an instance without networking and with Nova's
# vendordata defaults.
EMPTY = {'vendor_data.json': {}, 'vendor_data2.json': {'static': {}},
         'network_data.json': {'links': [], 'networks': [], 'services': []}}
USER_DATA = b'#cloud-config\nhostname: x\n\x00\xff binary too'


def _keys(version):
    return BASE_KEYS | {key for first, key in ADDED_KEYS if version >= first}


def _served(version, name):
    resolved = versions.VERSIONS[-1] if version == 'latest' else version
    return resolved >= FIRST[name]


@pytest.fixture
def instance(make_instance):
    return make_instance(name='Web_1.example', launch_index=2,
                         metadata={'role': 'web', 'tier': '1'},
                         user_data=metadata_service.encode(USER_DATA))


def test_root_lists_openstack_only(app):
    resp = app.get('/')
    assert resp.text == 'openstack'
    assert resp.content_type == 'text/plain'


@pytest.mark.parametrize('path', ['/openstack', '/openstack/', '//openstack'])
def test_openstack_lists_versions_without_identity(app, path):
    resp = app.get(path)
    assert resp.text.split('\n') == versions.listed()
    assert resp.content_type == 'text/plain'


@pytest.mark.parametrize('version', versions.listed())
def test_every_listed_file_is_served(app, instance, version):
    headers = metadata_service.headers(instance.uuid)
    listing = app.get('/openstack/%s' % version, headers=headers)
    assert listing.content_type == 'text/plain'
    listed = listing.text.split('\n')
    assert listed == [name for name in ALL_FILES if _served(version, name)]
    resolved = versions.VERSIONS[-1] if version == 'latest' else version
    for name in listed:
        resp = app.get('/openstack/%s/%s' % (version, name), headers=headers)
        assert resp.status_int == 200
        if name == 'user_data':
            assert resp.body == USER_DATA
            assert resp.content_type == 'text/plain'
            continue
        assert resp.content_type == 'application/json'
        doc = json.loads(resp.body)
        if name == 'meta_data.json':
            assert set(doc) == _keys(resolved)
            assert (doc['uuid'], doc['name'], doc['meta']) == (
                instance.uuid, 'Web_1.example', {'role': 'web', 'tier': '1'})
        else:
            # No vendordata configured, no networking.
            assert doc == EMPTY[name]
    for name in set(ALL_FILES) - set(listed):
        app.get('/openstack/%s/%s' % (version, name), headers=headers,
                status=404)


@pytest.mark.parametrize('version', versions.listed())
def test_meta_data_keys_at_each_version(app, instance, version):
    resp = app.get('/openstack/%s/meta_data.json' % version,
                   headers=metadata_service.headers(instance.uuid))
    resolved = versions.VERSIONS[-1] if version == 'latest' else version
    assert set(resp.json) == _keys(resolved)


def test_meta_data_content(app, instance):
    doc = app.get('/openstack/latest/meta_data.json',
                  headers=metadata_service.headers(instance.uuid)).json
    seed = base64.b64decode(doc.pop('random_seed'))
    assert len(seed) == 512
    assert doc == {
        'uuid': instance.uuid,
        'meta': {'role': 'web', 'tier': '1'},
        'hostname': 'web-1-example.novalocal',
        'name': 'Web_1.example',
        'launch_index': 2,
        'availability_zone': 'nova',
        'project_id': metadata_service.PROJECT,
        'devices': [],
        'dedicated_cpus': [],
    }


def test_meta_data_without_metadata_has_no_meta_key(app, make_instance):
    # As Nova: the key is left out, not empty.
    instance = make_instance()
    doc = app.get('/openstack/latest/meta_data.json',
                  headers=metadata_service.headers(instance.uuid)).json
    assert 'meta' not in doc
    assert 'public_keys' not in doc and 'keys' not in doc


def test_unscheduled_instance_has_no_zone(app, make_instance):
    instance = make_instance(vm_state='building', node_uuid=None)
    doc = app.get('/openstack/latest/meta_data.json',
                  headers=metadata_service.headers(instance.uuid)).json
    assert doc['availability_zone'] is None


def test_hostname_without_dhcp_domain(make_app, make_instance):
    app = make_app(**{'metadata.dhcp_domain': ''})
    instance = make_instance(name='db 2')
    doc = app.get('/openstack/latest/meta_data.json',
                  headers=metadata_service.headers(instance.uuid)).json
    assert doc['hostname'] == 'db-2'


def test_network_data_is_empty_but_valid(app, instance):
    resp = app.get('/openstack/latest/network_data.json',
                   headers=metadata_service.headers(instance.uuid))
    assert resp.json == {'links': [], 'networks': [], 'services': []}


def test_no_user_data_is_404_and_not_listed(app, make_instance):
    instance = make_instance(user_data=None)
    headers = metadata_service.headers(instance.uuid)
    for version in versions.listed():
        listed = app.get('/openstack/%s' % version, headers=headers).text
        assert 'user_data' not in listed.split('\n')
        app.get('/openstack/%s/user_data' % version, headers=headers,
                status=404)


def test_vendor_data_by_default(app, instance):
    # StaticJSON without a file, as Nova's defaults.
    headers = metadata_service.headers(instance.uuid)
    assert app.get('/openstack/latest/vendor_data.json',
                   headers=headers).json == {}
    assert app.get('/openstack/latest/vendor_data2.json',
                   headers=headers).json == {'static': {}}


@pytest.mark.parametrize('path', [
    '/openstack/2012-08-09/meta_data.json',   # unknown version
    '/openstack/2099-01-01',
    '/openstack/LATEST/meta_data.json',
    '/openstack/latest/password',             # Nova's; not served here
    '/openstack/latest/meta_data.json/uuid',
    '/openstack/latest/nothing',
    '/openstack/content/0000',
    '/latest/meta-data/',                     # EC2: not served
    '/2009-04-04/meta-data/instance-id',
])
def test_unknown_paths_are_404(app, instance, path):
    app.get(path, headers=metadata_service.headers(instance.uuid), status=404)


@pytest.mark.parametrize('path', ['/openstack/latest/',
                                  '/openstack//latest//meta_data.json/',
                                  '/openstack/latest/./meta_data.json'])
def test_paths_are_normalised(app, instance, path):
    headers = metadata_service.headers(instance.uuid)
    resp = app.get(path, headers=headers, status=200)
    if path == '/openstack/latest/':
        assert resp.content_type == 'text/plain'
        assert resp.text.split('\n') == ALL_FILES
        return
    assert resp.content_type == 'application/json'
    doc = resp.json
    canonical = app.get('/openstack/latest/meta_data.json',
                        headers=headers).json
    # The same document, but for its random seed (new with each answer).
    doc.pop('random_seed')
    canonical.pop('random_seed')
    assert doc == canonical
    assert doc['uuid'] == instance.uuid


@pytest.mark.parametrize('method', ['POST', 'PUT', 'DELETE', 'PATCH'])
def test_only_get_and_head(app, instance, method):
    resp = app.request('/openstack/latest/meta_data.json', method=method,
                       headers=metadata_service.headers(instance.uuid),
                       expect_errors=True)
    assert resp.status_int == 405
    assert resp.headers['Allow'] == 'GET, HEAD'


def test_head(app, instance):
    headers = metadata_service.headers(instance.uuid)
    resp = app.head('/openstack/latest/meta_data.json', headers=headers)
    assert resp.status_int == 200 and resp.body == b''
    # GET's headers: the document's type and length (its random seed has
    # the same length in every answer).
    got = app.get('/openstack/latest/meta_data.json', headers=headers)
    assert resp.content_type == 'application/json'
    assert resp.content_length == got.content_length == len(got.body)


def test_meta_data_of_a_server_with_a_key_pair(app, make_instance):
    # As Nova: the key the server kept at boot, by name, and with its
    # type; the key pair may be gone since.
    key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGxY2FFvN6hRn7Pc4TVKtf me@h'
    instance = make_instance(key_name='mykey', key_data=key)
    doc = app.get('/openstack/latest/meta_data.json',
                  headers=metadata_service.headers(instance.uuid)).json
    assert doc['public_keys'] == {'mykey': key}
    assert doc['keys'] == [{'name': 'mykey', 'type': 'ssh', 'data': key}]
    cert = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'
    instance = make_instance(key_name='cert', key_data=cert)
    doc = app.get('/openstack/2012-08-10/meta_data.json',
                  headers=metadata_service.headers(instance.uuid)).json
    assert doc['keys'] == [{'name': 'cert', 'type': 'x509', 'data': cert}]
