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

"""Malformed requests to the metadata service, signed and unsigned, on the
three database backends: each is a 4xx, never a 500, and no traceback is
logged.
"""

import logging

import pytest

from nova_mini.metadata import identity
from nova_mini.tests.fixtures import metadata_service

META = '/openstack/latest/meta_data.json'

# Header values as a WSGI server hands them on: str of latin-1 code points.
ODD_VALUES = {
    'nul': 'a\x00b',
    'control': 'a\x01\x7fb',
    'non-ascii': '\u00e9t\u00e9',
    'utf-8-bytes': 'caf\u00c3\u00a9',
    'long': 'x' * 70000,
    'newline': 'a\nb',
}


def _no_traceback(caplog):
    assert 'Traceback' not in caplog.text
    assert not [record for record in caplog.records if record.exc_info]


# NUL in X-Instance-ID was a 500 on PostgreSQL, which refuses it in a
# query: an id that cannot be one is now not looked up.
@pytest.fixture
def unsigned_app(conf, make_app):
    conf.config(metadata_proxy_shared_secret='',
                insecure_unsigned_requests=True, group='metadata')
    return make_app()


@pytest.mark.parametrize('header', [identity.INSTANCE_ID,
                                    identity.TENANT_ID])
@pytest.mark.parametrize('value', list(ODD_VALUES.values()),
                         ids=list(ODD_VALUES))
def test_odd_identity_headers_unsigned_are_4xx(unsigned_app, make_instance,
                                               caplog, header, value):
    instance = make_instance()
    headers = {identity.INSTANCE_ID: instance.uuid,
               identity.TENANT_ID: metadata_service.PROJECT}
    headers[header] = value
    with caplog.at_level(logging.INFO):
        resp = unsigned_app.get(META, headers=headers, expect_errors=True)
    assert 400 <= resp.status_int < 500, resp.status
    _no_traceback(caplog)


@pytest.mark.parametrize('header', [identity.INSTANCE_ID,
                                    identity.TENANT_ID, identity.SIGNATURE])
@pytest.mark.parametrize('value', list(ODD_VALUES.values()),
                         ids=list(ODD_VALUES))
def test_odd_identity_headers_signed_are_4xx(app, make_instance, caplog,
                                             header, value):
    instance = make_instance()
    headers = metadata_service.headers(instance.uuid)
    headers[header] = value
    if header == identity.INSTANCE_ID:
        # Signed as a proxy would sign it: it reaches the lookup.
        headers[identity.SIGNATURE] = identity.sign(
            metadata_service.SECRET, value)
    with caplog.at_level(logging.INFO):
        resp = app.get(META, headers=headers, expect_errors=True)
    assert 400 <= resp.status_int < 500, resp.status
    _no_traceback(caplog)


# Paths that are not UTF-8 were a 500 (UnicodeDecodeError).
@pytest.mark.parametrize('path', [
    '/openstack/latest/meta_data.json%00',
    '/openstack/%00/meta_data.json',
    '/openstack/latest/%ff%fe',
    '/openstack/' + 'a' * 70000,
    '/openstack/latest/' + '../' * 2000 + 'meta_data.json/x',
    '/%ff',
])
def test_odd_paths_are_4xx(app, make_instance, caplog, path):
    headers = metadata_service.headers(make_instance().uuid)
    with caplog.at_level(logging.INFO):
        resp = app.get(path, headers=headers, expect_errors=True)
    assert 400 <= resp.status_int < 500, resp.status
    _no_traceback(caplog)


def test_huge_unrelated_headers_change_nothing(app, make_instance, caplog):
    # NOTE: under nova-mini-metadata, gunicorn's limits on the number and
    # size of header fields answer 400 before the application is reached;
    # the application itself reads only the headers it knows.
    headers = metadata_service.headers(make_instance().uuid)
    headers.update({'X-Junk-%d' % i: 'y' * 8000 for i in range(100)})
    with caplog.at_level(logging.INFO):
        resp = app.get(META, headers=headers, expect_errors=True)
    assert resp.status_int == 200
    _no_traceback(caplog)
