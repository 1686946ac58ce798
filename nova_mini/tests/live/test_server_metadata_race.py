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

"""The server metadata API and PUT /servers/{id} under many concurrent
clients, through real HTTP, on SQLite and on PostgreSQL:

* SQLite: the live stack's nova-mini-api (gunicorn, 2 workers) and
  nova-mini-metadata, a server booted through the API and the scheduler;
* PostgreSQL: a nova-mini-api (2 workers) and a nova-mini-metadata of
  their own on a fresh database (on a RabbitMQ virtual host with no
  scheduler: the server is created through the API, then made ACTIVE in
  the database, as no node is involved in what is tested here).

32 client threads start together (a barrier) and send a few requests
each. In every phase: no 5xx and no transport error; nothing is lost
(every merged or set item is stored, with its value); the quota of 128
items holds exactly when racing past it (the requests accepted are
exactly the items stored); the API, the database and the metadata
service (meta_data.json, read with Neutron's signed headers, and read
before the race too so that a stale cached document would show) all
agree right after. Writes racing the server's deletion answer 404, and
leave no item behind.

Every phase is bounded in time (``DEADLINE`` seconds).
"""

import concurrent.futures
import datetime
import os
import threading
import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.harness import postgresql
from nova_mini.tests.live import helpers
from nova_mini.tests.live import test_metadata
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

CLIENTS = 32
DEADLINE = 120          # seconds, per phase
REQUEST_TIMEOUT = 60
QUOTA = 128
VERSION = '2.26'        # description (2.19) and tags (2.26) shown
QUOTA_MESSAGE = 'Maximum number of metadata items exceeds 128'
RUN = uuid.uuid4().hex[:6]
PG_FLAVOR = 'race-%s' % RUN


class Deployment(object):
    """Where a race runs: ``compute_url``, ``metadata_url``,
    ``metadata_secret``, ``database_url``, and how to boot a server.
    """

    def __init__(self, stack, compute_url, metadata_url, database_url):
        self.stack = stack
        self.compute_url = compute_url
        self.metadata_url = metadata_url
        self.metadata_secret = stack.nova.metadata_secret
        self.database_url = database_url

    def boot(self, metadata):
        raise NotImplementedError

    def delete(self, server_id):
        resp = requests.delete(
            self.compute_url + '/servers/%s' % server_id,
            headers={'X-Auth-Token': self.stack.token('demo')},
            timeout=REQUEST_TIMEOUT)
        assert resp.status_code in (204, 404), resp.text


class StackDeployment(Deployment):
    """The live stack itself, on SQLite."""

    def __init__(self, stack):
        super().__init__(stack, stack.nova.compute_url,
                         stack.nova.metadata_url,
                         'sqlite:///%s' % os.path.join(
                             stack.nova.state_dir, 'nova_mini.sqlite'))
        self.flavor = helpers.make_flavor(stack)

    def boot(self, metadata):
        return helpers.boot(
            self.stack, self.flavor, 'race-%s' % uuid.uuid4().hex[:6],
            metadata=metadata)


class PostgreSQLDeployment(Deployment):
    """An API and a metadata service of their own on PostgreSQL."""

    def boot(self, metadata):
        headers = {'X-Auth-Token': self.stack.token('demo')}
        resp = requests.post(self.compute_url + '/servers', json={
            'server': {'name': 'race-%s' % uuid.uuid4().hex[:6],
                       'flavorRef': PG_FLAVOR, 'imageRef': helpers.IMAGE,
                       'metadata': metadata}},
            headers=headers, timeout=REQUEST_TIMEOUT)
        assert resp.status_code == 202, resp.text
        server_id = resp.json()['server']['id']
        # What the scheduler would do, without a node: nothing here
        # depends on one.
        engine = sa.create_engine(self.database_url)
        instances = models.Instance.__table__
        try:
            with engine.begin() as connection:
                assert connection.execute(instances.update().where(
                    instances.c.uuid == server_id).values(
                        vm_state='active',
                        launched_at=datetime.datetime.utcnow())).rowcount
        finally:
            engine.dispose()
        resp = requests.get(self.compute_url + '/servers/' + server_id,
                            headers=headers, timeout=REQUEST_TIMEOUT)
        server = resp.json()['server']
        assert server['status'] == 'ACTIVE', server
        return server


@pytest.fixture(scope='module', params=['sqlite', pytest.param(
    'postgresql', marks=pytest.mark.postgresql)])
def deployment(request, stack):
    if request.param == 'sqlite':
        yield StackDeployment(stack)
        return
    pg = postgresql.TemporaryDatabase(prefix='nova_mini_mdrace')
    started = []
    try:
        with stack.rabbit.virtual_hosts('nova_mini_mdrace_%s' % RUN) as urls:
            api_port, metadata_port = util.free_port(), util.free_port()
            common = {'DEFAULT': {'transport_url': urls[0]},
                      'database': {'connection': pg.url}}
            conf = stack.nova.write_extra_config('mdrace-' + RUN, dict(
                common, api={'bind_port': api_port, 'workers': 2},
                metadata={'bind_port': metadata_port, 'workers': 2}))
            files = [stack.nova.conf_path, conf]
            # No scheduler here: its queue, so the builds are accepted.
            helpers.declare_scheduler_queue(stack, urls[0])
            stack.nova.manage('db', 'sync', config_files=files)
            for script, port in ((nova.API, api_port),
                                 (nova.METADATA, metadata_port)):
                started.append(stack.nova.start(
                    script, name='%s-mdrace-%s' % (script, RUN), port=port,
                    config_files=files).name)
            compute_url = 'http://127.0.0.1:%d/compute/v2.1' % api_port
            resp = requests.post(compute_url + '/flavors', json={
                'flavor': {'name': PG_FLAVOR, 'id': PG_FLAVOR, 'ram': 1024,
                           'vcpus': 1, 'disk': 10}},
                headers={'X-Auth-Token': stack.token('admin')},
                timeout=REQUEST_TIMEOUT)
            assert resp.status_code == 200, resp.text
            yield PostgreSQLDeployment(
                stack, compute_url, 'http://127.0.0.1:%d' % metadata_port,
                pg.url)
    finally:
        for name in reversed(started):
            stack.nova.stop(name, timeout=30)
        pg.drop()


class Client(object):
    """One requests session per thread (keep-alive), as the demo user."""

    def __init__(self, deployment, server_id):
        self.base = deployment.compute_url + '/servers/' + server_id
        self.headers = {'X-Auth-Token': deployment.stack.token('demo'),
                        'X-OpenStack-Nova-API-Version': VERSION}
        self._local = threading.local()

    @property
    def session(self):
        if not hasattr(self._local, 'session'):
            self._local.session = requests.Session()
            self._local.session.headers.update(self.headers)
        return self._local.session

    def request(self, method, path='', body=None):
        return self.session.request(method, self.base + path, json=body,
                                    timeout=REQUEST_TIMEOUT)


def race(client, per_thread):
    """Send ``per_thread[t]`` (lists of ``(method, path, body)``) from
    thread ``t``, every thread starting at once; ``[(call, response)]``.
    Fails on a transport error, a 5xx or an unanswered thread.
    """
    start = threading.Barrier(len(per_thread))

    def run(calls):
        start.wait(timeout=DEADLINE)
        return [(call, client.request(*call)) for call in calls]

    with concurrent.futures.ThreadPoolExecutor(len(per_thread)) as pool:
        futures = [pool.submit(run, calls) for calls in per_thread]
        _done, pending = concurrent.futures.wait(futures, timeout=DEADLINE)
        assert not pending, '%d threads unanswered after %ds' % (
            len(pending), DEADLINE)
        results = [pair for future in futures for pair in future.result()]
    errors = [(call, resp.status_code, resp.text) for call, resp in results
              if resp.status_code >= 500]
    assert not errors, errors[:5]
    return results


def stored(deployment, server_id):
    """``(metadata, description)`` in the deployment's database."""
    engine = sa.create_engine(deployment.database_url)
    instances = models.Instance.__table__
    metadata = models.InstanceMetadata.__table__
    try:
        with engine.connect() as connection:
            items = dict(connection.execute(
                sa.select(metadata.c.key, metadata.c.value).where(
                    metadata.c.instance_uuid == server_id)).all())
            description = connection.execute(
                sa.select(instances.c.description).where(
                    instances.c.uuid == server_id)).scalar_one()
        return items, description
    finally:
        engine.dispose()


def served_meta(deployment, server):
    """``meta`` of the server's meta_data.json, as served."""
    headers = test_metadata.signed_headers(
        deployment.metadata_secret, server['id'], server['tenant_id'])
    resp = requests.get(
        deployment.metadata_url + '/openstack/latest/meta_data.json',
        headers=headers, timeout=REQUEST_TIMEOUT)
    assert resp.status_code == 200, resp.text
    document = resp.json()
    # As Nova: no "meta" key when the server has no metadata.
    assert document.get('meta') != {}, document
    return document.get('meta', {})


def assert_everywhere(deployment, server, client, metadata):
    """The API, the database and the metadata service show ``metadata``."""
    resp = client.request('GET', '/metadata')
    assert resp.status_code == 200, resp.text
    assert resp.json() == {'metadata': metadata}
    assert stored(deployment, server['id'])[0] == metadata
    assert served_meta(deployment, server) == metadata


@pytest.fixture
def boot(deployment):
    """``boot(metadata) -> server``: an ACTIVE server of the demo user,
    deleted after the test.
    """
    booted = []

    def _boot(metadata):
        server = deployment.boot(metadata)
        booted.append(server['id'])
        # A document in the metadata service's cache before the race.
        assert served_meta(deployment, server) == metadata
        return server

    yield _boot
    for server_id in booted:
        deployment.delete(server_id)


def test_concurrent_merges_sets_and_renames_lose_nothing(deployment, boot):
    server = boot({'base': 'kept'})
    client = Client(deployment, server['id'])
    per_thread = []
    expected = {'base': 'kept'}
    shared_values = set()
    descriptions = set()
    for t in range(CLIENTS):
        calls = []
        for i in range(3):
            key, value = 'k-%02d-%d' % (t, i), 'v-%02d-%d' % (t, i)
            kind = (t + i) % 4
            if kind == 0:
                calls.append(('POST', '/metadata',
                              {'metadata': {key: value}}))
                expected[key] = value
            elif kind == 1:
                calls.append(('PUT', '/metadata/' + key,
                              {'meta': {key: value}}))
                expected[key] = value
            elif kind == 2:
                # Many writers of one item: one of their values stays.
                calls.append(('PUT', '/metadata/shared',
                              {'meta': {'shared': value}}))
                shared_values.add(value)
            else:
                description = 'd-%02d-%d' % (t, i)
                calls.append(('PUT', '', {'server': {
                    'description': description}}))
                descriptions.add(description)
        per_thread.append(calls)

    results = race(client, per_thread)

    for (method, path, body), resp in results:
        assert resp.status_code == 200, (method, path, resp.text)
        if method == 'POST':
            # The merged metadata as this write left it.
            answer = resp.json()['metadata']
            assert body['metadata'].items() <= answer.items()
            assert answer['base'] == 'kept'
        elif path.startswith('/metadata/'):
            assert resp.json() == body
        else:
            assert (resp.json()['server']['description']
                    == body['server']['description'])
    final = client.request('GET', '/metadata').json()['metadata']
    assert final.pop('shared') in shared_values
    assert final == expected
    expected['shared'] = stored(deployment, server['id'])[0]['shared']
    assert_everywhere(deployment, server, client, expected)
    shown = client.request('GET').json()['server']
    assert shown['description'] in descriptions
    assert shown['metadata'] == expected
    assert stored(deployment, server['id'])[1] == shown['description']


def test_racing_past_the_quota_accepts_exactly_what_fits(deployment, boot):
    base = {'base-%03d' % i: 'b' for i in range(100)}
    server = boot(base)
    client = Client(deployment, server['id'])
    per_thread = []
    for t in range(CLIENTS):
        calls = []
        for i in range(2):
            key = 'new-%02d-%d' % (t, i)
            if t < 16:
                calls.append(('POST', '/metadata', {'metadata': {key: 'n'}}))
            elif t < 24:
                calls.append(('PUT', '/metadata/' + key,
                              {'meta': {key: 'n'}}))
            else:
                # Three items at once: all in or none.
                calls.append(('POST', '/metadata', {'metadata': {
                    key + suffix: 'n' for suffix in ('a', 'b', 'c')}}))
        per_thread.append(calls)

    results = race(client, per_thread)

    def items(call):
        method, _path, body = call
        return body['metadata'] if method == 'POST' else body['meta']

    accepted, refused = {}, []
    for call, resp in results:
        if resp.status_code == 200:
            accepted.update(items(call))
        else:
            assert resp.status_code == 403, (call, resp.text)
            assert resp.json() == {'forbidden': {
                'code': 403, 'message': QUOTA_MESSAGE}}
            refused.append(items(call))
    final = dict(base, **accepted)
    assert len(final) <= QUOTA
    # Each refused request did not fit: items are only added, so it does
    # not fit in the final metadata either.
    assert refused
    for request_items in refused:
        assert not set(request_items) & set(final)
        assert len(final) + len(request_items) > QUOTA
    # At least 20 single adds were refused: the metadata was full then.
    assert len(final) == QUOTA
    assert_everywhere(deployment, server, client, final)


def test_concurrent_deletes_remove_each_item_once(deployment, boot):
    metadata = {'item-%02d' % i: str(i) for i in range(48)}
    server = boot(metadata)
    client = Client(deployment, server['id'])
    # Every item deleted by two threads, each thread deleting three.
    calls = [('DELETE', '/metadata/' + key, None)
             for _twice in range(2) for key in sorted(metadata)]
    per_thread = [calls[t::CLIENTS] for t in range(CLIENTS)]

    results = race(client, per_thread)

    outcomes = {key: [] for key in metadata}
    for (_method, path, _body), resp in results:
        outcomes[path.rsplit('/', 1)[1]].append(resp.status_code)
        if resp.status_code == 404:
            assert resp.json() == {'itemNotFound': {
                'code': 404, 'message': 'Metadata item was not found'}}
    assert {key: sorted(codes) for key, codes in outcomes.items()} == {
        key: [204, 404] for key in metadata}
    assert_everywhere(deployment, server, client, {})


def test_concurrent_replaces_leave_one_whole_set(deployment, boot):
    server = boot({'initial': 'yes'})
    client = Client(deployment, server['id'])
    sets = {}
    per_thread = []
    for t in range(CLIENTS):
        calls = []
        for i in range(2):
            owner = 'o-%02d-%d' % (t, i)
            if t % 8 == 7:
                # Past the quota: refused, nothing of it written.
                body = {'owner': owner}
                body.update(('x-%03d' % n, owner) for n in range(QUOTA))
            else:
                body = {'owner': owner}
                body.update(('s-%d' % n, owner) for n in range(5 + t % 3))
                sets[owner] = body
            calls.append(('PUT', '/metadata', {'metadata': body}))
        per_thread.append(calls)

    results = race(client, per_thread)

    for (_method, _path, body), resp in results:
        if len(body['metadata']) > QUOTA:
            assert resp.status_code == 403, resp.text
            assert resp.json()['forbidden']['message'] == QUOTA_MESSAGE
        else:
            assert resp.status_code == 200, resp.text
            assert resp.json() == body
    final = client.request('GET', '/metadata').json()['metadata']
    # One writer's whole set, never a mix of two nor the initial one.
    assert final == sets[final['owner']]
    assert_everywhere(deployment, server, client, final)


def _metadata_rows(deployment, server_id):
    engine = sa.create_engine(deployment.database_url)
    metadata = models.InstanceMetadata.__table__
    try:
        with engine.connect() as connection:
            return connection.execute(
                sa.select(sa.func.count()).select_from(metadata).where(
                    metadata.c.instance_uuid == server_id)).scalar()
    finally:
        engine.dispose()


def test_writes_racing_the_deletion_answer_404_and_leave_nothing(
        deployment, boot):
    server = boot({'a': '1'})
    client = Client(deployment, server['id'])
    per_thread = []
    for t in range(CLIENTS):
        key = 'k-%02d' % t
        calls = [('POST', '/metadata', {'metadata': {key: 'v'}}),
                 ('PUT', '/metadata/' + key, {'meta': {key: 'w'}}),
                 ('PUT', '', {'server': {'description': key}}),
                 ('PUT', '/metadata', {'metadata': {key: 'x'}}),
                 ('DELETE', '/metadata/' + key, None)]
        if t == 0:
            # The deletion comes in while the others write.
            calls.insert(2, ('DELETE', '', None))
        per_thread.append(calls)

    results = race(client, per_thread)

    deleted = [resp for (method, path, _b), resp in results
               if method == 'DELETE' and path == '']
    assert [resp.status_code for resp in deleted] == [204]
    for (method, path, _body), resp in results:
        assert resp.status_code in (200, 204, 404), (
            method, path, resp.status_code, resp.text)
        if resp.status_code == 404:
            assert set(resp.json()) == {'itemNotFound'}, resp.text
    assert client.request('GET').status_code == 404
    # No item written after the deletion was left behind.
    assert _metadata_rows(deployment, server['id']) == 0
