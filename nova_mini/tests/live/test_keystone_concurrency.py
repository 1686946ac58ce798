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

"""The stack's Keystone (SQLite, two gunicorn workers) under the writes
Tempest's dynamic credentials make: many clients creating and deleting
projects, users and role assignments at once. Every answer must be the
API's own (no 500 "database is locked"), and nothing is left behind.
"""

import concurrent.futures
import uuid

import pytest

pytestmark = pytest.mark.live

CLIENTS = 16
ROUNDS = 2


def test_concurrent_identity_writes(stack):
    session = stack.keystone.admin_client().session
    base = stack.keystone.auth_url
    run = uuid.uuid4().hex[:6]
    statuses = []

    def call(method, path, body=None):
        # Writers may queue for SQLite's lock: wait longer than the
        # session's 30 s.
        resp = session.request(base + path, method, json=body,
                               raise_exc=False, timeout=60)
        statuses.append((method, path.split('/')[1], resp.status_code))
        return resp

    member = call('GET', '/roles?name=member').json()['roles'][0]['id']

    def client(index):
        for round_ in range(ROUNDS):
            name = 'kc-%s-%d-%d' % (run, index, round_)
            project = call('POST', '/projects', {'project': {
                'name': name, 'domain_id': 'default'}}).json()['project']
            user = call('POST', '/users', {'user': {
                'name': name, 'password': 'pw-' + name,
                'domain_id': 'default',
                'default_project_id': project['id']}}).json()['user']
            call('PUT', '/projects/%s/users/%s/roles/%s'
                 % (project['id'], user['id'], member))
            call('DELETE', '/users/%s' % user['id'])
            call('DELETE', '/projects/%s' % project['id'])

    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        for future in [pool.submit(client, i) for i in range(CLIENTS)]:
            future.result()

    failures = [entry for entry in statuses if entry[2] >= 400]
    assert not failures, failures[:20]
    assert len(statuses) == 1 + CLIENTS * ROUNDS * 5
    left = call('GET', '/projects').json()['projects']
    assert not [p for p in left if p['name'].startswith('kc-%s' % run)]
    users = call('GET', '/users').json()['users']
    assert not [u for u in users if u['name'].startswith('kc-%s' % run)]
