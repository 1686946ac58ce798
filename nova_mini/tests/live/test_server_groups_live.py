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

"""Server groups through the real stack (Keystone, RabbitMQ, the API and
scheduler daemons): servers booted into an anti-affinity group land on
different nodes; a second server of an affinity group whose member holds
a node ends in ERROR with a fault saying why.
"""

import json
import time
import uuid

import pytest
import requests

from nova_mini.tests.live import helpers

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-sg-%s' % RUN
TRAIT = 'CUSTOM_SG_%s' % RUN.upper()
FLAVOR = 'bm-sg-%s' % RUN
HOSTNAME = 'OS-EXT-SRV-ATTR:hypervisor_hostname'


def _headers(token):
    return {'X-Auth-Token': token,
            'OpenStack-API-Version': 'compute 2.71'}


@pytest.fixture
def flavor(stack):
    """A flavor asking for a node of this run's class with its trait."""
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS, [TRAIT])


@pytest.fixture
def made(stack, admin_token):
    """The servers and groups a test makes, deleted at its end."""
    made = {'servers': [], 'os-server-groups': []}
    yield made
    for kind, ids in made.items():
        for made_id in ids:
            requests.delete(stack.nova.compute_url + '/%s/%s'
                            % (kind, made_id),
                            headers=_headers(admin_token), timeout=30)


def _group(stack, token, policy, made):
    response = requests.post(
        stack.nova.compute_url + '/os-server-groups',
        json={'server_group': {'name': 'sg-%s' % RUN, 'policy': policy}},
        headers=_headers(token), timeout=30)
    assert response.status_code == 200, response.text
    group_id = response.json()['server_group']['id']
    made['os-server-groups'].append(group_id)
    return group_id


def _boot(stack, token, group_id, made, count=1):
    name = 'sg-%s-%s' % (RUN, uuid.uuid4().hex[:4])
    response = requests.post(stack.nova.compute_url + '/servers', json={
        'server': {'name': name, 'flavorRef': FLAVOR,
                   'imageRef': helpers.IMAGE, 'min_count': count},
        'os:scheduler_hints': {'group': group_id}},
        headers=_headers(token), timeout=30)
    assert response.status_code == 202, response.text
    listed = requests.get(
        stack.nova.compute_url + '/servers?name=^%s' % name,
        headers=_headers(token), timeout=30).json()['servers']
    ids = [server['id'] for server in listed]
    assert len(ids) == count
    made['servers'].extend(ids)
    return ids


def _wait(stack, token, server_id, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        response = requests.get(
            stack.nova.compute_url + '/servers/%s' % server_id,
            headers=_headers(token), timeout=30)
        assert response.status_code == 200, response.text
        server = response.json()['server']
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(0.2)


def test_anti_affinity_then_affinity(stack, engine, flavor, made,
                                     admin_token, demo_token):
    nodes = [helpers.insert_node(engine, RESOURCE_CLASS, [TRAIT], 'sg')
             for _ in range(3)]

    # Anti-affinity: the two servers of the group get different nodes.
    spread = _group(stack, demo_token, 'anti-affinity', made)
    members = _boot(stack, demo_token, spread, made, count=2)
    placed = [_wait(stack, admin_token, server_id)
              for server_id in members]
    assert [server['status'] for server in placed] == ['ACTIVE'] * 2
    hosts = {server[HOSTNAME] for server in placed}
    assert len(hosts) == 2 and hosts <= set(nodes)
    for server in placed:
        assert server['server_groups'] == [spread]
    shown = requests.get(
        stack.nova.compute_url + '/os-server-groups/%s' % spread,
        headers=_headers(demo_token), timeout=30).json()['server_group']
    assert sorted(shown['members']) == sorted(members)

    # Affinity: the first member takes the third node; a second member
    # cannot share it, even with a free node left.
    together = _group(stack, demo_token, 'affinity', made)
    (first,) = _boot(stack, demo_token, together, made)
    assert _wait(stack, demo_token, first)['status'] == 'ACTIVE'
    helpers.insert_node(engine, RESOURCE_CLASS, [TRAIT], 'sg')
    (second,) = _boot(stack, demo_token, together, made)
    server = _wait(stack, demo_token, second)
    assert server['status'] == 'ERROR', server
    assert server['fault']['message'] == (
        'No valid host was found. The ServerGroupAffinityFilter rejected '
        'the only candidate node: the affinity group already has a server '
        'on a node, and a node holds only one server.')
    assert 'details' not in server['fault']


def _cli_json(stack, *args, **kwargs):
    return json.loads(stack.openstack(*args, '-f', 'json', **kwargs).stdout)


def test_openstack_cli_server_groups(stack):
    """python-openstackclient, unchanged: create (2.64 and 2.15 forms),
    list, show and delete groups.
    """
    name = 'cli-sg-%s' % RUN
    created = _cli_json(stack, 'server', 'group', 'create', '--policy',
                        'anti-affinity', '--rule', 'max_server_per_host=2',
                        '--os-compute-api-version', '2.64', name,
                        user='demo')
    assert created['name'] == name
    assert created['policy'] == 'anti-affinity'
    assert created['rules'] == {'max_server_per_host': 2}
    assert created['members'] == []
    soft = _cli_json(stack, 'server', 'group', 'create', '--policy',
                     'soft-affinity', '--os-compute-api-version', '2.15',
                     name + '-soft', user='demo')
    listed = _cli_json(stack, 'server', 'group', 'list', user='demo')
    assert {group['ID'] for group in listed} >= {created['id'], soft['id']}
    shown = _cli_json(stack, 'server', 'group', 'show', created['id'],
                      user='demo')
    assert shown['id'] == created['id']
    stack.openstack('server', 'group', 'delete', created['id'], soft['id'],
                    user='demo')
    gone = stack.openstack('server', 'group', 'show', created['id'],
                           user='demo', check=False)
    assert gone.returncode == 1
