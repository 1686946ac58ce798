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

"""The config drive's text forms and the files built from an object."""

import base64
import gzip
import json
import types

import pytest

from nova_mini import exception
from nova_mini.objects.baremetal import node_configdrive

MiB = 1024 * 1024
NODE = types.SimpleNamespace(uuid='6f0e1c4a-0000-4000-8000-000000000001',
                             name=None)


def _encoded(data):
    return base64.b64encode(gzip.compress(data, mtime=0)).decode('ascii')


@pytest.mark.parametrize('text', [
    'http://example.com/cd.iso.gz',
    'HTTPS://example.com:8443/a/cd?temp_url_sig=x',
    _encoded(b'image'),
    # Wrapped as base64(1) wraps it, and padded with spaces.
    ' %s\r\n%s\n' % (_encoded(b'image')[:10], _encoded(b'image')[10:]),
])
def test_accepted_text(conf, text):
    assert node_configdrive.check_text(text) is None


@pytest.mark.parametrize('text,error,words', [
    ('ftp://example.com/cd', exception.Invalid, 'http or https'),
    ('file:///etc/shadow', exception.Invalid, 'with a host'),
    ('http://', exception.Invalid, 'with a host'),
    ('http://[::1/x', exception.Invalid, 'http or https'),
    ('a-b_c', exception.Invalid, 'nor a base64 string'),
    ('{"user_data": 1}', exception.Invalid, 'nor a base64 string'),
    ('abc', exception.ConfigDriveInvalid, 'not base64'),
    (base64.b64encode(b'plain').decode(), exception.ConfigDriveInvalid,
     'not gzip'),
])
def test_refused_text(conf, text, error, words):
    with pytest.raises(error) as caught:
        node_configdrive.check_text(text)
    assert words in caught.value.format_message()


def test_the_cap_is_the_option(conf):
    conf.config(config_drive_max_size=MiB)
    node_configdrive.check_text(_encoded(b'\0' * MiB))
    with pytest.raises(exception.ConfigDriveTooLarge):
        node_configdrive.check_text(_encoded(b'\0' * (MiB + 1)))


def test_files_of_a_node_without_name():
    files = node_configdrive.files(NODE, {'user_data': ['a', 1]})
    assert sorted(files) == [
        'openstack/2012-08-10/meta_data.json', 'openstack/2012-08-10/user_data',
        'openstack/latest/meta_data.json', 'openstack/latest/user_data']
    assert json.loads(files['openstack/latest/meta_data.json']) == {
        'uuid': NODE.uuid}
    assert json.loads(files['openstack/latest/user_data']) == ['a', 1]


@pytest.mark.parametrize('document', [
    {}, {'user_data': ''}, {'user_data': None}, {'network_data': {}},
    {'vendor_data': {}}, {'meta_data': None},
])
def test_empty_parts_leave_meta_data_alone(document):
    files = node_configdrive.files(NODE, document)
    assert sorted(files) == ['openstack/2012-08-10/meta_data.json',
                             'openstack/latest/meta_data.json']


def test_text_user_data_is_utf8():
    files = node_configdrive.files(NODE, {'user_data': 'h\u00e9'})
    assert files['openstack/latest/user_data'] == 'h\u00e9'.encode('utf-8')


def test_the_document_is_not_changed():
    document = {'meta_data': {'k': 'v'}}
    node_configdrive.files(NODE, document)
    assert document == {'meta_data': {'k': 'v'}}


def test_build_is_capped(conf):
    conf.config(config_drive_max_size=MiB)
    with pytest.raises(exception.ConfigDriveTooLarge):
        node_configdrive.build(NODE, {'user_data': 'x' * MiB})
