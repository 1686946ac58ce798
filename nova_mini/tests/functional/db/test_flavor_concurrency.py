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

"""Concurrent writers on PostgreSQL and MariaDB (the production databases,
where API workers really write in parallel): extra spec merges lose nothing and
raise nothing."""


import pytest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders
from nova_mini.tests.fixtures import threads

THREADS = 8
ROUNDS = 15


@pytest.fixture(scope='module', params=[
    pytest.param('postgresql', marks=pytest.mark.postgresql),
    pytest.param('mariadb', marks=pytest.mark.mariadb)])
def backend(request):
    """This module's backends: PostgreSQL and MariaDB (overrides
    conftest's).
    """
    return request.param


def _run_threads(target):
    assert threads.race(target, THREADS) == []


@pytest.fixture
def flavor(db):
    return builders.create_flavor(
        nm_context.get_admin_context(), 'f1', memory_mb=1, vcpus=1,
        root_gb=0, extra_specs={'existing': 'x'})


def _load():
    return objects.Flavor.get_by_flavor_id(nm_context.get_admin_context(),
                                           'f1')


def test_distinct_keys(flavor):
    def merge(index):
        for round_ in range(ROUNDS):
            _load().update_extra_specs({'t%d-r%d' % (index, round_): 'v'})

    _run_threads(merge)
    specs = _load().extra_specs
    assert len(specs) == THREADS * ROUNDS + 1
    assert specs['existing'] == 'x'


def test_the_same_new_keys(flavor):
    # Every thread adds the same new keys at the same time: the inserts
    # race on the (flavor_id, key) unique constraint.
    def merge(index):
        for round_ in range(ROUNDS):
            _load().update_extra_specs({
                'shared-%d' % round_: 't%d' % index,
                'own-%d-%d' % (index, round_): 'v'})

    _run_threads(merge)
    specs = _load().extra_specs
    for round_ in range(ROUNDS):
        assert specs['shared-%d' % round_] in {
            't%d' % i for i in range(THREADS)}
        for index in range(THREADS):
            assert specs['own-%d-%d' % (index, round_)] == 'v'
    assert len(specs) == 1 + ROUNDS + THREADS * ROUNDS


def test_the_same_existing_keys(flavor):
    # Updates of the same rows, in different orders: no deadlock escapes.
    keys = ['k%d' % i for i in range(6)]
    _load().update_extra_specs({key: 'start' for key in keys})

    def merge(index):
        order = keys if index % 2 else list(reversed(keys))
        for round_ in range(ROUNDS):
            _load().update_extra_specs(
                {key: 't%d-r%d' % (index, round_) for key in order})

    _run_threads(merge)
    specs = _load().extra_specs
    for key in keys:
        assert specs[key].startswith('t')
        assert specs[key].endswith('-r%d' % (ROUNDS - 1))
