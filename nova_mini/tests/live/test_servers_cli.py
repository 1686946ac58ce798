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

"""python-openstackclient (``openstack server ...``) and openstacksdk,
unchanged, booting bare-metal servers through the real stack: Keystone
tokens, nova-mini-api, a build cast over RabbitMQ to nova-mini-scheduler,
which claims a node; the clients wait for ACTIVE or ERROR as they do
against Nova.

As in test_servers_boot, the API and the scheduler of these tests run on
a RabbitMQ virtual host of their own (a topic's queue is shared by every
scheduler on a virtual host, whatever its exchange), on the stack's
database; the clients reach that API through their compute endpoint
override (``OS_COMPUTE_ENDPOINT_OVERRIDE``, ``compute_endpoint_override``)
and everything else (Keystone, the bare-metal API) through the catalog.

The image is the stack's cirros-like one in Glance: the CLI boots it as
the image root disk (``--block-device``) here, by name with ``--image``
in test_images_live, and prints its name where it finds it in Glance.
"""

import contextlib
import json
import uuid

import openstack
import pytest

from nova_mini_deploy import glance as glance_harness
from nova_mini_deploy import nova
from nova_mini_deploy import util

pytestmark = pytest.mark.live

RUN = uuid.uuid4().hex[:6]
RESOURCE_CLASS = 'baremetal-cli-%s' % RUN
TRAIT = 'CUSTOM_CLI_%s' % RUN.upper()
FLAVOR = 'bm-cli-%s' % RUN
# A flavor asking for a trait no node has: its servers end in ERROR.
NO_HOST_FLAVOR = 'bm-cli-nohost-%s' % RUN
IMAGE = glance_harness.CIRROS_ID
ROOT_DISK = ('uuid=%s,source_type=image,destination_type=local,'
             'boot_index=0' % IMAGE)
NO_VALID_HOST = 'No valid host was found'


@pytest.fixture(scope='module')
def compute_url(stack):
    """The compute URL of an API and a scheduler on a virtual host of this
    module's own.
    """
    host = 'sched-cli-%s' % RUN
    with stack.rabbit.virtual_hosts('nova_mini_cli_%s' % RUN) as urls:
        started = []
        try:
            name = 'nova-mini-scheduler-%s' % host
            extra = stack.nova.write_extra_config(name, {
                'DEFAULT': {'host': host, 'transport_url': urls[0]}})
            started.append(stack.nova.start(
                nova.SCHEDULER, name=name,
                config_files=[stack.nova.conf_path, extra]).name)
            port = util.free_port()
            name = 'nova-mini-api-cli-%s' % RUN
            extra = stack.nova.write_extra_config(name, {
                'DEFAULT': {'transport_url': urls[0]},
                'api': {'bind_port': port, 'workers': 1}})
            started.append(stack.nova.start(
                nova.API, name=name, port=port,
                config_files=[stack.nova.conf_path, extra]).name)
            yield 'http://127.0.0.1:%d/compute/v2.1' % port
        finally:
            for name in reversed(started):
                stack.nova.stop(name, timeout=30)


def _connect(stack, user, compute_url):
    creds = stack.credentials(user)
    return openstack.connect(
        auth_url=creds['OS_AUTH_URL'], username=user,
        password=creds['OS_PASSWORD'],
        project_name=creds['OS_PROJECT_NAME'],
        user_domain_name='Default', project_domain_name='Default',
        region_name=creds['OS_REGION_NAME'],
        compute_endpoint_override=compute_url)


@pytest.fixture(scope='module')
def admin(stack, compute_url):
    conn = _connect(stack, 'admin', compute_url)
    yield conn
    conn.close()


@pytest.fixture(scope='module')
def demo(stack, compute_url):
    conn = _connect(stack, 'demo', compute_url)
    yield conn
    conn.close()


@pytest.fixture(scope='module')
def flavors(admin):
    """Two public bare-metal flavors (made with the SDK): FLAVOR, whose
    servers find a node, and NO_HOST_FLAVOR, whose servers cannot.
    """
    specs = {'resources:CUSTOM_%s' % RESOURCE_CLASS.upper().replace('-', '_'):
             '1',
             'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
             'resources:DISK_GB': '0'}
    for name, trait in ((FLAVOR, TRAIT), (NO_HOST_FLAVOR, TRAIT + '_NONE')):
        flavor = admin.compute.create_flavor(
            name=name, id=name, ram=4096, vcpus=4, disk=50, is_public=True)
        admin.compute.create_flavor_extra_specs(
            flavor, dict(specs, **{'trait:%s' % trait: 'required'}))
    yield FLAVOR, NO_HOST_FLAVOR
    for name in (FLAVOR, NO_HOST_FLAVOR):
        admin.compute.delete_flavor(name, ignore_missing=True)


@pytest.fixture
def node(admin):
    """An available node with TRAIT (made with the SDK's bare-metal
    proxy); deleted after the test.
    """
    made = admin.baremetal.create_node(
        driver='fake-hardware', name='cli-%s' % uuid.uuid4().hex[:8],
        resource_class=RESOURCE_CLASS,
        properties={'cpus': 8, 'memory_mb': 8192, 'local_gb': 100})
    admin.baremetal.set_node_provision_state(made, 'manage')
    admin.baremetal.set_node_provision_state(made, 'provide')
    admin.baremetal.add_node_trait(made, TRAIT)
    yield made.id
    # A node a failed test left active cannot be deleted: leave it.
    with contextlib.suppress(openstack.exceptions.ConflictException):
        admin.baremetal.delete_node(made.id, ignore_missing=True)


def openstack_cli(stack, compute_url, *args, user='demo', check=True):
    """``openstack ARGS`` as ``user``, with the compute endpoint of these
    tests.
    """
    return stack.openstack(*args, user=user, check=check,
                           OS_COMPUTE_ENDPOINT_OVERRIDE=compute_url)


def test_openstack_server_commands(stack, compute_url, flavors, node,
                                   admin):
    def cli(*args, **kwargs):
        return openstack_cli(stack, compute_url, *args, **kwargs)

    def cli_json(*args, **kwargs):
        return json.loads(cli(*args, '-f', 'json', **kwargs).stdout)

    name = 'cli-%s' % RUN
    created = cli_json('server', 'create', '--flavor', FLAVOR,
                       '--block-device', ROOT_DISK, '--wait', name)
    assert created['status'] == 'ACTIVE', created
    assert created['name'] == name
    assert created['adminPass']
    server_id = created['id']

    shown = cli_json('server', 'show', name)
    assert shown['id'] == server_id
    assert shown['status'] == 'ACTIVE'
    # OSC negotiates 2.86: the embedded flavor, printed as a dict.
    assert shown['flavor']['original_name'] == FLAVOR
    assert (shown['flavor']['vcpus'], shown['flavor']['ram'],
            shown['flavor']['disk']) == (4, 4096, 50)
    assert shown['flavor']['extra_specs']['trait:%s' % TRAIT] == 'required'
    # OSC names the image it finds in Glance.
    assert shown['image'] == '%s (%s)' % (glance_harness.CIRROS, IMAGE)
    assert shown['OS-EXT-STS:vm_state'] == 'active'
    assert shown['OS-EXT-STS:power_state'] == 1
    assert shown['OS-SRV-USG:launched_at']
    assert shown['addresses'] == {} and shown['volumes_attached'] == []
    assert shown['locked'] is False and shown['progress'] == 0
    # The node is for administrators' eyes.
    assert shown.get('OS-EXT-SRV-ATTR:hypervisor_hostname') is None
    as_admin = cli_json('server', 'show', server_id, user='admin')
    assert as_admin['OS-EXT-SRV-ATTR:hypervisor_hostname'] == node
    row = admin.baremetal.get_node(node)
    assert (row.provision_state, row.instance_id) == ('active', server_id)

    listed = cli_json('server', 'list')
    mine = [s for s in listed if s['ID'] == server_id]
    assert mine == [{'ID': server_id, 'Name': name, 'Status': 'ACTIVE',
                     'Networks': {}, 'Image': glance_harness.CIRROS,
                     'Flavor': FLAVOR}]
    by_id = cli_json('server', 'list', '--no-name-lookup', '--name',
                     '^%s$' % name)
    assert [(s['ID'], s['Image']) for s in by_id] == [(server_id, IMAGE)]
    assert server_id not in {
        s['ID'] for s in cli_json('server', 'list', '--status', 'ERROR')}
    # all_tenants with project_id, for administrators only.
    demo_servers = cli_json('server', 'list', '--all-projects', '--project',
                            'demo', user='admin')
    assert server_id in {s['ID'] for s in demo_servers}
    proc = cli('server', 'list', '--all-projects', check=False)
    assert proc.returncode == 1
    assert 'get_all_tenants' in proc.stderr

    # No node has the trait of this flavor: --wait fails, the fault says
    # why.
    failed_name = 'cli-nohost-%s' % RUN
    proc = cli('server', 'create', '--flavor', NO_HOST_FLAVOR,
               '--block-device', ROOT_DISK, '--wait', failed_name,
               check=False)
    assert proc.returncode == 1
    assert 'Error creating server: %s' % failed_name in proc.stderr
    failed = cli_json('server', 'show', failed_name)
    assert failed['status'] == 'ERROR'
    assert failed['fault']['message'].startswith(NO_VALID_HOST)
    assert failed['fault']['code'] == 500
    errors = cli_json('server', 'list', '--status', 'ERROR')
    assert failed['id'] in {s['ID'] for s in errors}

    cli('server', 'delete', '--wait', name, failed_name)
    gone = cli('server', 'show', name, check=False)
    assert gone.returncode == 1
    assert 'No Server found for %s' % name in gone.stderr
    row = admin.baremetal.get_node(node)
    assert (row.provision_state, row.instance_id) == ('available', None)


def test_openstacksdk_servers(flavors, node, admin, demo):
    name = 'sdk-%s' % RUN
    flavor = demo.compute.find_flavor(FLAVOR, ignore_missing=False)
    server = demo.compute.create_server(
        name=name, flavor_id=flavor.id, image_id=IMAGE, networks='none')
    assert server.admin_password
    assert server.links[0]['href'].endswith('/servers/%s' % server.id)

    server = demo.compute.wait_for_server(server, interval=0.5, wait=90)
    assert server.status == 'ACTIVE'
    assert server.name == name
    assert server.image.id == IMAGE
    assert server.flavor.original_name == FLAVOR
    assert server.flavor.vcpus == 4
    assert server.vm_state == 'active' and server.task_state is None
    assert server.power_state == 1
    assert server.launched_at and server.host_id
    assert demo.compute.find_server(name).id == server.id
    assert admin.compute.get_server(server.id).hypervisor_hostname == node

    failed = demo.compute.create_server(
        name='sdk-nohost-%s' % RUN, flavor_id=NO_HOST_FLAVOR,
        image_id=IMAGE)
    with pytest.raises(openstack.exceptions.ResourceFailure):
        demo.compute.wait_for_server(failed, interval=0.5, wait=90)
    failed = demo.compute.get_server(failed.id)
    assert failed.status == 'ERROR'
    assert failed.fault['code'] == 500
    assert failed.fault['message'].startswith(NO_VALID_HOST)

    # One server a page: the SDK follows the servers_links.
    paged = [s.id for s in demo.compute.servers(details=False, limit=1)]
    assert {server.id, failed.id} <= set(paged)
    assert len(paged) == len(set(paged))
    named = list(demo.compute.servers(name='^%s$' % name))
    assert [s.id for s in named] == [server.id]

    for doomed in (server, failed):
        demo.compute.delete_server(doomed)
        demo.compute.wait_for_delete(doomed, interval=0.5, wait=60)
    with pytest.raises(openstack.exceptions.NotFoundException):
        demo.compute.get_server(server.id)
    assert demo.compute.find_server(name) is None
    row = admin.baremetal.get_node(node)
    assert (row.provision_state, row.instance_id) == ('available', None)
