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

"""Candidates ranked by the database and read a page at a time: the
capacity conditions in SQL, and the same selections as reading every
candidate, with far fewer nodes read.
"""

import datetime
import random

import pytest
import sqlalchemy as sa

from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import objects
from nova_mini.objects import request_spec
from nova_mini.scheduler import candidates
from nova_mini.scheduler import expiring_cache
from nova_mini.scheduler import filter_scheduler
from nova_mini.scheduler import weighers
from nova_mini import states
from nova_mini.tests.fixtures import builders


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _node(admin, name, memory_mb=4096, cpus=8, local_gb=100,
          boot_mode='uefi', traits=()):
    return builders.create_node(
        admin, name, traits, resource_class='bm',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(
            cpus, memory_mb, local_gb, cpu_arch='x86_64',
            capabilities='boot_mode:%s' % boot_mode))


def _spec(extra_specs=None, memory_mb=1024, vcpus=2, root_gb=10):
    specs = {'resources:CUSTOM_BM': '1'}
    specs.update(extra_specs or {})
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=memory_mb, vcpus=vcpus,
        root_gb=root_gb, ephemeral_gb=0, swap=0, rxtx_factor=1.0,
        vcpu_weight=None, is_public=True, disabled=False, description=None,
        extra_specs=specs, created_at=datetime.datetime(2026, 1, 1),
        updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor)


def _names(admin, spec, **kwargs):
    return [n.name for n in candidates.get_candidates(admin, spec, **kwargs)]


@pytest.mark.parametrize('flavor, expected', [
    ({'memory_mb': 4096}, ['big', 'exact']),
    ({'memory_mb': 4097}, ['big']),
    ({'vcpus': 9}, ['big']),
    ({'root_gb': 101}, ['big']),
    # A bare-metal flavor zeroes the standard classes: any size will do.
    ({'memory_mb': 10 ** 6, 'extra_specs': {
        'resources:MEMORY_MB': '0', 'resources:VCPU': '0',
        'resources:DISK_GB': '0'}},
     ['big', 'exact', 'small', 'unsized']),
    # The unsized node has no CPUs.
    ({'memory_mb': 0, 'root_gb': 0},
     ['big', 'exact', 'small']),
])
def test_capacity_is_checked_in_sql(admin, flavor, expected):
    _node(admin, 'big', memory_mb=8192, cpus=16, local_gb=200)
    _node(admin, 'exact', memory_mb=4096)
    _node(admin, 'small', memory_mb=512)
    unsized = objects.Node(admin, name='unsized', driver='fake-hardware',
                           resource_class='bm',
                           provision_state=states.AVAILABLE,
                           properties={'memory_mb': 'lots'})
    unsized.create()
    flavor = dict(flavor)
    spec = _spec(flavor.pop('extra_specs', None), **flavor)
    assert sorted(_names(admin, spec)) == expected
    # Without the requirements: every node that could serve at all.
    assert sorted(_names(admin, spec, requirements=False)) == [
        'big', 'exact', 'small', 'unsized']


def test_pages_follow_the_ranking(admin):
    for i, memory in enumerate([2048, 8192, 4096, 8192, 1024]):
        _node(admin, 'n%d' % i, memory_mb=memory)
    # Ending with the id, as get_candidates wants: the order of the two
    # 8192 MB nodes is the plan's otherwise.
    order = [models.Node.__table__.c.memory_mb.desc(),
             models.Node.__table__.c.id.asc()]
    spec = _spec(memory_mb=0)
    assert _names(admin, spec, order_by=order) == [
        'n1', 'n3', 'n2', 'n0', 'n4']
    assert _names(admin, spec, order_by=order, limit=2, offset=2) == [
        'n2', 'n0']


def test_capacity_columns_follow_properties(admin):
    node = _node(admin, 'n', memory_mb=1024)
    node.properties = dict(node.properties, memory_mb='65536', cpus=-3)
    node.save()
    with db_api.context_manager.reader.using(admin):
        row = admin.session.execute(sa.select(
            models.Node.cpus, models.Node.memory_mb,
            models.Node.local_gb)).one()
    assert tuple(row) == (0, 65536, 100)


@pytest.mark.parametrize('properties, expected', [
    ({}, {'cpus': 0, 'memory_mb': 0, 'local_gb': 0}),
    (None, {'cpus': 0, 'memory_mb': 0, 'local_gb': 0}),
    ({'cpus': '8', 'memory_mb': 4096.7, 'local_gb': 'x'},
     {'cpus': 8, 'memory_mb': 4096, 'local_gb': 0}),
    ({'cpus': 10 ** 20, 'memory_mb': -1, 'local_gb': True},
     {'cpus': 2 ** 31 - 1, 'memory_mb': 0, 'local_gb': 1}),
])
def test_capacity_of(properties, expected):
    from nova_mini.objects.baremetal import node as node_obj
    assert node_obj.capacity_of(properties) == expected


def test_sql_order_of_the_weighers(conf):
    ram, rand = weighers.load(['RAMWeigher', 'RandomWeigher'])

    def order(weighed):
        clauses = weighers.sql_order(weighed, conf.conf)
        return clauses if clauses is None else [str(c) for c in clauses]

    assert order([ram]) == ['nodes.memory_mb DESC', 'nodes.id DESC']
    conf.config(ram_weight_multiplier=-2.0, group='filter_scheduler')
    assert order([ram]) == ['nodes.memory_mb ASC', 'nodes.id ASC']
    conf.config(ram_weight_multiplier=0.0, group='filter_scheduler')
    assert order([ram]) == ['nodes.id ASC']
    assert order([]) == ['nodes.id ASC']
    # Normalization over the weighed set: no SQL for two weighers.
    assert order([ram, rand]) is None
    assert order([rand]) is None


def _fleet(admin, count, seed, trait_share=0.8):
    rng = random.Random(seed)
    # Distinct sizes: ties would be broken by id in the key's direction
    # when ranked, in id order otherwise.
    for i, memory in enumerate(rng.sample(range(1024, 16384), count)):
        _node(admin, 'n%03d' % i, memory_mb=memory,
              boot_mode=rng.choice(['uefi', 'bios', 'bios']),
              traits=['CUSTOM_A'] if rng.random() < trait_share else ())


# (FIRST_SLICE, SCAN_BUDGET, MIN_PAGE): slices find enough; the budget
# runs out and pages of candidates follow.
READS = {'slices': (4, 64, 2), 'pages': (2, 4, 2)}


@pytest.mark.parametrize('reads', sorted(READS))
@pytest.mark.parametrize('subset, count, alternates', [
    (1, 1, False), (1, 1, True), (3, 2, True), (1, 4, False)])
def test_ranked_reads_select_as_reading_everything(
        admin, conf, monkeypatch, reads, subset, count, alternates):
    """Small slices and pages: the capabilities filter (in Python)
    rejects about two thirds of the candidates, so several are read; the
    picks and alternates are those of reading every candidate.
    """
    _fleet(admin, 60, seed=subset * 10 + count,
           trait_share=0.8 if reads == 'slices' else 0.2)
    for name, value in zip(('FIRST_SLICE', 'SCAN_BUDGET', 'MIN_PAGE'),
                           READS[reads]):
        monkeypatch.setattr(filter_scheduler, name, value)
    monkeypatch.setattr(filter_scheduler, 'PAGE_FACTOR', 1)
    conf.config(host_subset_size=subset, group='filter_scheduler')
    spec = _spec({'capabilities:boot_mode': 'uefi',
                  'trait:CUSTOM_A': 'required'})
    uuids = ['i-%d' % i for i in range(count)]

    def select(weigher_names):
        conf.config(weighers=weigher_names, group='filter_scheduler')
        driver = filter_scheduler.FilterScheduler(conf.conf)
        # The picks among the best host_subset_size are random: the same
        # draws for both ways.
        driver._random = random.Random(7)
        return [[s.node_uuid for s in options]
                for options in driver.select_destinations(
                    admin, spec, uuids, return_alternates=alternates)]

    ranked = select(['RAMWeigher'])
    # RandomWeigher with multiplier 0 adds nothing to the weights but
    # makes the ranking impossible in SQL: every candidate is read.
    conf.config(random_weight_multiplier=0.0, group='filter_scheduler')
    everything = select(['RAMWeigher', 'RandomWeigher'])
    assert ranked == everything
    assert len({options[0] for options in ranked}) == count


def _read(admin, conf, needed, spec=None):
    counts = {}
    passed = filter_scheduler.FilterScheduler(conf.conf)._passing(
        admin, spec or _spec(), needed, counts)
    return [n.name for n in passed], counts['database']


def test_reads_stop_once_enough_passed(admin, conf, monkeypatch):
    for i in range(100):
        _node(admin, 'n%03d' % i, memory_mb=1024 + i,
              traits=['CUSTOM_RARE'] if i in (10, 20) else ())
    monkeypatch.setattr(filter_scheduler, 'FIRST_SLICE', 8)
    monkeypatch.setattr(filter_scheduler, 'SCAN_BUDGET', 40)
    # The best 8 of all nodes are enough.
    names, read = _read(admin, conf, 3)
    assert names == ['n099', 'n098', 'n097', 'n096', 'n095', 'n094',
                     'n093', 'n092'] and read == 8
    # Rare candidates: 8 + 16 + 16 nodes of all checked, none has the
    # trait; then a page of the candidates found by the trait's index.
    names, read = _read(admin, conf, 1,
                        _spec({'trait:CUSTOM_RARE': 'required'}))
    assert names == ['n020', 'n010'] and read == 2
    # Without a ranking in SQL, every candidate is read.
    conf.config(weighers=['RAMWeigher', 'RandomWeigher'],
                group='filter_scheduler')
    names, read = _read(admin, conf, 3)
    assert read == 100 and len(names) == 100


def test_rare_requests_skip_the_walk_for_a_while(admin, conf, monkeypatch):
    """A request whose candidates the walk of the budget did not find
    goes straight to its candidates for RARE_SECONDS: the same nodes, in
    the same order, without the walk.
    """
    for i in range(100):
        _node(admin, 'n%03d' % i, memory_mb=1024 + i,
              traits=['CUSTOM_RARE'] if i in (10, 20) else ())
    monkeypatch.setattr(filter_scheduler, 'SCAN_BUDGET', 40)
    walks = []
    real_chunks = candidates.candidate_chunks

    def counting(*args, **kwargs):
        if kwargs.get('within') is not None:
            walks.append(args[1].required_traits)
        return real_chunks(*args, **kwargs)

    monkeypatch.setattr(candidates, 'candidate_chunks', counting)
    now = [1000.0]
    monkeypatch.setattr(expiring_cache.time, 'monotonic', lambda: now[0])
    driver = filter_scheduler.FilterScheduler(conf.conf)
    rare = _spec({'trait:CUSTOM_RARE': 'required'})

    def read(spec):
        counts = {}
        passed = driver._passing(admin, spec, 1, counts)
        return [n.name for n in passed], counts['database']

    assert read(rare) == (['n020', 'n010'], 2)
    assert len(walks) == 1
    assert read(rare) == (['n020', 'n010'], 2)
    assert len(walks) == 1
    # Other requests still walk.
    assert read(_spec())[0][:1] == ['n099']
    assert len(walks) == 2
    # Later the walk is tried again (nodes may have been freed).
    now[0] += filter_scheduler.RARE_SECONDS + 1
    assert read(rare) == (['n020', 'n010'], 2)
    assert len(walks) == 3


def test_small_fleet_is_seen_whole_in_slices(admin, conf, monkeypatch):
    for i in range(5):
        _node(admin, 'n%d' % i, memory_mb=1024 * (i + 1),
              boot_mode='bios' if i else 'uefi')
    monkeypatch.setattr(filter_scheduler, 'FIRST_SLICE', 2)
    # s!= is left to the filter (no SQL narrowing): four nodes fail it.
    spec = _spec({'capabilities:boot_mode': 's!= bios'})
    # Fewer than needed pass, but every node was in a slice: no pages.
    names, read = _read(admin, conf, 3, spec)
    assert names == ['n0'] and read == 5


def test_equal_requests_share_one_statement(admin, monkeypatch):
    """The statement of a request is built once and reused for equal
    requests (any spec with the same requirements), never for others;
    the cache keeps the most recently used STATEMENT_CACHE_SIZE.
    """
    _node(admin, 'gold', traits=['CUSTOM_GOLD'])
    _node(admin, 'plain')
    built = []
    real_build = candidates._build

    def counting(*args):
        built.append(args[0].required_traits)
        return real_build(*args)

    monkeypatch.setattr(candidates, '_build', counting)
    monkeypatch.setattr(candidates, 'STATEMENT_CACHE_SIZE', 2)
    monkeypatch.setattr(candidates, '_statements',
                        candidates.collections.OrderedDict())
    gold = {'trait:CUSTOM_GOLD': 'required'}
    assert _names(admin, _spec(gold)) == ['gold']
    assert _names(admin, _spec(gold)) == ['gold']
    assert built == [['CUSTOM_GOLD']]
    # Another requirement, another statement; the answers stay apart.
    assert _names(admin, _spec({'trait:CUSTOM_GOLD': 'forbidden'})) == [
        'plain']
    assert _names(admin, _spec(gold, memory_mb=8192)) == []
    assert len(built) == 3
    # The cache holds two: the first request's statement was dropped.
    assert _names(admin, _spec(gold)) == ['gold']
    assert len(built) == 4
    # Retried and ignored nodes are part of the request.
    spec = _spec()
    spec.ignore_hosts = ['gold']
    assert _names(admin, spec) == ['plain']
    assert _names(admin, _spec()) == ['gold', 'plain']


def test_a_stale_walk_bound_selects_the_same(admin, conf, monkeypatch):
    """The bound of the walk is kept for CUTOFF_SECONDS: nodes freed or
    taken meanwhile move the budget's last node, and the selection is
    still the best candidates (the walk stops at them; when it runs out,
    every candidate is read).
    """
    for i in range(100):
        _node(admin, 'n%03d' % i, memory_mb=1024 + i,
              traits=['CUSTOM_RARE'] if i in (10, 20, 95) else ())
    monkeypatch.setattr(filter_scheduler, 'SCAN_BUDGET', 40)
    driver = filter_scheduler.FilterScheduler(conf.conf)
    rare = _spec({'trait:CUSTOM_RARE': 'required'})

    def read(spec, needed=1):
        passed = driver._passing(admin, spec, needed, {})
        return [n.name for n in passed]

    # The bound is read: the 40th best free node, n060.
    assert read(_spec())[:1] == ['n099']
    # The best 50 are taken: the kept bound now covers none of the free
    # nodes; the candidates are still found, best first.
    uuids = {n.name: n.uuid for n in objects.NodeList.get_all(admin)}
    for i in range(50, 100):
        assert objects.Node.claim(admin, uuids['n%03d' % i], 'i-%d' % i, {})
    assert read(rare, 3) == ['n020', 'n010']
    assert read(_spec(), 2)[:2] == ['n049', 'n048']


def test_a_walk_run_out_under_a_stale_bound_reads_it_again(admin, conf,
                                                           monkeypatch):
    """When the fleet filled up since the bound was read, the walk down
    to the kept bound runs out: the bound is read again and the walk
    goes that far, instead of the request counting as rare (and reading
    every candidate for RARE_SECONDS).
    """
    for i in range(100):
        _node(admin, 'n%03d' % i, memory_mb=1024 + i)
    monkeypatch.setattr(filter_scheduler, 'SCAN_BUDGET', 40)
    reads = []
    real_chunks = candidates.candidate_chunks

    def recording(*args, **kwargs):
        reads.append(kwargs.get('within'))
        return real_chunks(*args, **kwargs)

    monkeypatch.setattr(candidates, 'candidate_chunks', recording)
    driver = filter_scheduler.FilterScheduler(conf.conf)

    def read(needed=2):
        counts = {}
        passed = driver._passing(admin, _spec(), needed, counts)
        # The best two; a chunk of 8 passed.
        return [n.name for n in passed][:2], counts['database']

    # The bound is read: the 40th best free node, n060.
    assert read() == (['n099', 'n098'], 8)
    assert [len(within) for within in reads] == [2]
    # The best 50 are taken within the bound's CUTOFF_SECONDS.
    uuids = {n.name: n.uuid for n in objects.NodeList.get_all(admin)}
    for i in range(50, 100):
        assert objects.Node.claim(admin, uuids['n%03d' % i], 'i-%d' % i, {})
    del reads[:]
    # The walk down to n060 finds no free node; the bound of now (n010)
    # is read and walked: the best free nodes, 8 rows read in all.
    assert read() == (['n049', 'n048'], 8)
    assert len(reads) == 2 and all(reads)
    assert reads[0] != reads[1]
    # Not taken for a rare request: the next one walks (the new bound).
    del reads[:]
    assert read() == (['n049', 'n048'], 8)
    assert reads == [reads[0]] and reads[0]
