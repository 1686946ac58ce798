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

"""The conductors registry's rules: which conductor is alive, which one a
node has, and the node filter of a conductor's nodes.
"""

import datetime
import types

from oslo_utils import timeutils

from nova_mini.objects.baremetal import conductor


def _row(online=True, age=0):
    return types.SimpleNamespace(
        online=online,
        updated_at=timeutils.utcnow() - datetime.timedelta(seconds=age))


def test_alive_while_online_and_recently_refreshed(conf):
    timeout = conf.conf.conductor.heartbeat_timeout
    assert conductor.is_alive(_row())
    assert conductor.is_alive(_row(age=timeout - 5))
    assert not conductor.is_alive(_row(age=timeout + 5))
    assert not conductor.is_alive(_row(online=False))


def test_the_timeout_is_the_option(conf):
    conf.config(heartbeat_timeout=5, group='conductor')
    assert not conductor.is_alive(_row(age=10))


def test_no_conductor_without_an_alive_one():
    assert conductor.conductor_for(7, []) is None
    assert conductor.slot_of('a', []) is None


def test_each_node_has_one_conductor_and_the_filter_finds_it():
    hosts = ['a', 'b', 'c']
    for node_id in range(1, 30):
        host = conductor.conductor_for(node_id, hosts)
        index, count = conductor.slot_of(host, hosts)
        assert node_id % count == index
        for other in set(hosts) - {host}:
            index, count = conductor.slot_of(other, hosts)
            assert node_id % count != index
    assert {conductor.conductor_for(i, hosts) for i in range(3)} == set(
        hosts)


def test_a_host_that_is_not_alive_has_no_node():
    assert conductor.slot_of('gone', ['a', 'b']) is None
