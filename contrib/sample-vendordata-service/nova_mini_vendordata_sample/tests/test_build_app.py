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

"""The whole sample service as deployed: health check, auth_token (or
noauth for tests and benchmarks), request ids."""

import uuid

from keystonemiddleware import opts as ks_opts
import webtest

from nova_mini_vendordata_sample import app as sample_app

BODY = {'instance-id': str(uuid.uuid4()), 'project-id': uuid.uuid4().hex}


def test_healthcheck_needs_no_token(conf):
    client = webtest.TestApp(sample_app.build_app(conf))
    resp = client.get('/healthcheck')
    assert resp.text == 'OK'
    assert resp.headers['x-openstack-request-id'].startswith('req-')


def test_keystone_rejects_a_request_without_token(conf):
    # auth_token answers a missing token itself, without asking Keystone.
    for group, opts in ks_opts.list_auth_token_opts():
        conf.register_opts(opts, group=group)
    # (named in auth_token's WWW-Authenticate header)
    conf.set_override('www_authenticate_uri', 'http://127.0.0.1:5000/v3',
                      group='keystone_authtoken')
    client = webtest.TestApp(sample_app.build_app(conf))
    resp = client.post_json('/', BODY, status=401, headers={
        # Spoofed identity headers do not help: auth_token removes them.
        'X-Identity-Status': 'Confirmed', 'X-Roles': 'admin'})
    assert resp.json['error']['code'] == 401
    assert resp.headers['WWW-Authenticate'] == (
        'Keystone uri="http://127.0.0.1:5000/v3"')


def test_noauth_trusts_everybody_with_the_allowed_roles(conf):
    conf.set_override('auth_strategy', 'noauth', group='vendordata_sample')
    client = webtest.TestApp(sample_app.build_app(conf))
    resp = client.post_json('/', BODY, headers={'X-Roles': 'member'})
    assert resp.json['instance-id'] == BODY['instance-id']
    assert resp.headers['Cache-Control'] == 'max-age=300'
