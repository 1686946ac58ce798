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

"""The scheduler on real databases (SQLite file, PostgreSQL): candidates
in SQL, filters and weighers, distinct nodes per request, and atomic
claims under concurrent schedulers (threads with their own sessions).
"""

import datetime
import threading
import uuid

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects import request_spec
from nova_mini.scheduler import filter_scheduler
from nova_mini.scheduler import manager
from nova_mini import states
from nova_mini.tests.fixtures import builders

THREADS = 16


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def scheduler(conf):
    return filter_scheduler.FilterScheduler(conf.conf)


def _node(admin, name, traits=(), resource_class='baremetal-gold',
          memory_mb=4096, **values):
    values.setdefault('provision_state', states.AVAILABLE)
    return builders.create_node(
        admin, name, traits, resource_class=resource_class,
        properties=builders.node_properties(
            memory_mb=memory_mb, cpu_arch='x86_64',
            capabilities='boot_mode:uefi'),
        **values)


def _spec(extra_specs=None, **kwargs):
    specs = {'resources:CUSTOM_BAREMETAL_GOLD': '1'}
    specs.update(extra_specs or {})
    flavor = objects.Flavor(
        id=1, flavorid='bm', name='bm', memory_mb=1024, vcpus=2, root_gb=10,
        ephemeral_gb=0, swap=0, rxtx_factor=1.0, vcpu_weight=None,
        is_public=True, disabled=False, description=None, extra_specs=specs,
        created_at=datetime.datetime(2026, 1, 1), updated_at=None)
    return request_spec.RequestSpec.from_components(None, flavor, **kwargs)


def _u(name):
    """A stable instance uuid for a readable name."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, name))


def _names(admin, selections):
    by_uuid = {n.uuid: n.name for n in objects.NodeList.get_all(admin)}
    return [by_uuid[s.node_uuid] for s in selections]


def test_candidates_come_from_the_database(admin, scheduler):
    _node(admin, 'good', ['CUSTOM_A', 'CUSTOM_B'])
    _node(admin, 'lacks-b', ['CUSTOM_A'])
    _node(admin, 'forbidden', ['CUSTOM_A', 'CUSTOM_B', 'CUSTOM_F'])
    _node(admin, 'maintenance', ['CUSTOM_A', 'CUSTOM_B'], maintenance=True)
    _node(admin, 'manageable', ['CUSTOM_A', 'CUSTOM_B'],
          provision_state=states.MANAGEABLE)
    _node(admin, 'taken', ['CUSTOM_A', 'CUSTOM_B'],
          instance_uuid=str(uuid.uuid4()))
    _node(admin, 'silver', ['CUSTOM_A', 'CUSTOM_B'],
          resource_class='baremetal-silver')
    spec = _spec({'trait:CUSTOM_A': 'required', 'trait:CUSTOM_F':
                  'forbidden'}, image={'properties': {
                      'traits_required': ['CUSTOM_B']}})
    [[chosen]] = scheduler.select_destinations(admin, spec, ['i-1'])
    assert _names(admin, [chosen]) == ['good']
    assert chosen.resource_class == 'baremetal-gold'


def test_filters_and_weighers_run_after_sql(admin, scheduler):
    _node(admin, 'small', memory_mb=512)
    _node(admin, 'big', memory_mb=65536)
    _node(admin, 'medium', memory_mb=8192)
    spec = _spec(instance_uuids=['a'])
    [options] = scheduler.select_destinations(admin, spec, ['a'],
                                              return_alternates=True)
    # RamFilter drops "small"; RAMWeigher puts "big" first.
    assert _names(admin, options) == ['big', 'medium']
    assert options[0].weight > options[1].weight


def test_instances_get_distinct_nodes(admin, scheduler):
    for i in range(5):
        _node(admin, 'n%d' % i, memory_mb=1024 * (i + 1))
    uuids = ['a', 'b', 'c']
    result = scheduler.select_destinations(admin, _spec(), uuids,
                                           return_alternates=True)
    chosen = [options[0].node_uuid for options in result]
    assert len(set(chosen)) == 3
    for options in result:
        assert len(options) == 3
        # Alternates are never a node chosen for this request.
        assert not {s.node_uuid for s in options[1:]} & set(chosen)


def test_no_valid_host_names_the_filters(admin, scheduler, caplog):
    _node(admin, 'small', memory_mb=512)
    caplog.set_level('DEBUG', logger='nova_mini.scheduler')
    with pytest.raises(exception.NoValidHost) as info:
        scheduler.select_destinations(admin, _spec(), ['a'])
    message = info.value.format_message()
    assert message.startswith('No valid host was found.')
    # The database checks capacity: no candidate at all, and the message
    # says which size no node has (see test_no_valid_host) ...
    assert 'No node of resource class CUSTOM_BAREMETAL_GOLD has 1 GiB' in (
        message)
    assert 'database: 0' in info.value.kwargs['details']
    # ... and at debug level the filters tell why, on the nodes of the
    # resource class.
    assert 'RamFilter rejected node' in caplog.text
    assert 'MEMORY_MB 1024 wanted, node has memory_mb 512' in caplog.text
    assert ('Of 1 available node(s) of the resource class: '
            'ComputeCapabilitiesFilter: 1, RamFilter: 0') in caplog.text


def test_no_explanation_below_debug(admin, scheduler, caplog):
    _node(admin, 'small', memory_mb=512)
    caplog.set_level('INFO', logger='nova_mini.scheduler')
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(admin, _spec(), ['a'])
    assert 'rejected node' not in caplog.text


def test_not_enough_nodes_for_all_instances(admin, scheduler):
    _node(admin, 'only')
    with pytest.raises(exception.NoValidHost, match='2 node'):
        scheduler.select_destinations(admin, _spec(), ['a', 'b'])


def test_two_custom_resource_classes_match_nothing(admin, scheduler):
    _node(admin, 'n')
    with pytest.raises(exception.NoValidHost):
        scheduler.select_destinations(
            admin, _spec({'resources:CUSTOM_OTHER': '1'}), ['a'])


def test_ignore_force_and_retry(admin, scheduler):
    nodes = [_node(admin, 'n%d' % i) for i in range(4)]
    spec = _spec(ignore_hosts=['n0', nodes[1].uuid],
                 retry={'num_attempts': 1, 'nodes': ['n2']})
    [[chosen]] = scheduler.select_destinations(admin, spec, ['a'])
    assert _names(admin, [chosen]) == ['n3']
    spec = _spec(force_nodes=[nodes[2].uuid])
    [[chosen]] = scheduler.select_destinations(admin, spec, ['a'])
    assert _names(admin, [chosen]) == ['n2']


def test_claim_is_conditional(admin):
    node = _node(admin, 'n')
    maint = _node(admin, 'm', maintenance=True)
    first, second = str(uuid.uuid4()), str(uuid.uuid4())
    assert objects.Node.claim(admin, node.uuid, first, {'traits': ['X']})
    assert not objects.Node.claim(admin, node.uuid, second)
    assert not objects.Node.claim(admin, maint.uuid, second)
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.instance_uuid == first
    assert stored.instance_info == {'traits': ['X']}
    other = _node(admin, 'o')
    with pytest.raises(exception_baremetal.InstanceAssociated):
        objects.Node.claim(admin, other.uuid, first)
    assert not objects.Node.unclaim(admin, node.uuid, second)
    assert objects.Node.unclaim(admin, node.uuid, first)
    assert objects.Node.get_by_uuid(admin, node.uuid).instance_uuid is None


def test_claim_destinations_sets_traits(admin, scheduler):
    _node(admin, 'n', ['CUSTOM_A'])
    spec = _spec({'trait:CUSTOM_A': 'required'})
    [selection] = scheduler.claim_destinations(admin, spec, [_u('i-1')])
    node = objects.Node.get_by_uuid(admin, selection.node_uuid)
    assert node.instance_uuid == _u('i-1')
    assert node.instance_info == {'traits': ['CUSTOM_A']}


def test_failed_request_releases_its_claims(admin, scheduler):
    _node(admin, 'n0')
    _node(admin, 'n1')
    with pytest.raises(exception.NoValidHost):
        scheduler.claim_destinations(admin, _spec(),
                                     [_u('a'), _u('b'), _u('c')])
    assert all(n.instance_uuid is None
               for n in objects.NodeList.get_all(admin))


def test_manager_serves_the_driver(admin, conf):
    _node(admin, 'n')
    endpoint = manager.SchedulerManager('h', conf=conf.conf)
    [[chosen]] = endpoint.select_destinations(admin, _spec(), ['a'])
    [claimed] = endpoint.claim_destinations(admin, _spec(), [_u('a')])
    assert chosen.node_uuid == claimed.node_uuid


@pytest.mark.parametrize('subset', [1, 4])
def test_concurrent_claims_never_double_book(admin, conf, subset):
    """THREADS schedulers, each with its own driver and sessions, claim
    for two instances each over fewer nodes than asked for: every node
    goes to at most one instance, and losers get NoValidHost.
    """
    conf.config(host_subset_size=subset, group='filter_scheduler')
    nodes = [_node(admin, 'n%02d' % i, memory_mb=1024 * (i + 1))
             for i in range(THREADS)]
    results, errors = [], []
    start = threading.Barrier(THREADS)

    def boot(index):
        driver = filter_scheduler.FilterScheduler(conf.conf)
        ctxt = nm_context.get_admin_context()
        uuids = [_u('%d-a' % index), _u('%d-b' % index)]
        start.wait()
        try:
            results.append((uuids, driver.claim_destinations(
                ctxt, _spec(), uuids)))
        except exception.NoValidHost as exc:
            errors.append(exc)

    threads = [threading.Thread(target=boot, args=(i,))
               for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(results) + len(errors) == THREADS
    claimed = [s.node_uuid for _uuids, sels in results for s in sels]
    assert len(claimed) == len(set(claimed))
    # The database agrees with what each request was told.
    by_node = {n.uuid: n.instance_uuid
               for n in objects.NodeList.get_all(admin)}
    for uuids, selections in results:
        for instance_uuid, selection in zip(uuids, selections):
            assert by_node[selection.node_uuid] == instance_uuid
    # Failed requests released what they had claimed.
    assert sum(1 for v in by_node.values() if v) == len(claimed)
    # Nodes for THREADS / 2 requests at most, and at least one succeeded.
    assert len(results) <= len(nodes) // 2 and results


def test_contention_never_ends_in_no_valid_host(admin, conf):
    """THREADS schedulers ranking the same nodes the same way (subset 1,
    the default) claim one node each at the same moment, with free nodes
    for all: every request gets a node, none fails for lost claims.
    """
    conf.config(host_subset_size=1, group='filter_scheduler')
    for index in range(2 * THREADS):
        _node(admin, 'n%02d' % index, memory_mb=1024 * (index + 1))
    results, errors = [], []
    start = threading.Barrier(THREADS)

    def boot(index):
        driver = filter_scheduler.FilterScheduler(conf.conf)
        ctxt = nm_context.get_admin_context()
        start.wait()
        try:
            results.append(driver.claim_destinations(
                ctxt, _spec(), [_u('c%d' % index)]))
        except exception.NoValidHost as exc:
            errors.append(exc)

    threads = [threading.Thread(target=boot, args=(i,))
               for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert [str(exc) for exc in errors] == []
    claimed = {s.node_uuid for sels in results for s in sels}
    assert len(claimed) == THREADS
