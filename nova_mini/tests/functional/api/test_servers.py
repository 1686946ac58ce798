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

"""Booting servers in one process: the compute API (webtest) casts the
build over oslo.messaging's in-memory ``fake`` driver to a real scheduler
RPC server (threading executor), both on one fresh SQLite database.

The live counterpart (RabbitMQ, the daemons):
nova_mini/tests/live/test_servers_boot.py.
"""

import threading
import time

import oslo_messaging as messaging
import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import exception
from nova_mini import objects
from nova_mini.objects.compute import instance as instance_obj
from nova_mini.objects.compute import instance_action
from nova_mini.objects import request_spec
from nova_mini import rpc
from nova_mini.scheduler import manager
from nova_mini.scheduler import rpcapi
from nova_mini import states
from nova_mini.tests.fixtures import builders

V21 = '/compute/v2.1'
ADMIN = {'X-Auth-Token': 'admin:admin'}
DEMO = {'X-Auth-Token': 'demo:demo'}
TRAIT = 'CUSTOM_GOLD'


@pytest.fixture
def stack(api_fixture_factory):
    """(webtest app, the scheduler manager); the RPC server runs."""
    fixture = api_fixture_factory()
    conf = fixture.conf
    scheduler = manager.SchedulerManager('unit', conf)
    server = rpc.get_server(
        conf, messaging.Target(topic=rpcapi.TOPIC, server='unit'),
        [scheduler])
    server.start()
    admin = nm_context.get_admin_context()
    flavor = objects.Flavor(
        admin, flavorid='bm-gold', name='bm-gold', memory_mb=1024, vcpus=1,
        root_gb=10, is_public=True,
        extra_specs={'resources:CUSTOM_BAREMETAL': '1',
                     'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                     'resources:DISK_GB': '0',
                     'trait:%s' % TRAIT: 'required'})
    flavor.create()
    try:
        yield webtest.TestApp(fixture.app), scheduler, fixture
    finally:
        server.stop()
        server.wait()


def _node(name, traits=()):
    return builders.create_node(
        nm_context.get_admin_context(), name, traits,
        resource_class='baremetal', provision_state=states.AVAILABLE,
        properties=builders.node_properties(1, 1024, 10))


def _boot(app, flavor='bm-gold', headers=DEMO, **extra):
    body = {'server': dict({'name': 'srv', 'flavorRef': flavor,
                            'imageRef': 'c0ffee00-0000-4000-8000-000000000001'}, **extra)}
    response = app.post_json(V21 + '/servers', body, headers=headers)
    assert response.status_int == 202
    return response.json['server']


def _wait(app, server_id, headers=ADMIN, timeout=10, version=None):
    headers = dict(headers)
    if version:
        headers['OpenStack-API-Version'] = 'compute %s' % version
    deadline = time.monotonic() + timeout
    while True:
        server = app.get(V21 + '/servers/%s' % server_id,
                         headers=headers).json['server']
        if server['status'] != 'BUILD' or time.monotonic() > deadline:
            return server
        time.sleep(0.05)


def test_boot_on_a_node_with_the_traits(stack):
    app, _scheduler, _fixture = stack
    node = _node('gold', traits=[TRAIT, 'CUSTOM_OTHER'])
    created = _boot(app)
    assert set(created) >= {'id', 'links', 'OS-DCF:diskConfig', 'adminPass'}
    assert created['OS-DCF:diskConfig'] == 'MANUAL'
    server = _wait(app, created['id'])
    assert server['status'] == 'ACTIVE', server
    assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] == node.uuid
    assert server['tenant_id'] == 'demo'
    assert server['flavor']['id'] == 'bm-gold'
    assert 'fault' not in server
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    assert stored.provision_state == states.ACTIVE
    assert stored.instance_uuid == created['id']
    # The deploy leased the node to the server's project, as Ironic does.
    assert stored.instance_info == {'traits': [TRAIT], 'project_id': 'demo',
                                    'root_gb': '10',
                                    'auto_disk_config': False}
    assert stored.lessee == 'demo'
    # The owner sees it, without the node.
    own = app.get(V21 + '/servers/%s' % created['id'],
                  headers=DEMO).json['server']
    assert 'OS-EXT-SRV-ATTR:hypervisor_hostname' not in own
    listed = app.get(V21 + '/servers', headers=DEMO).json['servers']
    assert [s['id'] for s in listed] == [created['id']]
    detail = app.get(V21 + '/servers/detail', headers=DEMO).json['servers']
    assert detail[0]['status'] == 'ACTIVE'


def test_flavor_snapshot_from_2_47(stack):
    app, _scheduler, _fixture = stack
    _node('gold', traits=[TRAIT])
    created = _boot(app)
    _wait(app, created['id'])
    # Later flavor changes do not reach the server's copy.
    objects.Flavor.get_by_flavor_id(
        nm_context.get_admin_context(), 'bm-gold').destroy()
    server = _wait(app, created['id'], version='2.47')
    assert server['flavor'] == {
        'vcpus': 1, 'ram': 1024, 'disk': 10, 'ephemeral': 0, 'swap': 0,
        'original_name': 'bm-gold',
        'extra_specs': {'resources:CUSTOM_BAREMETAL': '1',
                        'resources:VCPU': '0', 'resources:MEMORY_MB': '0',
                        'resources:DISK_GB': '0',
                        'trait:%s' % TRAIT: 'required'}}
    old = _wait(app, created['id'], version='2.46')
    assert old['flavor']['id'] == 'bm-gold'
    assert set(old['flavor']) == {'id', 'links'}


def test_no_node_with_the_traits_is_an_error_fault(stack):
    app, _scheduler, _fixture = stack
    node = _node('plain', traits=['CUSTOM_OTHER'])
    created = _boot(app)
    server = _wait(app, created['id'], headers=DEMO)
    assert server['status'] == 'ERROR'
    assert server['fault']['code'] == 500
    assert server['fault']['message'].startswith('No valid host was found.')
    assert server['fault']['created']
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    assert stored.instance_uuid is None
    assert stored.provision_state == states.AVAILABLE


def test_several_instances_get_distinct_nodes(stack):
    app, _scheduler, _fixture = stack
    nodes = {_node('n%d' % i, traits=[TRAIT]).uuid for i in range(3)}
    _boot(app, min_count=3, max_count=3)
    deadline = time.monotonic() + 10
    while True:
        servers = app.get(V21 + '/servers/detail?all_tenants=1',
                          headers=ADMIN).json['servers']
        if all(s['status'] != 'BUILD' for s in servers) or (
                time.monotonic() > deadline):
            break
        time.sleep(0.05)
    assert sorted(s['name'] for s in servers) == ['srv-1', 'srv-2', 'srv-3']
    assert {s['status'] for s in servers} == {'ACTIVE'}
    assert {s['OS-EXT-SRV-ATTR:hypervisor_hostname']
            for s in servers} == nodes


def test_deploy_time_trait_check_fails_the_build(stack, monkeypatch):
    """A node losing the trait between selection and deploy: the node's
    own deploy check refuses it, the claim is undone.
    """
    app, scheduler, _fixture = stack
    node = _node('gold', traits=[TRAIT])
    real_claim = scheduler.driver.claim_destinations

    def claim_then_lose_trait(ctxt, spec_obj, instance_uuids):
        selections = real_claim(ctxt, spec_obj, instance_uuids)
        objects.NodeTrait.destroy(ctxt, node.id, TRAIT, node.uuid)
        return selections

    monkeypatch.setattr(scheduler.driver, 'claim_destinations',
                        claim_then_lose_trait)
    created = _boot(app)
    server = _wait(app, created['id'])
    assert server['status'] == 'ERROR', server
    assert 'No valid host was found' in server['fault']['message']
    assert TRAIT in server['fault']['message']
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    assert stored.instance_uuid is None
    assert stored.provision_state == states.AVAILABLE


def test_delete_frees_the_node(stack):
    app, _scheduler, _fixture = stack
    node = _node('gold', traits=[TRAIT])
    created = _boot(app)
    assert _wait(app, created['id'])['status'] == 'ACTIVE'
    response = app.delete(V21 + '/servers/%s' % created['id'],
                          headers=DEMO)
    assert response.status_int == 204
    app.get(V21 + '/servers/%s' % created['id'], headers=ADMIN, status=404)
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    assert stored.instance_uuid is None
    assert stored.provision_state == states.AVAILABLE
    assert stored.instance_info == {}


def test_build_of_a_deleted_instance_frees_the_node(stack, monkeypatch):
    """The server is deleted while the scheduler builds it: marking it
    ACTIVE fails, and the scheduler gives the node back.
    """
    app, scheduler, _fixture = stack
    node = _node('gold', traits=[TRAIT])
    real_mark = instance_obj.Instance.mark_active

    def deleted_meanwhile(self, node_uuid):
        self.destroy()
        return real_mark(self, node_uuid)

    monkeypatch.setattr(instance_obj.Instance, 'mark_active',
                        deleted_meanwhile)
    created = _boot(app)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if app.get(V21 + '/servers/%s' % created['id'], headers=ADMIN,
                   expect_errors=True).status_int == 404:
            break
        time.sleep(0.05)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                          node.uuid)
        if stored.provision_state == states.AVAILABLE:
            break
        time.sleep(0.05)
    assert stored.provision_state == states.AVAILABLE
    assert stored.instance_uuid is None


def test_unknown_flavor_is_a_bad_request(stack):
    app, _scheduler, _fixture = stack
    response = app.post_json(
        V21 + '/servers', {'server': {'name': 's', 'flavorRef': 'nope'}},
        headers=DEMO, expect_errors=True)
    assert response.status_int == 400
    assert 'nope' in response.json['badRequest']['message']
    response = app.post_json(
        V21 + '/servers', {'server': {'name': 's', 'flavorRef': 'bm-gold',
                                      'bogus': 1}},
        headers=DEMO, expect_errors=True)
    assert response.status_int == 400


def test_each_server_keeps_its_request_spec(stack):
    app, _scheduler, _fixture = stack
    _node('keep-1', traits=[TRAIT])
    _node('keep-2', traits=[TRAIT])
    admin = nm_context.get_admin_context()
    group = app.post_json(
        V21 + '/os-server-groups',
        {'server_group': {'name': 'g1', 'policies': ['anti-affinity']}},
        headers=DEMO).json['server_group']['id']
    response = app.post_json(
        V21 + '/servers',
        {'server': {'name': 'srv', 'flavorRef': 'bm-gold',
                    'imageRef': 'c0ffee00-0000-4000-8000-000000000001', 'max_count': 2},
         'os:scheduler_hints': {'group': group}}, headers=DEMO)
    first = response.json['server']
    servers = [s for s in app.get(V21 + '/servers', headers=DEMO)
               .json['servers'] if s['name'].startswith('srv-')]
    assert first['id'] in {s['id'] for s in servers} and len(servers) == 2
    for server in servers:
        assert _wait(app, server['id'])['status'] == 'ACTIVE'
        spec = request_spec.RequestSpec.get_by_instance_uuid(
            admin, server['id'])
        assert spec.instance_uuids == [server['id']]
        assert spec.num_instances == 2
        assert (spec.project_id, spec.user_id) == ('demo', 'demo')
        assert spec.image.id == 'c0ffee00-0000-4000-8000-000000000001'
        assert spec.required_traits == [TRAIT]
        assert spec.resources == {'CUSTOM_BAREMETAL': 1}
        assert spec.scheduler_hints == {'group': [group]}
        app.delete(V21 + '/servers/%s' % server['id'], headers=DEMO)
        with pytest.raises(exception.RequestSpecNotFound):
            request_spec.RequestSpec.get_by_instance_uuid(admin,
                                                          server['id'])


def test_availability_zone(stack):
    """One zone, "nova"; administrators may name the node in it."""
    app, _scheduler, _fixture = stack
    admin = nm_context.get_admin_context()
    _node('az-1', traits=[TRAIT])
    wanted = _node('az-2', traits=[TRAIT])

    def boot(zone, headers=DEMO):
        return app.post_json(
            V21 + '/servers',
            {'server': {'name': 'az', 'flavorRef': 'bm-gold',
                        'imageRef': 'c0ffee00-0000-4000-8000-000000000001',
                        'availability_zone': zone}},
            headers=headers, expect_errors=True)

    refused = [(boot('elsewhere'), 400,
                'The requested availability zone is not available'),
               (boot('nova::az-2'), 403, 'create:forced_host'),
               (boot('nova:compute-1', ADMIN), 400, 'no compute hosts'),
               (boot('nova:compute-1:az-2', ADMIN), 400, 'no compute hosts')]
    for response, status, message in refused:
        assert response.status_int == status, response.text
        fault = response.json['badRequest' if status == 400 else 'forbidden']
        assert message in fault['message']
    assert objects.InstanceList.get_all(admin).objects == []

    server = _wait(app, boot('nova', DEMO).json['server']['id'])
    assert server['status'] == 'ACTIVE'
    assert server['OS-EXT-AZ:availability_zone'] == 'nova'
    # Named by name (or uuid), the node is the one used, whatever the
    # weighers prefer.
    for ref in ('nova::az-2', '::%s' % wanted.uuid):
        app.delete(V21 + '/servers/%s' % server['id'], headers=ADMIN)
        server = _wait(app, boot(ref, ADMIN).json['server']['id'])
        assert server['status'] == 'ACTIVE'
        assert server['OS-EXT-SRV-ATTR:hypervisor_hostname'] == wanted.uuid
        spec = request_spec.RequestSpec.get_by_instance_uuid(admin,
                                                             server['id'])
        assert spec.availability_zone == ('nova' if ref[0] == 'n' else None)
    # A named node that cannot take the server: no valid host.
    app.delete(V21 + '/servers/%s' % server['id'], headers=ADMIN)
    objects.NodeTraitList.destroy(admin, wanted.id)
    server = _wait(app, boot('nova::az-2', ADMIN).json['server']['id'])
    assert server['status'] == 'ERROR'
    assert server['fault']['message'].startswith('No valid host was found')


def test_a_flavor_without_a_spec_writes_nothing(stack):
    """A flavor whose requirements cannot be derived (a resource amount
    that is no number) is refused before any instance is written.
    """
    app, _scheduler, _fixture = stack
    admin = nm_context.get_admin_context()
    builders.create_flavor(
        admin, 'bm-odd', memory_mb=1, vcpus=1, root_gb=1,
        extra_specs={'resources:CUSTOM_BAREMETAL': 'one'})
    response = app.post_json(
        V21 + '/servers', {'server': {'name': 'odd', 'flavorRef': 'bm-odd',
                                      'imageRef': 'c0ffee00-0000-4000-8000-000000000001',
                                      'max_count': 3}},
        headers=DEMO, expect_errors=True)
    assert response.status_int == 400
    assert 'resources:CUSTOM_BAREMETAL' in (
        response.json['badRequest']['message'])
    assert objects.InstanceList.get_all(admin).objects == []


def _create_events(ctxt, instance_uuid):
    """The events of the server's create action."""
    (action,) = instance_action.list_actions(ctxt, instance_uuid)
    assert action['action'] == instance_action.CREATE
    return instance_action.get_action(ctxt, instance_uuid,
                                      action['request_id'])['events']


def _node_row(ctxt, node_uuid):
    node = objects.Node.get_by_uuid(ctxt, node_uuid)
    return {'instance_uuid': node.instance_uuid,
            'provision_state': node.provision_state,
            'updated_at': node.updated_at}


def test_no_scheduler_fails_the_build_after_the_timeout(
        api_fixture_factory):
    """Nobody consumes the cast: after rpc_response_timeout the server
    reads as ERROR, and a scheduler arriving later does not build it.
    """
    fixture = api_fixture_factory(conf_overrides={'rpc_response_timeout': 1})
    app = webtest.TestApp(fixture.app)
    admin = nm_context.get_admin_context()
    builders.create_flavor(admin, 'bm', memory_mb=1, vcpus=1, root_gb=0,
                           extra_specs={'resources:CUSTOM_BAREMETAL': '1'})
    node = _node('gold')
    created = _boot(app, flavor='bm')
    assert _wait(app, created['id'], timeout=0)['status'] == 'BUILD'
    server = _wait(app, created['id'])
    assert server['status'] == 'ERROR'
    assert server['fault']['message'].startswith(
        'Timed out waiting for a scheduler')
    # The late scheduler takes the queued cast and leaves the server and
    # the node be: no claim, no build event.
    before = (_create_events(admin, created['id']),
              _node_row(admin, node.uuid))
    late = manager.SchedulerManager('late', fixture.conf)
    handled = []
    done = threading.Event()
    real_build = late.build_instances

    def build_instances(ctxt, spec_obj, instance_uuids):
        try:
            return real_build(ctxt, spec_obj, instance_uuids)
        finally:
            handled.append(instance_uuids)
            done.set()

    late.build_instances = build_instances
    server_rpc = rpc.get_server(
        fixture.conf, messaging.Target(topic=rpcapi.TOPIC, server='late'),
        [late])
    server_rpc.start()
    try:
        assert done.wait(10), 'the late scheduler never got the cast'
    finally:
        server_rpc.stop()
        server_rpc.wait()
    assert handled == [[created['id']]]
    assert (_create_events(admin, created['id']),
            _node_row(admin, node.uuid)) == before
    assert before[1]['instance_uuid'] is None
    stored = objects.Instance.get_by_uuid(admin, created['id'])
    assert stored.vm_state == instance_obj.ERROR
    assert stored.fault['message'].startswith(
        'Timed out waiting for a scheduler')
    assert _wait(app, created['id'], timeout=0)['status'] == 'ERROR'


def test_expired_build_is_not_built(stack):
    """A build cast that reaches a scheduler after the deadline is
    dropped and the instance failed, rather than built late.
    """
    _app, scheduler, fixture = stack
    fixture.conf_fixture.config(rpc_response_timeout=0)
    admin = nm_context.get_admin_context()
    node = _node('gold', traits=[TRAIT])
    flavor = objects.Flavor.get_by_flavor_id(admin, 'bm-gold')
    instance = objects.Instance(admin, uuid='4a0c7f6e-1d2b-4c3a-8e5f-'
                                'a1b2c3d4e5f6', name='late',
                                project_id='demo', user_id='demo',
                                flavor=flavor, image_ref=None,
                                vm_state=instance_obj.BUILDING,
                                node_uuid=None, fault=None)
    instance.create()
    time.sleep(0.01)    # the clock: its 0 s build deadline passes
    spec = request_spec.RequestSpec.from_components(
        admin, flavor, instance_uuids=[instance.uuid])
    scheduler.build_instances(admin, spec, [instance.uuid])
    stored = objects.Instance.get_by_uuid(admin, instance.uuid)
    assert stored.status == 'ERROR'
    assert 'Timed out waiting for a scheduler' in stored.fault['message']
    assert objects.Node.get_by_uuid(admin, node.uuid).instance_uuid is None
