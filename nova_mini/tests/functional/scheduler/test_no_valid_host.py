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

""""No valid host" on real databases (SQLite, PostgreSQL): the message
names the requirement no node meets, from the scheduler's counts and the
node counts read on failure; the details hold every count; the fault a
build leaves says the same.
"""

import uuid

import pytest

from nova_mini.conf import scheduler as scheduler_conf
from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import server_group
from nova_mini.objects import request_spec
from nova_mini.scheduler import filter_scheduler
from nova_mini.scheduler import manager
from nova_mini import states
from nova_mini.tests.fixtures import builders

# An image id (imageRef must be one).
IMAGE = 'c0ffee00-0000-4000-8000-000000000001'

PREFIX = 'No valid host was found. '


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def scheduler(conf):
    return filter_scheduler.FilterScheduler(conf.conf)


def _node(admin, name, traits=(), resource_class='baremetal-gold',
          memory_mb=4096, capabilities='boot_mode:uefi', **values):
    values.setdefault('provision_state', states.AVAILABLE)
    return builders.create_node(
        admin, name, traits, resource_class=resource_class,
        properties=builders.node_properties(
            memory_mb=memory_mb, cpu_arch='x86_64',
            capabilities=capabilities),
        **values)


def _spec(extra_specs=None, memory_mb=1024, **kwargs):
    specs = {'resources:CUSTOM_BAREMETAL_GOLD': '1'}
    specs.update(extra_specs or {})
    flavor = builders.make_flavor(memory_mb=memory_mb, vcpus=2,
                                  extra_specs=specs)
    return request_spec.RequestSpec.from_components(None, flavor, **kwargs)


def _failure(admin, scheduler, spec, count=1):
    uuids = ['i-%d' % i for i in range(count)]
    with pytest.raises(exception.NoValidHost) as info:
        scheduler.select_destinations(admin, spec, uuids)
    message = info.value.format_message()
    assert message.startswith(PREFIX)
    return message[len(PREFIX):], info.value.kwargs['details']


def _in_use(admin, name, traits=(), **values):
    values.setdefault('instance_uuid', str(uuid.uuid4()))
    return _node(admin, name, traits, provision_state=states.ACTIVE,
                 **values)


def test_missing_resource_class(admin, scheduler):
    _node(admin, 'silver', resource_class='baremetal-silver')
    reason, details = _failure(admin, scheduler, _spec())
    assert reason == 'No node has resource class CUSTOM_BAREMETAL_GOLD.'
    assert 'Nodes of resource class CUSTOM_BAREMETAL_GOLD: 0' in details
    assert 'Scheduler stages (nodes passed): database: 0' in details


def test_missing_trait(admin, scheduler):
    _node(admin, 'plain', ['CUSTOM_A'])
    _in_use(admin, 'busy', ['CUSTOM_A'])
    _node(admin, 'other-class', ['CUSTOM_GPU'],
          resource_class='baremetal-silver')
    reason, details = _failure(admin, scheduler, _spec(
        {'trait:CUSTOM_GPU': 'required', 'trait:CUSTOM_A': 'required'}))
    assert reason == ('No node of resource class CUSTOM_BAREMETAL_GOLD has '
                      'trait CUSTOM_GPU.')
    assert ('  with trait CUSTOM_A: 2 (available 1, in use 1, in '
            'maintenance 0)') in details
    assert ('  with trait CUSTOM_GPU: 0 (available 0, in use 0, in '
            'maintenance 0)') in details


def test_trait_present_but_all_in_use(admin, scheduler):
    _node(admin, 'plain')
    _in_use(admin, 'gpu-1', ['CUSTOM_GPU'])
    _in_use(admin, 'gpu-2', ['CUSTOM_GPU'])
    reason, _details = _failure(admin, scheduler, _spec(
        {'trait:CUSTOM_GPU': 'required'}))
    assert reason == ('2 nodes of resource class CUSTOM_BAREMETAL_GOLD have '
                      'trait CUSTOM_GPU but all are in use.')


def test_trait_present_but_none_available(admin, scheduler):
    _node(admin, 'plain')
    _in_use(admin, 'gpu-1', ['CUSTOM_GPU'])
    _node(admin, 'gpu-2', ['CUSTOM_GPU'], maintenance=True)
    _node(admin, 'gpu-3', ['CUSTOM_GPU'], provision_state=states.MANAGEABLE)
    reason, _details = _failure(admin, scheduler, _spec(
        {'trait:CUSTOM_GPU': 'required'}))
    assert reason == ('3 nodes of resource class CUSTOM_BAREMETAL_GOLD have '
                      'trait CUSTOM_GPU but none is available (1 in use, 1 '
                      'in maintenance, 1 not in provision state '
                      'available).')


def test_forbidden_trait_everywhere(admin, scheduler):
    _node(admin, 'a', ['CUSTOM_LEGACY'])
    _in_use(admin, 'b', ['CUSTOM_LEGACY'])
    reason, _details = _failure(admin, scheduler, _spec(
        {'trait:CUSTOM_LEGACY': 'forbidden'}))
    assert reason == ('Every node of resource class CUSTOM_BAREMETAL_GOLD '
                      'has the forbidden trait CUSTOM_LEGACY.')


def test_capacity_too_small(admin, scheduler):
    _node(admin, 'small', memory_mb=16384)
    _in_use(admin, 'medium', memory_mb=32768)
    reason, details = _failure(admin, scheduler,
                               _spec(memory_mb=65536))
    assert reason == ('No node of resource class CUSTOM_BAREMETAL_GOLD has '
                      '64 GiB of memory (the largest has 32 GiB of memory).')
    assert '  with 64 GiB of memory: 0' in details


def test_requirements_met_only_apart(admin, scheduler):
    _node(admin, 'gpu', ['CUSTOM_GPU'], memory_mb=4096)
    _node(admin, 'big', memory_mb=65536)
    reason, _details = _failure(admin, scheduler, _spec(
        {'trait:CUSTOM_GPU': 'required'}, memory_mb=65536))
    assert reason == ('No node of resource class CUSTOM_BAREMETAL_GOLD has '
                      'trait CUSTOM_GPU and 64 GiB of memory together, '
                      'though each is found on some node.')


def test_every_node_in_use(admin, scheduler):
    _in_use(admin, 'a')
    _in_use(admin, 'b')
    reason, _details = _failure(admin, scheduler, _spec())
    assert reason == ('All 2 nodes of resource class CUSTOM_BAREMETAL_GOLD '
                      'are in use.')


def test_no_node_available(admin, scheduler):
    _in_use(admin, 'a')
    _node(admin, 'b', maintenance=True)
    reason, _details = _failure(admin, scheduler, _spec())
    assert reason == ('No node of resource class CUSTOM_BAREMETAL_GOLD is '
                      'available (1 in use, 1 in maintenance).')


def test_capability_mismatch(admin, scheduler):
    _node(admin, 'a', capabilities='boot_mode:uefi')
    _node(admin, 'b', capabilities='boot_mode:uefi')
    reason, details = _failure(admin, scheduler, _spec(
        {'capabilities:boot_mode': 'bios'}))
    assert reason.startswith('The ComputeCapabilitiesFilter rejected all 2 '
                             'candidate nodes: ')
    assert 'boot_mode' in reason
    # The candidate reads already leave out nodes whose capabilities text
    # lacks the value (candidates._capability_conditions).
    assert 'Scheduler stages (nodes passed): database: 0' in details
    assert 'ComputeCapabilitiesFilter rejected 2 of 2 candidates' in details


def test_not_enough_nodes_for_max_count(admin, scheduler):
    _node(admin, 'a')
    _node(admin, 'b')
    _in_use(admin, 'c')
    reason, details = _failure(admin, scheduler, _spec(), count=3)
    assert reason == ('3 nodes wanted, 2 suitable. 1 more node of resource '
                      'class CUSTOM_BAREMETAL_GOLD meets the request but is '
                      'not available.')
    assert 'Nodes wanted: 3, suitable: 2.' in details


def test_message_names_no_node(admin, scheduler):
    node = _node(admin, 'secret-name', capabilities='boot_mode:uefi')
    reason, _details = _failure(admin, scheduler, _spec(
        {'capabilities:boot_mode': 'bios'}))
    assert 'secret-name' not in reason
    assert node.uuid not in reason


def test_build_fault_has_message_and_details(admin, conf):
    _node(admin, 'plain')
    server = str(uuid.uuid4())
    builders.boot_server(admin, server)
    spec = _spec({'trait:CUSTOM_GPU': 'required'})
    manager.SchedulerManager('test', conf.conf).build_instances(
        admin, spec, [server])
    instance = objects.Instance.get_by_uuid(admin, server)
    assert instance.vm_state == instance_obj.ERROR
    assert instance.fault['code'] == 500
    assert instance.fault['message'] == (
        PREFIX + 'No node of resource class CUSTOM_BAREMETAL_GOLD has trait '
        'CUSTOM_GPU.')
    assert 'Scheduler stages (nodes passed): database: 0' in (
        instance.fault['details'])


def test_same_host_hint(admin, conf):
    conf.config(enabled_filters=scheduler_conf.DEFAULT_FILTERS + [
        'SameHostFilter'], group='filter_scheduler')
    scheduler = filter_scheduler.FilterScheduler(conf.conf)
    _node(admin, 'free')
    other = str(uuid.uuid4())
    _in_use(admin, 'busy', instance_uuid=other)
    reason, details = _failure(admin, scheduler, _spec(
        scheduler_hints={'same_host': [other]}))
    assert reason == ('The SameHostFilter rejected the only candidate node: '
                      'same_host asks for the node of a named server, and a '
                      'node holds only one server.')
    assert other not in details.split('first because')[0]


def test_affinity_group_with_a_server(admin, scheduler):
    _node(admin, 'free')
    group = objects.ServerGroup(admin, name='together', project_id='demo',
                                user_id='alice', policy='affinity', rules={})
    group.create()
    member = objects.Instance(
        admin, uuid=str(uuid.uuid4()), name='first', project_id='demo',
        user_id='alice', image_ref=IMAGE, vm_state=instance_obj.BUILDING,
        node_uuid=None, fault=None, flavor=builders.make_flavor(admin))
    server_group.create_in_group(admin, [member], _spec(), group)
    _in_use(admin, 'member-node', instance_uuid=member.uuid)
    reason, _details = _failure(admin, scheduler, _spec(
        scheduler_hints={'group': [group.uuid]}))
    assert reason == ('The ServerGroupAffinityFilter rejected the only '
                      'candidate node: the affinity group already has a '
                      'server on a node, and a node holds only one server.')


def test_image_architecture_mismatch(admin, scheduler):
    _node(admin, 'a')
    _node(admin, 'b')
    reason, details = _failure(admin, scheduler, _spec(
        image={'properties': {'hw_architecture': 'aarch64'}}))
    assert reason.startswith('The ImagePropertiesFilter rejected all 2 '
                             'candidate nodes: ')
    assert 'aarch64' in reason
    assert 'ImagePropertiesFilter: 0' in details
