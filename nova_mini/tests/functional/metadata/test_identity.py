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

"""Who a metadata request is for: the identity headers of Neutron's
metadata proxy, checked as Nova checks them (status codes and words),
against instances stored in a real database.
"""

import logging

import pytest

from nova_mini.metadata import identity
from nova_mini.tests.fixtures import metadata_service

META = '/openstack/latest/meta_data.json'


def test_signed_request_reads_its_instance(app, make_instance):
    instance = make_instance()
    resp = app.get(META, headers=metadata_service.headers(instance.uuid))
    assert resp.json['uuid'] == instance.uuid


@pytest.mark.parametrize('missing', [identity.INSTANCE_ID,
                                     identity.SIGNATURE, identity.TENANT_ID])
def test_missing_header_is_400_naming_it(app, make_instance, missing):
    instance = make_instance()
    headers = metadata_service.headers(instance.uuid)
    del headers[missing]
    resp = app.get(META, headers=headers, status=400)
    assert resp.content_type == 'text/plain'
    assert '%s header is missing from request.' % missing in resp.text


def test_headers_checked_in_novas_order(app):
    # Nothing at all: the instance id is named first, as in Nova.
    resp = app.get(META, status=400)
    assert 'X-Instance-ID header is missing' in resp.text
    resp = app.get(META, headers={identity.INSTANCE_ID: 'x'}, status=400)
    assert 'X-Instance-ID-Signature header is missing' in resp.text


@pytest.mark.parametrize('repeated', [identity.INSTANCE_ID,
                                      identity.TENANT_ID])
def test_repeated_header_is_400(app, make_instance, repeated):
    instance = make_instance()
    headers = metadata_service.headers(instance.uuid)
    headers[repeated] = '%s, %s' % (headers[repeated], headers[repeated])
    resp = app.get(META, headers=headers, status=400)
    assert 'Multiple %s headers found within request.' % repeated in (
        resp.text)


@pytest.mark.parametrize('signature', [
    'wrong', '', identity.sign('another secret', 'x'),
    # Not ASCII: still just a wrong signature, never a 500.
    '\u00e9' * 64])
def test_wrong_signature_is_403_and_logged_without_secrets(
        app, make_instance, caplog, signature):
    instance = make_instance()
    headers = metadata_service.headers(instance.uuid)
    headers[identity.SIGNATURE] = signature
    with caplog.at_level(logging.WARNING):
        resp = app.get(META, headers=headers, status=403,
                       extra_environ={'REMOTE_ADDR': '10.0.0.7'})
    assert 'Invalid proxy request signature.' in resp.text
    assert instance.uuid not in resp.text
    logged = caplog.text
    assert instance.uuid in logged and '10.0.0.7' in logged
    assert metadata_service.SECRET not in logged
    if signature:
        assert signature not in logged


def test_signature_of_another_instance_is_403(app, make_instance):
    mine, other = make_instance(), make_instance()
    headers = metadata_service.headers(other.uuid)
    headers[identity.SIGNATURE] = identity.sign(metadata_service.SECRET, mine.uuid)
    app.get(META, headers=headers, status=403)


def test_unknown_instance_is_404(app):
    unknown = '00000000-0000-4000-8000-000000000000'
    resp = app.get(META, headers=metadata_service.headers(unknown), status=404)
    assert unknown not in resp.text


def test_deleted_instance_is_404_at_once(app, make_instance):
    instance = make_instance()
    app.get(META, headers=metadata_service.headers(instance.uuid), status=200)
    instance.destroy()
    # Although its document is in the cache.
    app.get(META, headers=metadata_service.headers(instance.uuid), status=404)
    app.get('/openstack/latest', headers=metadata_service.headers(instance.uuid),
            status=404)


def test_other_project_is_404_like_an_unknown_instance(app, make_instance,
                                                       caplog):
    instance = make_instance()
    with caplog.at_level(logging.WARNING):
        resp = app.get(META, headers=metadata_service.headers(
            instance.uuid, project_id='intruder'), status=404)
    unknown = app.get(META, headers=metadata_service.headers(
        '00000000-0000-4000-8000-000000000000'), status=404)
    assert resp.text == unknown.text
    assert 'intruder' in caplog.text


def test_secret_wins_over_the_insecure_option(conf, make_app, make_instance,
                                              caplog):
    with caplog.at_level(logging.WARNING):
        identity.check_config(conf.conf)
        conf.config(insecure_unsigned_requests=True, group='metadata')
        identity.check_config(conf.conf)
    assert 'insecure_unsigned_requests is ignored' in caplog.text
    app = make_app()
    instance = make_instance()
    headers = metadata_service.headers(instance.uuid)
    del headers[identity.SIGNATURE]
    app.get(META, headers=headers, status=400)


def test_insecure_mode_trusts_instance_and_tenant(conf, make_app,
                                                  make_instance, caplog):
    conf.config(metadata_proxy_shared_secret='',
                insecure_unsigned_requests=True, group='metadata')
    with caplog.at_level(logging.WARNING):
        identity.check_config(conf.conf)
    assert 'insecure_unsigned_requests is' in caplog.text
    app = make_app()
    instance = make_instance()
    unsigned = {identity.INSTANCE_ID: instance.uuid,
                identity.TENANT_ID: metadata_service.PROJECT}
    assert app.get(META, headers=unsigned).json['uuid'] == instance.uuid
    # Any signature is ignored; the project must still match.
    app.get(META, headers=dict(unsigned, **{identity.SIGNATURE: 'x'}))
    app.get(META, headers=dict(unsigned, **{identity.TENANT_ID: 'other'}),
            status=404)
    resp = app.get(META, headers={identity.INSTANCE_ID: instance.uuid},
                   status=400)
    assert 'X-Tenant-ID header is missing' in resp.text


@pytest.mark.parametrize('instance_id', [
    'not-a-uuid', 'x' * 1000, '\u00e9t\u00e9', '', ' ',
    "'; DROP TABLE instances; --"])
def test_odd_instance_ids_are_404_not_500(app, instance_id):
    # Signed, so they reach the database lookup.
    app.get(META, headers=metadata_service.headers(instance_id), status=404)


def _bad_signature_log(make_app, make_instance, caplog, **options):
    app = make_app(**options)
    headers = metadata_service.headers(make_instance().uuid)
    headers[identity.SIGNATURE] = 'wrong'
    # The caller names whoever it likes in X-Forwarded-For.
    headers['X-Forwarded-For'] = '203.0.113.9'
    with caplog.at_level(logging.WARNING):
        app.get(META, headers=headers, status=403,
                extra_environ={'REMOTE_ADDR': '10.0.0.7'})
    (logged,) = [record.getMessage() for record in caplog.records
                 if 'does not match' in record.getMessage()]
    return logged


def test_a_bad_signature_logs_the_peer_not_what_it_claims(
        make_app, make_instance, caplog):
    logged = _bad_signature_log(make_app, make_instance, caplog)
    assert logged.endswith('request from 10.0.0.7')
    assert '203.0.113.9' not in logged


def test_behind_a_proxy_the_forwarded_address_is_logged_with_the_peer(
        make_app, make_instance, caplog):
    logged = _bad_signature_log(
        make_app, make_instance, caplog,
        **{'oslo_middleware.enable_proxy_headers_parsing': True})
    assert logged.endswith('request from 203.0.113.9 (forwarded by '
                           '10.0.0.7)')
