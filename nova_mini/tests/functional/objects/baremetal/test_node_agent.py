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

"""A node's ramdisk agent in the database (objects.baremetal.node_agent), on every
backend: the node found by its ports' MAC addresses, and the agent token
given once.
"""

import concurrent.futures
import threading

import pytest

from nova_mini import context as nm_context
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import node_agent
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

THREADS = 8


def test_token_given_once(admin):
    node = builders.create_node(admin, 'n', driver_internal_info={
        'agent_secret_token_pregenerated': True, 'kept': 1})
    token = node_agent.issue_token(admin, node)
    assert len(token) >= 32
    # The object given is updated as stored.
    assert node.driver_internal_info == {'agent_secret_token': token,
                                         'kept': 1}
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.driver_internal_info == {'agent_secret_token': token,
                                           'kept': 1}
    assert node_agent.token_valid(stored, token)
    assert not node_agent.token_valid(stored, token + 'x')
    assert not node_agent.token_valid(stored, None)
    # A second lookup learns nothing and changes nothing.
    assert node_agent.issue_token(admin, stored) == '******'
    again = objects.Node.get_by_uuid(admin, node.uuid)
    assert again.driver_internal_info == stored.driver_internal_info
    assert again.updated_at == stored.updated_at


def test_racing_lookups_give_out_one_token(admin):
    node = builders.create_node(admin, 'n', driver_internal_info={'kept': 1})
    start = threading.Barrier(THREADS)

    def lookup():
        context = nm_context.get_admin_context()
        mine = objects.Node.get_by_uuid(context, node.uuid)
        start.wait(30)
        return node_agent.issue_token(context, mine)

    with concurrent.futures.ThreadPoolExecutor(THREADS) as pool:
        tokens = [f.result() for f in [pool.submit(lookup)
                                       for _ in range(THREADS)]]
    given = [t for t in tokens if t != node_agent.MASKED_TOKEN]
    assert len(given) == 1, tokens
    stored = objects.Node.get_by_uuid(admin, node.uuid)
    assert stored.driver_internal_info == {'agent_secret_token': given[0],
                                           'kept': 1}


def test_no_token_for_a_node_gone(admin):
    with pytest.raises(exception_baremetal.NodeNotFound):
        node_agent.issue_token(admin, objects.Node(
            admin, id=12345, uuid='4f1c1f9e-2a57-4e43-9a0c-3f0d1d5c2b11',
            driver_internal_info={}))


def test_node_by_addresses(admin):
    one = builders.create_node(admin, 'one')
    two = builders.create_node(admin, 'two')
    builders.create_port(admin, one, '52:54:00:00:00:01')
    builders.create_port(admin, one, '52:54:00:00:00:02')
    builders.create_port(admin, two, '52:54:00:00:00:03')
    assert node_agent.node_uuid_by_addresses(
        admin, ['52:54:00:00:00:01', '52:54:00:00:00:02']) == one.uuid
    assert node_agent.node_uuid_by_addresses(
        admin, ['52:54:00:00:00:03', '52:54:00:00:00:09']) == two.uuid
    for addresses in (['52:54:00:00:00:09'],
                      ['52:54:00:00:00:01', '52:54:00:00:00:03']):
        with pytest.raises(exception_baremetal.NodeNotFound):
            node_agent.node_uuid_by_addresses(admin, addresses)
