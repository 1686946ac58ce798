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

"""nova_mini on PostgreSQL: the schema migrates and the API serves from
it (the API's config differs from the stack's only by its database).
"""

import uuid

import pytest
import requests

from nova_mini.db import migration
from nova_mini.tests.harness import postgresql

pytestmark = [pytest.mark.live, pytest.mark.postgresql]


@pytest.fixture
def pg_database():
    db = postgresql.TemporaryDatabase()
    yield db
    db.drop()


def test_api_on_postgresql(stack, extra_api, pg_database, admin_token):
    database = {'database': {'connection': pg_database.url}}
    conf = stack.nova.write_extra_config('postgresql', database)
    files = [stack.nova.conf_path, conf]

    synced = stack.nova.manage('db', 'sync', config_files=files)
    head = migration.head_revision()
    assert synced.stdout.strip() == 'Database is at revision %s' % head
    version = stack.nova.manage('db', 'version', config_files=files)
    assert version.stdout.strip() == head

    _proc, port = extra_api(workers=1, sections=database)
    url = 'http://127.0.0.1:%d/compute/v2.1/flavors' % port
    headers = {'X-Auth-Token': admin_token}
    name = 'pg-%s' % uuid.uuid4().hex[:8]
    resp = requests.post(url, headers=headers, timeout=30, json={
        'flavor': {'name': name, 'ram': 64, 'vcpus': 1, 'disk': 0}})
    assert resp.status_code == 200, resp.text
    listed = requests.get(url, headers=headers, timeout=30).json()
    assert [f['name'] for f in listed['flavors']] == [name]
