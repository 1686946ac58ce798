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

"""Booting servers through the real stack: nova-mini-api (Keystone
tokens) casts the build over RabbitMQ to nova-mini-scheduler, which
claims a node, runs its deploy-time trait check and records the outcome;
the test polls GET /servers/{id} as a client does.

An API and a scheduler of this test run on a RabbitMQ virtual host of
their own (see test_scheduler_claims: a topic's queue is shared by every
scheduler on a virtual host, whatever its exchange), on the stack's
database. The "no scheduler" case runs an API on a second, empty virtual
host with a short rpc_response_timeout.
"""

import time
import uuid

import pytest
import requests
import sqlalchemy as sa

from nova_mini.db import models
from nova_mini.tests.live import helpers
from nova_mini_deploy import nova

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-boot-%s' % RUN
TRAIT = 'CUSTOM_BOOT_%s' % RUN.upper()
FLAVOR = 'bm-boot-%s' % RUN
TIMEOUT = 3


@pytest.fixture
def vhosts(stack):
    """Two RabbitMQ virtual hosts of this test: their transport URLs."""
    names = ['nova_mini_boot_%s_%d' % (RUN, i) for i in range(2)]
    with stack.rabbit.virtual_hosts(*names) as urls:
        yield urls


@pytest.fixture
def boot_apis(stack, vhosts, extra_api):
    """(URL of an API with a scheduler, URL of an API without one)."""
    host = 'sched-boot-%s' % RUN
    name = 'nova-mini-scheduler-%s' % host
    extra = stack.nova.write_extra_config(name, {
        'DEFAULT': {'host': host, 'transport_url': vhosts[0]}})
    sched = stack.nova.start(nova.SCHEDULER, name=name,
                             config_files=[stack.nova.conf_path, extra])
    try:
        _proc, port = extra_api(sections={
            'DEFAULT': {'transport_url': vhosts[0]}})
        _proc2, port2 = extra_api(sections={
            'DEFAULT': {'transport_url': vhosts[1],
                        'rpc_response_timeout': TIMEOUT}})
        yield ('http://127.0.0.1:%d/compute/v2.1' % port,
               'http://127.0.0.1:%d/compute/v2.1' % port2)
    finally:
        stack.nova.stop(sched.name, timeout=30)


def _node_row(engine, node_uuid):
    nodes = models.Node.__table__
    with engine.connect() as connection:
        return connection.execute(sa.select(nodes).where(
            nodes.c.uuid == node_uuid)).first()


def _headers(token, version='2.47'):
    return {'X-Auth-Token': token,
            'OpenStack-API-Version': 'compute %s' % version}


@pytest.fixture
def flavor(stack):
    return helpers.make_flavor(stack, FLAVOR, RESOURCE_CLASS, [TRAIT])


def test_boot_active_error_and_no_scheduler(boot_apis, engine, flavor,
                                            admin_token, stack, vhosts):
    with_scheduler, without_scheduler = boot_apis
    headers = _headers(admin_token)
    name = 'boot-%s' % RUN

    # A node with the required trait: ACTIVE on it.
    good = helpers.insert_node(engine, RESOURCE_CLASS, [TRAIT, 'CUSTOM_EXTRA'],
                               'boot')
    server_id = helpers.create_server(with_scheduler, headers, flavor, name)
    server = helpers.wait_for_build(with_scheduler, headers, server_id)
    assert server['status'] == 'ACTIVE', server
    assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] == good
    assert server['flavor']['original_name'] == FLAVOR
    row = _node_row(engine, good)
    assert row.provision_state == 'active'
    assert row.instance_uuid == server_id
    # The deploy leased the node to the server's project, as Ironic does;
    # the claim recorded the image read from Glance.
    info = dict(row.instance_info)
    assert {key: info.pop(key) for key in (
        'traits', 'project_id', 'image_source', 'image_properties')} == {
            'traits': [TRAIT], 'project_id': server['tenant_id'],
            'image_source': helpers.IMAGE, 'image_properties': {}}
    # The root partition by the server's disk configuration: MANUAL, the
    # flavor's disk (50); AUTO, the node's whole disk (100).
    auto = server['OS-DCF:diskConfig'] == 'AUTO'
    assert {key: info.pop(key) for key in ('auto_disk_config', 'root_gb')
            } == {'auto_disk_config': auto,
                  'root_gb': '100' if auto else '50'}
    assert sorted(info) == [
        'image_checksum', 'image_container_format', 'image_disk_format',
        'image_os_hash_algo', 'image_os_hash_value', 'image_tags']
    assert row.lessee == server['tenant_id']

    # Only a node missing the trait is left: ERROR, No valid host.
    bad = helpers.insert_node(engine, RESOURCE_CLASS, ['CUSTOM_EXTRA'], 'boot')
    failed_id = helpers.create_server(with_scheduler, headers, flavor, name)
    failed = helpers.wait_for_build(with_scheduler, headers, failed_id)
    assert failed['status'] == 'ERROR', failed
    assert failed['fault']['message'].startswith('No valid host was found')
    assert _node_row(engine, bad).instance_uuid is None

    # Deleting the ACTIVE server frees its node.
    response = requests.delete(with_scheduler + '/servers/%s' % server_id,
                               headers=headers, timeout=30)
    assert response.status_code == 204
    row = _node_row(engine, good)
    assert row.provision_state == 'available'
    assert row.instance_uuid is None

    # No scheduler queue on the broker (none ever started): the broker
    # returns the build, 503 and nothing written.
    refused = requests.post(
        without_scheduler + '/servers', headers=headers, timeout=30,
        json={'server': {'name': name, 'flavorRef': flavor,
                         'imageRef': helpers.IMAGE}})
    assert refused.status_code == 503, refused.text
    assert refused.json()['serviceUnavailable']['message'].startswith(
        'No scheduler listens on the message broker')
    assert refused.headers['Retry-After']
    listed = requests.get(without_scheduler + '/servers?name=^%s$' % name,
                          headers=headers, timeout=30).json()['servers']
    assert [s['id'] for s in listed] == [failed_id]

    # A scheduler queue nobody consumes (its schedulers gone): ERROR once
    # rpc_response_timeout passed.
    helpers.declare_scheduler_queue(stack, vhosts[1])
    started = time.monotonic()
    lost_id = helpers.create_server(without_scheduler, headers, flavor, name)
    lost = helpers.wait_for_build(without_scheduler, headers, lost_id,
                                  TIMEOUT + 10)
    assert lost['status'] == 'ERROR', lost
    assert lost['fault']['message'].startswith(
        'Timed out waiting for a scheduler')
    assert time.monotonic() - started < TIMEOUT + 10
    assert _node_row(engine, good).instance_uuid is None
