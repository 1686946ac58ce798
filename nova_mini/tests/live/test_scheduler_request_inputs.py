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

"""Scheduling inputs through the running daemons (Keystone, RabbitMQ,
nova-mini-api, nova-mini-scheduler): a flavor with numbered request
groups and ``capabilities:`` extra specs, stored through the API with
strict validation; its servers land only on the nodes that meet every
group and every capability, and once those are taken the next boot fails
with "No valid host" while the decoys stay free. A flavor whose groups no
node can meet is refused with a 400.

(The image's properties reach the scheduler only once the API reads them
from Glance; functional/scheduler/test_request_inputs.py covers them.)
"""

import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-inputs-%s' % RUN
GROUP1 = 'CUSTOM_G1_%s' % RUN.upper()
NIC = 'CUSTOM_NIC_%s' % RUN.upper()
BAD = 'CUSTOM_BAD_%s' % RUN.upper()
STRICT = {'OpenStack-API-Version': 'compute 2.86'}

EXTRA_SPECS = {
    'resources:CUSTOM_%s' % RESOURCE_CLASS.upper().replace('-', '_'): '1',
    'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
    'resources:DISK_GB': '0',
    'trait1:%s' % GROUP1: 'required',
    'trait_nic:%s' % NIC: 'required',
    'trait_nic:%s' % BAD: 'forbidden',
    'group_policy': 'none',
    'capabilities:cpu_arch': 'x86_64',
    'capabilities:cpus': '>= 16',
    'capabilities:memory_mb': '>= 16384',
    'capabilities:profile': '<or> compute <or> storage',
    'capabilities:boot_mode': 'uefi',
}

GOOD = {'cpus': 32, 'memory_mb': 32768, 'local_gb': 500,
        'cpu_arch': 'x86_64', 'capabilities': 'boot_mode:uefi,profile:compute'}
# name: (traits, properties); only the "fits" nodes meet everything.
NODES = {
    'fits-1': ([GROUP1, NIC], GOOD),
    'fits-2': ([GROUP1, NIC, 'CUSTOM_EXTRA'],
               dict(GOOD, capabilities='boot_mode:uefi,profile:storage')),
    'no-group1-trait': ([NIC], GOOD),
    'no-nic-trait': ([GROUP1], GOOD),
    'forbidden-trait': ([GROUP1, NIC, BAD], GOOD),
    'arm': ([GROUP1, NIC], dict(GOOD, cpu_arch='aarch64')),
    'few-cpus': ([GROUP1, NIC], dict(GOOD, cpus=8)),
    'little-memory': ([GROUP1, NIC], dict(GOOD, memory_mb=8192)),
    'bios': ([GROUP1, NIC],
             dict(GOOD, capabilities='boot_mode:bios,profile:compute')),
    'gpu-profile': ([GROUP1, NIC],
                    dict(GOOD, capabilities='boot_mode:uefi,profile:gpu')),
}


def _flavor(stack, flavor_id, extra_specs):
    url = stack.nova.compute_url
    headers = dict(STRICT, **{'X-Auth-Token': stack.token('admin')})
    response = requests.post(url + '/flavors', json={'flavor': {
        'name': flavor_id, 'id': flavor_id, 'ram': 4096, 'vcpus': 4,
        'disk': 50}}, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    response = requests.post(
        url + '/flavors/%s/os-extra_specs' % flavor_id,
        json={'extra_specs': extra_specs}, headers=headers, timeout=30)
    assert response.status_code == 200, response.text
    return flavor_id


def test_servers_land_only_on_nodes_meeting_every_input(stack, engine):
    by_uuid = {
        helpers.insert_node(engine, RESOURCE_CLASS, traits, name,
                            properties=properties): name
        for name, (traits, properties) in NODES.items()}
    flavor = _flavor(stack, 'bm-inputs-%s' % RUN, EXTRA_SPECS)
    url = stack.nova.compute_url
    demo = {'X-Auth-Token': stack.token('demo')}
    admin = {'X-Auth-Token': stack.token('admin')}

    landed = []
    for index in range(2):
        server_id = helpers.create_server(url, demo, flavor,
                                          'inputs-%d' % index)
        server = helpers.wait_for_build(url, demo, server_id)
        assert server['status'] == 'ACTIVE', server
        shown = requests.get(url + '/servers/%s' % server_id,
                             headers=admin, timeout=30).json()['server']
        landed.append(by_uuid[shown['OS-EXT-SRV-ATTR:hypervisor_hostname']])
    assert sorted(landed) == ['fits-1', 'fits-2']

    # Every node left would break a group or a capability.
    server_id = helpers.create_server(url, demo, flavor, 'inputs-none')
    server = helpers.wait_for_build(url, demo, server_id)
    assert server['status'] == 'ERROR', server
    assert server['fault']['message'].startswith('No valid host')

    nodes = models.Node.__table__
    with engine.connect() as connection:
        taken = dict(connection.execute(
            sa.select(nodes.c.uuid, nodes.c.instance_uuid).where(
                nodes.c.uuid.in_(sorted(by_uuid)))).all())
    assert sorted(by_uuid[n] for n, i in taken.items() if i) == [
        'fits-1', 'fits-2']


def test_groups_no_node_can_meet_are_refused(stack, engine):
    helpers.insert_node(engine, RESOURCE_CLASS, [GROUP1, NIC], 'isolate',
                        properties=GOOD)
    flavor = _flavor(stack, 'bm-isolate-%s' % RUN,
                     dict(EXTRA_SPECS, group_policy='isolate'))
    url = stack.nova.compute_url
    response = requests.post(url + '/servers', json={'server': {
        'name': 'isolated', 'flavorRef': flavor,
        'imageRef': helpers.IMAGE}},
        headers={'X-Auth-Token': stack.token('demo')}, timeout=30)
    assert response.status_code == 400, response.text
    message = response.json()['badRequest']['message']
    assert 'group_policy=isolate' in message
    assert 'use group_policy=none' in message
