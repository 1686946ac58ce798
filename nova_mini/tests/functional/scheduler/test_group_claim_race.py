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

"""Servers of one server group booted at the same moment, on real
databases (every backend of the ``backend`` fixture), from real threads
each with its own scheduler and connection.

The group's filters read the members' nodes in the claim's transaction,
after the group's row is locked: claims into one group take turns. Each
selection is also slowed down between that read and the claim (the read
returns, then the thread sleeps), which without the lock would let every
request read an empty group and land.
"""

import threading
import time
import uuid

import pytest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import server_group
from nova_mini.objects import request_spec
from nova_mini.scheduler import filter_scheduler
from nova_mini import states
from nova_mini.tests.fixtures import builders

# Seconds each selection waits after reading the group (the window two
# requests would both read an empty group in).
READ_PAUSE = 0.3


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


@pytest.fixture
def slow_group_reads(monkeypatch):
    read = server_group.placement_of

    def placement_of(context, group_uuid):
        found = read(context, group_uuid)
        time.sleep(READ_PAUSE)
        return found

    monkeypatch.setattr(server_group, 'placement_of', placement_of)


def _nodes(admin, count):
    return [builders.create_node(
        admin, 'n%d' % index, resource_class='baremetal-gold',
        provision_state=states.AVAILABLE,
        properties=builders.node_properties(memory_mb=4096 + index))
        for index in range(count)]


def _group(admin, policy, members):
    group = objects.ServerGroup(admin, name=policy, project_id='demo',
                                user_id='alice', policy=policy, rules={})
    group.create()
    instances = [objects.Instance(
        admin, uuid=str(uuid.uuid4()), name='member-%d' % index,
        project_id='demo', user_id='alice', image_ref='c0ffee00-0000-4000-8000-000000000001',
        vm_state=instance_obj.BUILDING, node_uuid=None, fault=None,
        flavor=builders.make_flavor(admin)) for index in range(members)]
    server_group.create_in_group(admin, instances, _spec(group), group)
    return group, [instance.uuid for instance in instances]


def _spec(group):
    flavor = builders.make_flavor(
        memory_mb=1024, vcpus=2,
        extra_specs={'resources:CUSTOM_BAREMETAL_GOLD': '1'})
    return request_spec.RequestSpec.from_components(
        None, flavor, scheduler_hints={'group': [group.uuid]})


def _boot_at_once(conf, group, members):
    """Claim a node for each member from its own thread, all released at
    once; ``{member: node uuid or the NoValidHost}``.
    """
    outcome = {}
    start = threading.Barrier(len(members))

    def boot(member):
        driver = filter_scheduler.FilterScheduler(conf.conf)
        ctxt = nm_context.get_admin_context()
        start.wait()
        try:
            [selection] = driver.claim_destinations(ctxt, _spec(group),
                                                    [member])
            outcome[member] = selection.node_uuid
        except exception.NoValidHost as exc:
            outcome[member] = exc

    threads = [threading.Thread(target=boot, args=(member,))
               for member in members]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert len(outcome) == len(members)
    return outcome


def _placed(admin, members):
    """``{member: node uuid}`` as the database has it."""
    return {node.instance_uuid: node.uuid
            for node in objects.NodeList.get_all(admin)
            if node.instance_uuid in members}


def test_first_boots_into_empty_affinity_group(admin, conf,
                                               slow_group_reads):
    """Two servers booted at once into an empty affinity group: one
    lands, the other fails with the affinity reason, never both.
    """
    _nodes(admin, 4)
    group, members = _group(admin, server_group.AFFINITY, 2)
    outcome = _boot_at_once(conf, group, members)
    landed = [m for m, found in outcome.items() if isinstance(found, str)]
    failed = [found for found in outcome.values()
              if isinstance(found, exception.NoValidHost)]
    assert len(landed) == 1 and len(failed) == 1
    assert 'the affinity group already has a server on a node' in (
        failed[0].format_message())
    assert _placed(admin, members) == {landed[0]: outcome[landed[0]]}


def test_many_boots_into_empty_affinity_group(admin, conf):
    """Six at once, without slowing anything down: exactly one lands."""
    _nodes(admin, 8)
    group, members = _group(admin, server_group.AFFINITY, 6)
    outcome = _boot_at_once(conf, group, members)
    landed = [m for m, found in outcome.items() if isinstance(found, str)]
    assert len(landed) == 1
    assert len(_placed(admin, members)) == 1


def test_anti_affinity_boots_at_once_use_distinct_nodes(admin, conf,
                                                        slow_group_reads):
    """Anti-affinity members booted at once, one node each while nodes
    last: none shares a node, every one lands.
    """
    _nodes(admin, 3)
    group, members = _group(admin, server_group.ANTI_AFFINITY, 3)
    outcome = _boot_at_once(conf, group, members)
    assert all(isinstance(found, str) for found in outcome.values())
    placed = _placed(admin, members)
    assert placed == outcome
    assert len(set(placed.values())) == 3


def test_anti_affinity_more_members_than_nodes(admin, conf):
    """Four members, two nodes: two land on distinct nodes, two fail."""
    _nodes(admin, 2)
    group, members = _group(admin, server_group.ANTI_AFFINITY, 4)
    outcome = _boot_at_once(conf, group, members)
    landed = {m: found for m, found in outcome.items()
              if isinstance(found, str)}
    assert len(landed) == 2 and len(set(landed.values())) == 2
    assert _placed(admin, members) == landed


def test_claim_failure_leaves_the_group_open(admin, conf):
    """The loser's claim is rolled back whole: the group's one server is
    the winner's, and once it is gone (its node freed) a new first boot
    lands.
    """
    _nodes(admin, 2)
    group, members = _group(admin, server_group.AFFINITY, 2)
    outcome = _boot_at_once(conf, group, members)
    [winner] = [m for m, found in outcome.items() if isinstance(found, str)]
    [loser] = [m for m in members if m != winner]
    objects.Node.unclaim(admin, outcome[winner], winner)
    driver = filter_scheduler.FilterScheduler(conf.conf)
    [selection] = driver.claim_destinations(admin, _spec(group), [loser])
    assert _placed(admin, members) == {loser: selection.node_uuid}
