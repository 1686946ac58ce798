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

""""No valid host" through the real stack: a user's server that no node
suits goes to ERROR with a fault saying which requirement no node meets;
the user sees that message and no details, an administrator sees the
counts behind it in the fault's details.
"""

import time
import uuid

import pytest
import requests

from nova_mini.tests.live import helpers

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-nvh-%s' % RUN
PLACEMENT_CLASS = 'CUSTOM_BAREMETAL_NVH_%s' % RUN.upper()
TRAIT = 'CUSTOM_NVH_%s' % RUN.upper()
FLAVOR = 'bm-nvh-%s' % RUN
PREFIX = 'No valid host was found. '


def _headers(token):
    return {'X-Auth-Token': token,
            'OpenStack-API-Version': 'compute 2.47'}


@pytest.fixture
def flavor(stack):
    """A flavor asking for a node of this run's class with its trait."""
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS, [TRAIT])


@pytest.fixture
def servers(stack, admin_token):
    """The servers a test boots (ids), deleted at its end."""
    made = []
    yield made
    for server_id in made:
        requests.delete(stack.nova.compute_url + '/servers/%s' % server_id,
                        headers=_headers(admin_token), timeout=30)


def _boot(stack, token, flavor_id, servers):
    response = requests.post(stack.nova.compute_url + '/servers', json={
        'server': {'name': 'nvh-%s' % RUN, 'flavorRef': flavor_id,
                   'imageRef': helpers.IMAGE}},
        headers=_headers(token), timeout=30)
    assert response.status_code == 202, response.text
    server_id = response.json()['server']['id']
    servers.append(server_id)
    return server_id


def _show(stack, token, server_id):
    response = requests.get(
        stack.nova.compute_url + '/servers/%s' % server_id,
        headers=_headers(token), timeout=30)
    assert response.status_code == 200, response.text
    return response.json()['server']


def _wait(stack, token, server_id, timeout=60):
    deadline = time.monotonic() + timeout
    while True:
        server = _show(stack, token, server_id)
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(0.2)


def test_fault_explains_itself(stack, engine, flavor, servers, admin_token,
                               demo_token):
    plain = helpers.insert_node(engine, RESOURCE_CLASS, ['CUSTOM_OTHER'],
                                'nvh')

    # No node of the class has the trait.
    missing_id = _boot(stack, demo_token, flavor, servers)
    server = _wait(stack, demo_token, missing_id)
    assert server['status'] == 'ERROR', server
    assert server['fault']['code'] == 500
    assert server['fault']['message'] == (
        PREFIX + 'No node of resource class %s has trait %s.'
        % (PLACEMENT_CLASS, TRAIT))
    # The user sees no details; an administrator sees the counts.
    assert 'details' not in server['fault']
    details = _show(stack, admin_token, missing_id)['fault']['details']
    assert 'Nodes of resource class %s: 1 (available 1' % (
        PLACEMENT_CLASS) in details
    assert '  with trait %s: 0 (available 0' % TRAIT in details
    assert 'Scheduler stages (nodes passed): database: 0' in details

    # The one node with the trait is in use: the message says so.
    gpu = helpers.insert_node(engine, RESOURCE_CLASS, [TRAIT], 'nvh')
    active_id = _boot(stack, demo_token, flavor, servers)
    active = _wait(stack, demo_token, active_id)
    assert active['status'] == 'ACTIVE', active
    taken_id = _boot(stack, demo_token, flavor, servers)
    server = _wait(stack, demo_token, taken_id)
    assert server['status'] == 'ERROR', server
    message = server['fault']['message']
    assert message == (
        PREFIX + '1 node of resource class %s has trait %s but it is in '
        'use.' % (PLACEMENT_CLASS, TRAIT))
    # Counts only: no node's name or uuid, no server's.
    for secret in (plain, gpu, plain[:8], gpu[:8], active_id):
        assert secret not in message
    assert 'details' not in server['fault']
    details = _show(stack, admin_token, taken_id)['fault']['details']
    assert '  with trait %s: 1 (available 0, in use 1' % TRAIT in details
