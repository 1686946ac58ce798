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

"""The instances, cores and ram quotas of a boot, on every test backend:
checked before anything is built (a count of 2^31-1 answers 403 at once
and writes nothing), lowered to what fits between min_count and
max_count as Nova does, and exact under dozens of concurrent boots of one
project. The stored rows are read, not only the answers.
"""

import threading
import time

import pytest
import sqlalchemy as sa
import webtest

from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import objects
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

V21 = '/compute/v2.1'
DEMO = {'X-Auth-Token': 'demo:demo'}
ADMIN = {'X-Auth-Token': 'admin:admin'}
CLIENTS = 24


@pytest.fixture
def stack(api_fixture_factory, backend):
    """(webtest app, database engine); flavor ``small`` has 1 vcpu and
    512 MiB, ``big`` 4 vcpus and 8 GiB.
    """
    fixture = api_fixture_factory(backend=backend)
    admin = nm_context.get_admin_context()
    builders.create_flavor(admin, 'small', memory_mb=512, vcpus=1)
    builders.create_flavor(admin, 'big', name='big', memory_mb=8192,
                           vcpus=4)
    return webtest.TestApp(fixture.app), fixture.database.engine


def _boot(app, flavor='small', headers=DEMO, **counts):
    body = {'server': dict({'name': 'srv', 'flavorRef': flavor,
                            'imageRef': 'c0ffee00-0000-4000-8000-000000000001'}, **counts)}
    return app.post_json(V21 + '/servers', body, headers=headers,
                         expect_errors=True)


def _rows(engine, model):
    with engine.connect() as connection:
        return connection.execute(
            sa.select(sa.func.count()).select_from(model.__table__)).scalar()


def _stored(engine):
    return {'instances': _rows(engine, models.Instance),
            'request_specs': _rows(engine, models.RequestSpec),
            'instance_actions': _rows(engine, models.InstanceAction)}


def _nothing(engine):
    return {'instances': 0, 'request_specs': 0, 'instance_actions': 0}


def test_a_huge_count_is_refused_before_anything_is_built(stack):
    app, engine = stack
    started = time.monotonic()
    response = _boot(app, min_count=2 ** 31 - 1, max_count=2 ** 31 - 1)
    assert time.monotonic() - started < 5
    assert response.status_int == 403
    assert response.json == {'forbidden': {'code': 403, 'message': (
        'Quota exceeded for cores, instances, ram: Requested 2147483647, '
        '2147483647, 1099511627264, but already used 0, 0, 0 of 20, 10, '
        '51200 cores, instances, ram')}}
    assert _stored(engine) == _nothing(engine)


def test_a_count_above_the_quota_writes_nothing(stack):
    app, engine = stack
    assert _boot(app, min_count=9).status_int == 202
    response = _boot(app, min_count=3)
    assert response.status_int == 403
    assert response.json['forbidden']['message'] == (
        'Quota exceeded for instances: Requested 3, but already used 9 '
        'of 10 instances')
    assert _stored(engine) == {'instances': 9, 'request_specs': 9,
                               'instance_actions': 9}


def test_max_count_is_lowered_to_what_fits(stack):
    app, engine = stack
    assert _boot(app, min_count=7).status_int == 202
    # 3 fit: booted, as Nova boots between min_count and max_count.
    assert _boot(app, min_count=2, max_count=50).status_int == 202
    assert _stored(engine)['instances'] == 10
    response = _boot(app, min_count=1, max_count=5)
    assert response.status_int == 403
    assert response.json['forbidden']['message'] == (
        'Quota exceeded for instances: Requested 1-5, but already used 10 '
        'of 10 instances')
    assert _stored(engine)['instances'] == 10


def test_cores_and_ram_count_the_flavor(stack):
    app, engine = stack
    # 20 cores: 5 servers of 4 vcpus; 51200 MiB: 6 of 8 GiB.
    assert _boot(app, 'big', min_count=1, max_count=8).status_int == 202
    admin = nm_context.get_admin_context()
    servers = objects.InstanceList.get_all(admin, project_id='demo').objects
    assert len(servers) == 5
    response = _boot(app, 'small')
    assert response.status_int == 403
    assert response.json['forbidden']['message'] == (
        'Quota exceeded for cores: Requested 1, but already used 20 of 20 '
        'cores')
    # Another project has its own quota.
    assert _boot(app, 'big', headers={'X-Auth-Token': 'eve:other'},
                 min_count=5).status_int == 202
    assert _stored(engine)['instances'] == 10


def test_minus_one_is_no_limit(api_fixture_factory, backend):
    fixture = api_fixture_factory(backend=backend, conf_overrides={
        'quota.instances': -1, 'quota.cores': -1, 'quota.ram': -1})
    builders.create_flavor(nm_context.get_admin_context(), 'small',
                           memory_mb=512, vcpus=1)
    app = webtest.TestApp(fixture.app)
    assert _boot(app, min_count=30).status_int == 202
    assert _stored(fixture.database.engine)['instances'] == 30


def _race_boots(app):
    """CLIENTS boots of one server at once: their (status, body)s."""
    statuses = []
    lock = threading.Lock()

    def boot(index):
        response = _boot(app)
        with lock:
            statuses.append((response.status_int, response.text))

    assert threads.race(boot, CLIENTS) == []
    return statuses


def test_concurrent_boots_never_exceed_the_quota(stack):
    app, engine = stack
    statuses = _race_boots(app)
    codes = sorted(status for status, _text in statuses)
    assert codes == [202] * 10 + [403] * (CLIENTS - 10), statuses
    refused = [text for status, text in statuses if status == 403]
    assert all('Quota exceeded for instances' in text for text in refused)
    assert _stored(engine) == {'instances': 10, 'request_specs': 10,
                               'instance_actions': 10}


def test_concurrent_first_boots_of_an_unlimited_project(api_fixture_factory,
                                                        backend):
    # A project without limits has no lock row until its first boot: the
    # boots racing to be first must not race to insert it in their own
    # transactions (on PostgreSQL one got UniqueViolation: a 500).
    fixture = api_fixture_factory(backend=backend, conf_overrides={
        'quota.instances': -1, 'quota.cores': -1, 'quota.ram': -1})
    builders.create_flavor(nm_context.get_admin_context(), 'small',
                           memory_mb=512, vcpus=1)
    statuses = _race_boots(webtest.TestApp(fixture.app))
    assert [status for status, _text in statuses] == [202] * CLIENTS, \
        statuses
    assert _stored(fixture.database.engine)['instances'] == CLIENTS
