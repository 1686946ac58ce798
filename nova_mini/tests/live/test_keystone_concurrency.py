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

And the set-up that makes it fast: the database in WAL mode, and each
worker's connections kept open between requests (oslo.db gives SQLite no
pool, and a new connection parses Keystone's whole schema again).
"""

import concurrent.futures
import os
import sqlite3
import uuid

import pytest

from nova_mini.tests.live import test_scheduler_workers

pytestmark = pytest.mark.live

CLIENTS = 16
# One round: the 16 clients' 80 writes still race each other (a second
# round only repeated the race, for 15 s more).
ROUNDS = 1


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


def _open_files(pid):
    """The paths of the files the process has open."""
    fd_dir = '/proc/%d/fd' % pid
    paths = []
    for fd in os.listdir(fd_dir):
        try:
            paths.append(os.readlink(os.path.join(fd_dir, fd)))
        except OSError:
            continue        # closed meanwhile
    return paths


def test_keystone_keeps_its_sqlite_connections(stack):
    database = os.path.join(stack.keystone.state_dir, 'keystone.sqlite')
    with sqlite3.connect(database) as connection:
        assert connection.execute('PRAGMA journal_mode').fetchone()[0] == \
            'wal'
    workers = test_scheduler_workers._children(stack.keystone.process.pid)
    assert len(workers) == stack.keystone.workers, workers
    session = stack.keystone.admin_client().session
    # Enough requests for both workers to serve some (new connections
    # each time: the kernel spreads them).
    for _ in range(20):
        resp = session.get(stack.keystone.auth_url + '/projects',
                           authenticated=True)
        assert resp.status_code == 200, resp.text
    # Between requests, a worker that kept its connection still has the
    # database open.
    holding = [pid for pid in workers if database in _open_files(pid)]
    assert holding, 'no Keystone worker keeps its SQLite connection'
