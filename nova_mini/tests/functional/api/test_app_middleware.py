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

"""The shared middleware of nova-mini-api (api/app.py): proxy headers are
parsed only when [oslo_middleware] enable_proxy_headers_parsing is on."""

from oslo_middleware import opts as middleware_opts
import pytest
import webtest

from nova_mini import conf as nm_conf

ADMIN = {'X-Auth-Token': 'admin:admin'}
PROXIED = dict(ADMIN, **{'X-Forwarded-Proto': 'https',
                         'X-Forwarded-Host': 'cloud.example.com'})


@pytest.fixture(autouse=True)
def _options():
    for group, opts in middleware_opts.list_opts_http_proxy_to_wsgi():
        nm_conf.CONF.register_opts(opts, group=group)


def _self_link(app):
    app.post_json('/compute/v2.1/flavors', {'flavor': {
        'name': 'f', 'id': 'f', 'ram': 1, 'vcpus': 1, 'disk': 0}},
        headers=ADMIN)
    links = app.get('/compute/v2.1/flavors/f', headers=PROXIED).json[
        'flavor']['links']
    return links[0]['href']


def test_proxy_headers_ignored_by_default(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory().app)
    assert _self_link(app) == 'http://localhost/compute/v2.1/flavors/f'


def test_proxy_headers_parsed_when_enabled(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory(conf_overrides={
        'oslo_middleware.enable_proxy_headers_parsing': True}).app)
    assert _self_link(app) == (
        'https://cloud.example.com/compute/v2.1/flavors/f')
