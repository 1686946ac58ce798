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

"""noauth2 takes ``user:project`` as the token: a user or project id no
column can keep (a 100 KB token was a 500 on PostgreSQL when a create
stored it) or that is not printable is a 401, keystonemiddleware's
answer, and nothing is written.
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import api as api_fixture

pytestmark = pytest.mark.usefixtures('no_traceback')

GROUP = {'server_group': {'name': 'g', 'policy': 'affinity'}}
VERSION = {'OpenStack-API-Version': 'compute 2.64'}


@pytest.fixture(scope='module')
def app(backend):
    fixture = api_fixture.APIFixture(backend=backend)
    fixture.setUp()
    yield webtest.TestApp(fixture.app)
    fixture.cleanUp()


def _groups():
    return objects.ServerGroupList.get_page(
        nm_context.get_admin_context()).objects


@pytest.mark.parametrize('token', [
    'admin:admin' + 'x' * 102400,
    'u' * 256 + ':p',
    'u:' + 'p' * 256,
    'u:p\tq',
    'u\x7f:p',
    ':p',
])
def test_unusable_token_is_401_and_writes_nothing(app, token):
    before = len(_groups())
    response = app.post_json('/compute/v2.1/os-server-groups', GROUP,
                             headers=dict(VERSION, **{'X-Auth-Token': token}),
                             expect_errors=True)
    assert response.status_int == 401, response.text
    assert response.json['error']['code'] == 401
    assert len(_groups()) == before


def test_longest_ids_are_taken_and_stored(app):
    user, project = 'u' * 255, 'p' * 255
    response = app.post_json(
        '/compute/v2.1/os-server-groups', GROUP,
        headers=dict(VERSION, **{'X-Auth-Token': '%s:%s' % (user, project)}))
    stored = [group for group in _groups()
              if group.uuid == response.json['server_group']['id']]
    assert [(g.user_id, g.project_id) for g in stored] == [(user, project)]
