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

"""vendor_data.json and vendor_data2.json as the application serves them,
with the real providers (nova_mini.metadata.vendordata.load): their
content, per version, and the 502 of a failed target when failures are
fatal.
"""

import json
import logging
import socket

import pytest

from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.fixtures import metadata_service

STATIC = {'cloud-init': '#cloud-config\npackages: [htop]\n',
          'region': {'name': 'west', 'ntp': ['10.0.0.1']}}


@pytest.fixture
def static_file(tmp_path):
    path = tmp_path / 'vendor_data.json'
    path.write_text(json.dumps(STATIC))
    return str(path)


def _closed_port():
    with socket.socket() as sock:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]


def test_static_json_in_both_documents(make_app, make_instance,
                                       static_file):
    app = make_app(**{'api.vendordata_providers': ['StaticJSON'],
                      'api.vendordata_jsonfile_path': static_file})
    headers = metadata_service.headers(make_instance().uuid)
    vd = app.get('/openstack/latest/vendor_data.json', headers=headers)
    assert vd.content_type == 'application/json'
    assert vd.json == STATIC
    vd2 = app.get('/openstack/latest/vendor_data2.json', headers=headers)
    assert vd2.content_type == 'application/json'
    assert vd2.json == {'static': STATIC}
    # vendor_data.json from 2013-10-17, vendor_data2.json from 2016-10-06.
    assert app.get('/openstack/2013-10-17/vendor_data.json',
                   headers=headers).json == STATIC
    app.get('/openstack/2013-04-04/vendor_data.json', headers=headers,
            status=404)
    app.get('/openstack/2016-06-30/vendor_data2.json', headers=headers,
            status=404)


def test_no_providers(make_app, make_instance):
    app = make_app(**{'api.vendordata_providers': []})
    headers = metadata_service.headers(make_instance().uuid)
    assert app.get('/openstack/latest/vendor_data.json',
                   headers=headers).json == {}
    assert app.get('/openstack/latest/vendor_data2.json',
                   headers=headers).json == {}


def test_failed_target_left_out_when_not_fatal(make_app, make_instance):
    app = make_app(**{
        'api.vendordata_providers': ['StaticJSON', 'DynamicJSON'],
        'api.vendordata_dynamic_targets': [
            'down@http://127.0.0.1:%d/' % _closed_port()]})
    headers = metadata_service.headers(make_instance().uuid)
    assert app.get('/openstack/latest/vendor_data2.json',
                   headers=headers).json == {'static': {}}


def test_failed_target_is_502_naming_it_when_fatal(make_app, make_instance,
                                                   caplog):
    app = make_app(**{
        'api.vendordata_providers': ['StaticJSON', 'DynamicJSON'],
        'api.vendordata_dynamic_targets': [
            'down@http://127.0.0.1:%d/secret-path' % _closed_port()],
        'api.vendordata_dynamic_failure_fatal': True})
    instance = make_instance()
    headers = metadata_service.headers(instance.uuid)
    with caplog.at_level(logging.ERROR):
        resp = app.get('/openstack/latest/vendor_data2.json',
                       headers=headers, status=502)
    assert resp.content_type == 'application/json'
    assert resp.json == {'error': {
        'code': 502, 'message': 'Vendordata target down failed.',
        'target': 'down'}}
    # The reason (with the target's URL) is for the log only.
    assert 'secret-path' not in resp.text
    assert 'down' in caplog.text and instance.uuid in caplog.text
    # The other documents do not call the targets.
    app.get('/openstack/latest/meta_data.json', headers=headers, status=200)
    app.get('/openstack/latest/vendor_data.json', headers=headers,
            status=200)


@pytest.mark.parametrize('fatal, status', [(False, 200), (True, 502)])
def test_a_reply_nested_too_deep_is_a_failed_target(make_app, make_instance,
                                                    caplog, fatal, status):
    # Before, the parser's RecursionError escaped as a 500 either way.
    body = b'{"a": ' + b'[' * 30000 + b']' * 30000 + b'}'
    with http_servers.ReplyServer(http_servers.Reply(200, {}, body)) as bad:
        app = make_app(**{
            'api.vendordata_providers': ['StaticJSON', 'DynamicJSON'],
            'api.vendordata_dynamic_targets': ['deep@' + bad.url],
            'api.vendordata_dynamic_failure_fatal': fatal})
        headers = metadata_service.headers(make_instance().uuid)
        resp = app.get('/openstack/latest/vendor_data2.json',
                       headers=headers, status=status)
    if fatal:
        assert resp.json['error']['target'] == 'deep'
    else:
        assert resp.json == {'static': {}}
    assert 'nested deeper than 100 levels' in caplog.text
    assert 'Traceback' not in caplog.text
    assert not [record for record in caplog.records if record.exc_info]
