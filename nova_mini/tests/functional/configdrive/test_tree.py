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

"""The config drive's files against the metadata service: every file the
service lists is on the drive, with the bytes it serves (meta_data.json's
random seed aside), vendordata included; DynamicJSON's targets are called
once per drive, with the token, and their failures follow the service's
rules.
"""

import io
import json

from keystoneauth1 import loading as ks_loading
from oslo_config import fixture as config_fixture
import pycdlib
import pytest

from nova_mini.configdrive import iso
from nova_mini.configdrive import tree
from nova_mini import exception
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import metadata_service
from nova_mini.tests.fixtures import vendordata as vd_helpers

AUTH_GROUP = vd_helpers.AUTH_GROUP

STATIC = {'cloud-init': '#cloud-config\npackages: [htop]\n'}
USER_DATA = b'#!/bin/sh\necho from the drive\n'


@pytest.fixture
def static_file(tmp_path):
    path = tmp_path / 'vendor_data.json'
    path.write_text(json.dumps(STATIC))
    return str(path)


@pytest.fixture
def builders(make_app, conf):
    """``make(**options)``: the metadata application and a config drive
    builder of the same options. The admin_token plugin's options are
    registered for the test (vendordata helpers' ``load`` explains why).
    """
    made = []
    registrar = config_fixture.Config(conf.conf)
    registrar.setUp()
    registrar.register_opts(
        ks_loading.get_auth_plugin_conf_options('admin_token'),
        group=AUTH_GROUP)

    def make(**options):
        app = make_app(**options)
        builder = tree.ConfigDriveBuilder.from_conf(conf.conf)
        made.append(builder)
        return app, builder
    yield make
    for builder in made:
        builder.close()
    registrar.cleanUp()


def _served(app, instance):
    """Every file the service lists for ``instance``: {path: bytes}."""
    headers = metadata_service.headers(instance.uuid)
    served = {}
    for listed in app.get('/openstack').text.split('\n'):
        names = app.get('/openstack/%s' % listed, headers=headers).text
        for name in names.split('\n'):
            path = 'openstack/%s/%s' % (listed, name)
            served[path] = app.get('/' + path, headers=headers).body
    return served


def _without_seed(path, data):
    if not path.endswith('/meta_data.json'):
        return data
    document = json.loads(data)
    document.pop('random_seed', None)
    return document


def test_the_drive_holds_what_the_service_serves(builders, make_instance,
                                                 static_file):
    app, builder = builders(**{
        'api.vendordata_providers': ['StaticJSON'],
        'api.vendordata_jsonfile_path': static_file})
    instance = make_instance(
        user_data=metadata_service.encode(USER_DATA),
        metadata={'role': 'db'}, key_name='mykey',
        key_data='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB mykey')
    files = builder.tree(instance)
    served = _served(app, instance)
    assert sorted(files) == sorted(served)
    for path, data in served.items():
        assert _without_seed(path, files[path]) == _without_seed(path, data)
    latest = json.loads(files['openstack/latest/meta_data.json'])
    assert latest['uuid'] == instance.uuid
    assert latest['meta'] == {'role': 'db'}
    assert latest['public_keys'] == {'mykey': instance.key_data}
    assert len(latest['random_seed']) > 600
    assert files['openstack/latest/user_data'] == USER_DATA
    assert json.loads(files['openstack/latest/vendor_data.json']) == STATIC
    assert json.loads(files['openstack/latest/vendor_data2.json']) == {
        'static': STATIC}
    # Each version with its own files: vendor_data2.json from 2016-10-06.
    assert 'openstack/2016-06-30/vendor_data2.json' not in files
    assert 'openstack/2016-10-06/vendor_data2.json' in files
    assert 'openstack/2012-08-10/user_data' in files
    assert 'project_id' not in json.loads(
        files['openstack/2012-08-10/meta_data.json'])


def test_no_user_data_no_file(builders, make_instance):
    _app, builder = builders()
    files = builder.tree(make_instance(user_data=None))
    assert not [path for path in files if path.endswith('/user_data')]
    assert 'openstack/latest/meta_data.json' in files


def test_dynamic_targets_once_per_drive_with_the_token(
        builders, make_instance, serve_target):
    target = serve_target(http_servers.json_reply({'domain': 'ad.example'}))
    _app, builder = builders(**{
        'api.vendordata_providers': ['DynamicJSON'],
        'api.vendordata_dynamic_targets': ['ad@' + target.url],
        'vendordata_dynamic_auth.auth_type': 'admin_token',
        'vendordata_dynamic_auth.token': 'service-token-9',
        'vendordata_dynamic_auth.endpoint': 'http://127.0.0.1:1/'})
    instance = make_instance()
    files = builder.tree(instance)
    for path, data in files.items():
        if path.endswith('/vendor_data2.json'):
            assert json.loads(data) == {'ad': {'domain': 'ad.example'}}
    assert len(target.requests) == 1
    assert target.requests[0].headers['X-Auth-Token'] == 'service-token-9'
    assert target.json_bodies()[0]['instance-id'] == instance.uuid


def test_a_failed_target_is_left_out(builders, make_instance, serve_target):
    down = serve_target(http_servers.json_reply({}, status=503))
    _app, builder = builders(**{
        'api.vendordata_providers': ['DynamicJSON'],
        'api.vendordata_dynamic_targets': ['down@' + down.url]})
    files = builder.tree(make_instance())
    assert json.loads(files['openstack/latest/vendor_data2.json']) == {}


def test_a_failed_target_fails_the_drive_when_fatal(builders, make_instance,
                                                    serve_target):
    down = serve_target(http_servers.json_reply({}, status=503))
    _app, builder = builders(**{
        'api.vendordata_providers': ['DynamicJSON'],
        'api.vendordata_dynamic_targets': ['down@' + down.url],
        'api.vendordata_dynamic_failure_fatal': True})
    with pytest.raises(exception.VendorDataTargetFailed):
        builder.build(make_instance())


def test_build_is_the_tree_as_an_encoded_iso(builders, make_instance):
    _app, builder = builders()
    instance = make_instance(user_data=metadata_service.encode(USER_DATA))
    image = iso.decode(builder.build(instance))
    reader = pycdlib.PyCdlib()
    reader.open_fp(io.BytesIO(image))
    try:
        out = io.BytesIO()
        reader.get_file_from_iso_fp(
            out, rr_path='/openstack/latest/meta_data.json')
        assert json.loads(out.getvalue())['uuid'] == instance.uuid
        out = io.BytesIO()
        reader.get_file_from_iso_fp(out,
                                    rr_path='/openstack/latest/user_data')
        assert out.getvalue() == USER_DATA
    finally:
        reader.close()


@pytest.fixture
def serve_target():
    servers = []

    def _serve(reply):
        server = http_servers.ReplyServer(reply)
        server.setUp()
        servers.append(server)
        return server
    yield _serve
    for server in servers:
        server.cleanUp()
