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

"""The provision request's config drive, read back from the stored node:
a refused one (wrong shape, over the size cap) stores nothing; an object
is built into the image Ironic's build writes; the stored text is shown
only where show_instance_secrets allows; nothing of it is logged.
(Status codes and messages at every version: gabbits/baremetal-configdrive.yaml.)
"""

import base64
import gzip
import io
import json
import logging
import os

import pycdlib
import pytest
import webtest

from nova_mini.configdrive import iso
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}
PROVISION = '/baremetal/v1/nodes/n/states/provision'
SECRET = 'user-data-secret-7f3a'
MiB = 1024 * 1024


def _encoded(data):
    return base64.b64encode(gzip.compress(data, mtime=0)).decode('ascii')


@pytest.fixture
def fixture(api_fixture_factory):
    return api_fixture_factory()


@pytest.fixture
def api(fixture):
    return webtest.TestApp(fixture.app)


@pytest.fixture
def stored(api):
    """Node ``n``, available; return a reader of its stored row."""
    admin = nm_context.get_admin_context()
    builders.create_node(admin, 'n', provision_state='available',
                         power_state='power off',
                         instance_info={'image_source': 'img'})
    return lambda: objects.Node.get_by_name(admin, 'n')


def _provision(api, body, status, version='1.65'):
    headers = dict(HEADERS, **{'X-OpenStack-Ironic-API-Version': version})
    response = api.put_json(PROVISION, body, headers=headers,
                            expect_errors=True)
    assert response.status_int == status, response.text
    return response


def _files(text):
    """{path: bytes} of the image that ``text`` encodes, by Rock Ridge
    name (what Linux, and cloud-init, see).
    """
    image = pycdlib.PyCdlib()
    image.open_fp(io.BytesIO(iso.decode(text)))
    try:
        found = {}
        for root, _dirs, names in image.walk(rr_path='/'):
            for name in names:
                path = '%s/%s' % (root.rstrip('/'), name)
                data = io.BytesIO()
                image.get_file_from_iso_fp(data, rr_path=path)
                found[path.lstrip('/')] = data.getvalue()
        return found
    finally:
        image.close()


@pytest.mark.parametrize('drive,version', [
    ('not base64!', '1.65'),
    ('abc', '1.65'),
    (base64.b64encode(SECRET.encode()).decode(), '1.65'),
    ('ftp://example.com/cd.iso.gz', '1.65'),
    ('file:///etc/shadow', '1.65'),
    ({'user_data': SECRET, 'bogus': 1}, '1.65'),
    ({'meta_data': SECRET}, '1.65'),
    ({'user_data': SECRET}, '1.55'),
    ({'vendor_data': {'k': SECRET}}, '1.58'),
    (42, '1.65'),
])
def test_refused_drives_store_nothing(api, stored, caplog, drive, version):
    caplog.set_level(logging.DEBUG)
    response = _provision(api, {'target': 'active', 'configdrive': drive},
                          400, version)
    node = stored()
    assert (node.provision_state, node.instance_info) == (
        'available', {'image_source': 'img'})
    assert SECRET not in response.text
    assert SECRET not in caplog.text


def test_text_over_the_cap_stores_nothing(api, stored, fixture):
    fixture.conf_fixture.config(config_drive_max_size=MiB)
    # Zeros: a 1 MiB + 1 image in a request of a few KiB.
    response = _provision(api, {'target': 'active',
                                'configdrive': _encoded(b'\0' * (MiB + 1))},
                          400)
    assert 'over the limit of 1048576 bytes' in response.json[
        'error_message']
    assert 'configdrive' not in stored().instance_info
    # At the cap, it is taken.
    _provision(api, {'target': 'active',
                     'configdrive': _encoded(b'\0' * MiB)}, 202)
    assert 'configdrive' in stored().instance_info


def test_object_building_past_the_cap_stores_nothing(api, stored, fixture):
    fixture.conf_fixture.config(config_drive_max_size=MiB)
    # A body of 1.3 MiB, under the provision request's own limit.
    user_data = base64.b64encode(os.urandom(MiB)).decode('ascii')
    response = _provision(api, {'target': 'active',
                                'configdrive': {'user_data': user_data}},
                          400)
    assert 'over the limit' in response.json['error_message']
    assert 'configdrive' not in stored().instance_info


def test_an_object_is_built_as_ironic_builds_it(api, stored):
    node = stored()
    _provision(api, {'target': 'active', 'configdrive': {
        'meta_data': {'hostname': 'web-1'},
        'network_data': {'links': [], 'networks': [], 'services': []},
        'user_data': {'runcmd': [SECRET]},
        'vendor_data': {'site': 'lab'}}}, 202)
    files = _files(stored().instance_info['configdrive'])
    for version in ('2012-08-10', 'latest'):
        prefix = 'openstack/%s/' % version
        assert json.loads(files[prefix + 'meta_data.json']) == {
            'hostname': 'web-1', 'uuid': node.uuid, 'name': 'n'}
        assert json.loads(files[prefix + 'network_data.json']) == {
            'links': [], 'networks': [], 'services': []}
        assert json.loads(files[prefix + 'vendor_data2.json']) == {
            'site': 'lab'}
        assert json.loads(files[prefix + 'user_data']) == {
            'runcmd': [SECRET]}
    assert len(files) == 8


def test_given_meta_data_wins_and_empty_parts_are_left_out(api, stored):
    _provision(api, {'target': 'active', 'configdrive': {
        'meta_data': {'uuid': 'mine', 'name': 'given'},
        'user_data': '#cloud-config\n', 'network_data': {}}}, 202)
    files = _files(stored().instance_info['configdrive'])
    assert sorted(files) == [
        'openstack/2012-08-10/meta_data.json', 'openstack/2012-08-10/user_data',
        'openstack/latest/meta_data.json', 'openstack/latest/user_data']
    assert json.loads(files['openstack/latest/meta_data.json']) == {
        'uuid': 'mine', 'name': 'given'}
    assert files['openstack/latest/user_data'] == b'#cloud-config\n'


def test_text_is_stored_as_given(api, stored):
    text = _encoded(b'an image')
    wrapped = text[:8] + '\n' + text[8:]
    _provision(api, {'target': 'active', 'configdrive': wrapped}, 202)
    assert stored().instance_info['configdrive'] == wrapped
    url = 'https://example.com/cd.iso.gz'
    _provision(api, {'target': 'rebuild', 'configdrive': url}, 202)
    assert stored().instance_info['configdrive'] == url


@pytest.mark.parametrize('rules,masked', [
    ({}, True),
    ({'show_instance_secrets': 'role:admin'}, False),
])
def test_shown_only_with_show_instance_secrets(api_fixture_factory, rules,
                                               masked):
    text = _encoded(b'an image')
    api = webtest.TestApp(api_fixture_factory(policy_rules=rules).app)
    builders.create_node(nm_context.get_admin_context(), 'n',
                         provision_state='available', power_state='power off')
    _provision(api, {'target': 'active', 'configdrive': text}, 202)
    for path in ('/baremetal/v1/nodes/n', '/baremetal/v1/nodes/detail'):
        body = api.get(path, headers=HEADERS).json
        node = body['nodes'][0] if 'nodes' in body else body
        assert node['instance_info']['configdrive'] == (
            '******' if masked else text)


def test_never_logged(api, stored, caplog):
    caplog.set_level(logging.DEBUG)
    text = _encoded(SECRET.encode())
    _provision(api, {'target': 'active',
                     'configdrive': {'user_data': SECRET}}, 202)
    _provision(api, {'target': 'rebuild', 'configdrive': text}, 202)
    _provision(api, {'target': 'rebuild', 'configdrive': text}, 400, '1.34')
    _provision(api, {'target': 'deleted'}, 202)
    assert caplog.records
    assert SECRET not in caplog.text
    assert text not in caplog.text
