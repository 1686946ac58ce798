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

"""redfish nodes through the bare-metal API, end to end in one process:
nova-mini-api's application, a nova-mini-conductor endpoint
(ConductorManager with the real RedfishHardware) serving RPC on a
RabbitMQ virtual host of the module's own, and sushy-tools' emulator as
the BMCs (its power changes narrowed to 2-3 s). The API answers 202 with
the target recorded, the BMC changes, then the node shows it; a node
being worked on is 409 NodeLocked, a conductor without a free worker
503; the boot device, validate and manage (the power state read from
the BMC) reach the BMC; what redfish lacks in nova_mini is refused.
"""

import json
import time
import types

import pytest
import sqlalchemy as sa
import webtest

from nova_mini.conductor import hash_ring
from nova_mini.conductor import manager as manager_mod
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini import states
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import conductor as conductor_fixture
from nova_mini.tests.fixtures import http_servers
from nova_mini.tests.live.redfish import redfish_emulators  # noqa: F401

HOST = 'redfish-api-conductor-1'
HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}
PASSWORD = 'bmc-s3cret-pw'
# Seconds the emulator's fake systems take to change power, here.
POWER_DELAY = (2, 3)


@pytest.fixture(scope='module')
def vhost():
    yield from conductor_fixture.rabbitmq_vhost('nova_mini_redfish_api')


@pytest.fixture(scope='module')
def images(tmp_path_factory):
    """A web server of the virtual media's images: boot.iso, cd.img."""
    directory = tmp_path_factory.mktemp('redfish-images')
    (directory / 'boot.iso').write_bytes(b'\x01' * 65536)
    (directory / 'cd.img').write_bytes(b'\x02' * 4096)
    with http_servers.DirectoryServer(directory) as server:
        yield server.url


@pytest.fixture(scope='module')
def bmc(redfish_emulators):  # noqa: F811
    return redfish_emulators(systems=4, power_delay=POWER_DELAY)


class Stack(object):
    """The API's application and the conductor serving its RPC."""

    def __init__(self, fixture, endpoint, server):
        self.fixture = fixture
        self.app = webtest.TestApp(fixture.app)
        self.endpoint = endpoint
        self.server = server

    def url(self, path):
        return '/baremetal/v1' + path

    def get(self, path, status=200):
        return self.app.get(self.url(path), headers=HEADERS, status=status)

    def put(self, path, body, status=202):
        return self.app.put_json(self.url(path), body, headers=HEADERS,
                                 status=status)

    def row(self, name):
        table = models.Node.__table__
        engine = sa.create_engine(self.fixture.database.url,
                                  poolclass=sa.pool.NullPool)
        try:
            with engine.connect() as connection:
                return dict(connection.execute(sa.select(table).where(
                    table.c.name == name)).one()._mapping)
        finally:
            engine.dispose()

    def create(self, name, bmc, system=0, **driver_info):
        info = conductor_fixture.redfish_driver_info(
            bmc, system, redfish_username='admin',
            redfish_password=PASSWORD)
        info.update(driver_info)
        return self.app.post_json(self.url('/nodes'), {
            'name': name, 'driver': 'redfish', 'driver_info': info},
            headers=HEADERS, status=201).json

    def wait(self, name, until, timeout=30):
        """Poll the node's states until until(states) holds."""
        deadline = time.monotonic() + timeout
        while True:
            body = self.get('/nodes/%s/states' % name).json
            if until(body):
                return body
            assert time.monotonic() < deadline, body
            time.sleep(0.2)


@pytest.fixture
def stack(vhost, monkeypatch):
    conductor_fixture.short_power_polls(monkeypatch)
    fixture = api_fixture.APIFixture(conf_overrides={
        'transport_url': vhost, 'rpc_response_timeout': 20,
        'conductor.node_locked_retry_attempts': 1,
        'conductor.workers_pool_size': 3,
        'redfish.connection_attempts': 2,
        'redfish.connection_retry_interval': 1,
        'conductor.power_state_change_timeout': 30})
    fixture.setUp()
    endpoint = manager_mod.ConductorManager(HOST, fixture.conf)
    try:
        with conductor_fixture.serving(fixture.conf, HOST,
                                       endpoint) as server:
            yield Stack(fixture, endpoint, server)
    finally:
        fixture.cleanUp()


def _bmc_power(bmc, system=0):
    status, body = bmc.get(bmc.systems[system]['system_id'])
    assert status == 200
    return body['PowerState']


def _manage(stack, name):
    stack.put('/nodes/%s/states/provision' % name, {'target': 'manage'})
    return stack.wait(name, lambda s: s['provision_state'] != 'verifying')


def test_manage_reads_the_power_state_from_the_bmc(stack, bmc):
    stack.create('rf-manage', bmc, system=0)
    expected = {'On': states.POWER_ON,
                'Off': states.POWER_OFF}[_bmc_power(bmc, 0)]
    body = _manage(stack, 'rf-manage')
    assert (body['provision_state'], body['power_state'],
            body['last_error']) == (states.MANAGEABLE, expected, None)
    row = stack.row('rf-manage')
    assert (row['provision_state'], row['power_state'],
            row['reservation']) == (states.MANAGEABLE, expected, None)
    # provide: available, still the BMC's power state.
    stack.put('/nodes/rf-manage/states/provision', {'target': 'provide'})
    body = stack.wait('rf-manage',
                      lambda s: s['provision_state'] == states.AVAILABLE)
    assert body['power_state'] == expected


def test_manage_with_an_unreachable_bmc_goes_back_to_enroll(stack, bmc):
    stack.create('rf-gone', bmc, redfish_address='http://127.0.0.1:9')
    body = _manage(stack, 'rf-gone')
    assert body['provision_state'] == states.ENROLL
    assert body['last_error']
    assert stack.row('rf-gone')['reservation'] is None


def test_power_on_and_off_reach_the_bmc(stack, bmc):
    stack.create('rf-power', bmc, system=1)
    for target, bmc_state in ((states.POWER_ON, 'On'),
                              (states.POWER_OFF, 'Off')):
        response = stack.put('/nodes/rf-power/states/power',
                             {'target': target})
        assert response.status_int == 202
        assert response.location.endswith('/v1/nodes/rf-power/states')
        # Recorded before the answer; the BMC has not changed yet.
        row = stack.row('rf-power')
        assert (row['target_power_state'], row['reservation']) == (
            target, HOST)
        body = stack.get('/nodes/rf-power/states').json
        assert body['target_power_state'] == target
        body = stack.wait('rf-power',
                          lambda s: s['target_power_state'] is None)
        assert (body['power_state'], body['last_error']) == (target, None)
        assert _bmc_power(bmc, 1) == bmc_state
        row = stack.row('rf-power')
        assert (row['power_state'], row['target_power_state'],
                row['reservation']) == (target, None, None)


def test_a_node_being_worked_on_is_locked(stack, bmc):
    stack.create('rf-locked', bmc, system=2)
    # Whatever its power now, a reboot waits for the BMC's delay.
    stack.put('/nodes/rf-locked/states/power', {'target': 'rebooting'})
    assert stack.row('rf-locked')['reservation'] == HOST
    node_uuid = stack.row('rf-locked')['uuid']
    message = ('Node %s is locked by host %s, please retry after the '
               'current operation is completed.' % (node_uuid, HOST))
    for method, path, body in (
            ('put', '/nodes/rf-locked/states/power',
             {'target': states.POWER_OFF}),
            ('put', '/nodes/rf-locked/management/boot_device',
             {'boot_device': 'cdrom'}),
            ('patch', '/nodes/rf-locked',
             [{'op': 'add', 'path': '/extra/a', 'value': 'b'}]),
            ('delete', '/nodes/rf-locked', None)):
        if method == 'delete':
            response = stack.app.delete(stack.url(path), headers=HEADERS,
                                        status=409)
        else:
            response = getattr(stack.app, method + '_json')(
                stack.url(path), body, headers=HEADERS, status=409)
        error = response.json['error_message']
        assert message in error, (method, path, error)
    body = stack.wait('rf-locked', lambda s: s['target_power_state'] is None)
    assert (body['power_state'], body['last_error']) == (states.POWER_ON,
                                                         None)
    row = stack.row('rf-locked')
    # The refused patch stored nothing.
    assert (row['reservation'], row['extra']) == (None, {})
    assert _bmc_power(bmc, 2) == 'On'


def test_no_free_conductor_worker_is_503(stack, bmc):
    for system in range(4):
        stack.create('rf-busy-%d' % system, bmc, system=system)
    for system in range(3):
        stack.put('/nodes/rf-busy-%d/states/power' % system,
                  {'target': 'rebooting'})
    response = stack.put('/nodes/rf-busy-3/states/power',
                         {'target': 'rebooting'}, status=503)
    assert response.headers['Retry-After'] == '5'
    assert ('Requested action cannot be performed due to lack of free '
            'conductor workers.') in response.json['error_message']
    row = stack.row('rf-busy-3')
    assert (row['reservation'], row['target_power_state']) == (None, None)
    for system in range(3):
        stack.wait('rf-busy-%d' % system,
                   lambda s: s['target_power_state'] is None)


def test_boot_device_is_the_bmcs(stack, bmc):
    stack.create('rf-boot', bmc, system=3)
    supported = stack.get(
        '/nodes/rf-boot/management/boot_device/supported').json
    assert {'pxe', 'disk', 'cdrom'} <= set(
        supported['supported_boot_devices'])
    stack.put('/nodes/rf-boot/management/boot_device',
              {'boot_device': 'cdrom', 'persistent': True}, status=204)
    assert stack.get('/nodes/rf-boot/management/boot_device').json == {
        'boot_device': 'cdrom', 'persistent': True}
    status, system = bmc.get(bmc.systems[3]['system_id'])
    assert system['Boot']['BootSourceOverrideTarget'] == 'Cd'
    stack.put('/nodes/rf-boot/management/boot_device',
              {'boot_device': 'pxe'}, status=204)
    status, system = bmc.get(bmc.systems[3]['system_id'])
    assert system['Boot']['BootSourceOverrideTarget'] == 'Pxe'
    # What the BMC reports (sushy-tools' emulator keeps
    # BootSourceOverrideEnabled Continuous whatever it is sent).
    assert stack.get('/nodes/rf-boot/management/boot_device').json == {
        'boot_device': 'pxe',
        'persistent': system['Boot']['BootSourceOverrideEnabled'] ==
        'Continuous'}
    response = stack.put('/nodes/rf-boot/management/boot_device',
                         {'boot_device': 'floppy-disk'}, status=400)
    assert 'Invalid boot device floppy-disk specified' in \
        response.json['error_message']


def test_validate_tells_what_the_node_lacks(stack, bmc):
    stack.create('rf-valid', bmc, system=0)
    result = stack.get('/nodes/rf-valid/validate').json
    assert result['power'] == {'result': True}
    assert result['management'] == {'result': True}
    # No image to boot from virtual media yet.
    assert result['boot']['result'] is False
    assert 'Missing are' in result['boot']['reason']
    assert result['deploy']['result'] is False
    for name in ('console', 'inspect', 'raid', 'rescue', 'bios'):
        assert result[name]['result'] is False, name
        assert 'Driver redfish does not support %s' % name in \
            result[name]['reason']
    assert result['network'] == {'result': True}
    assert result['storage'] == {'result': True}
    assert 'vendor' not in result
    stack.app.patch_json(stack.url('/nodes/rf-valid'), [
        {'op': 'add', 'path': '/instance_info/boot_iso',
         'value': 'http://127.0.0.1:1/boot.iso'}], headers=HEADERS)
    result = stack.get('/nodes/rf-valid/validate').json
    assert result['boot'] == {'result': True}
    assert result['deploy'] == {'result': True}
    # A node whose driver_info is wrong: the driver's reason.
    stack.create('rf-invalid', bmc, redfish_address='ftp://bmc')
    result = stack.get('/nodes/rf-invalid/validate').json
    assert result['power']['result'] is False
    assert ('Invalid Redfish address ftp://bmc set in '
            'driver_info/redfish_address') in result['power']['reason']


def test_power_with_bad_driver_info_is_400_at_once(stack, bmc):
    stack.create('rf-badaddr', bmc, redfish_address='ftp://bmc')
    stack.app.post_json(stack.url('/nodes'), {
        'name': 'rf-noaddr', 'driver': 'redfish', 'driver_info': {}},
        headers=HEADERS, status=201)
    for name, message in (
            ('rf-badaddr', 'Invalid Redfish address ftp://bmc set in '
                           'driver_info/redfish_address'),
            ('rf-noaddr', "Missing the following Redfish properties in "
                          "node %s driver_info: ['redfish_address']")):
        before = stack.row(name)
        if '%s' in message:
            message = message % before['uuid']
        response = stack.put('/nodes/%s/states/power' % name,
                             {'target': 'power on'}, status=400)
        assert message in response.json['error_message'], name
        response = stack.put('/nodes/%s/management/boot_device' % name,
                             {'boot_device': 'pxe'}, status=400)
        assert message in response.json['error_message'], name
        # Nothing reserved, targeted or recorded.
        after = stack.row(name)
        for row in (before, after):
            del row['updated_at']
        assert after == before
        assert (after['reservation'], after['target_power_state'],
                after['last_error']) == (None, None, None)


def test_indicators_are_the_bmcs(stack, bmc):
    stack.create('rf-led', bmc, system=3)
    system = bmc.systems[3]
    body = stack.get('/nodes/rf-led/management/indicators').json
    by_name = {item['name']: item for item in body['indicators']}
    # The system's LED, named by its UUID as Ironic's redfish driver names
    # it, and its chassis'.
    led = by_name.pop('%s@system' % system['uuid'])
    assert (led['component'], led['readonly'], led['states']) == (
        'system', False, ['BLINKING', 'OFF', 'ON'])
    assert led['links'][0]['href'].endswith(
        '/nodes/rf-led/management/indicators/%s@system' % system['uuid'])
    assert [item['component'] for item in by_name.values()] == ['chassis']
    url = '/nodes/rf-led/management/indicators/%s@system' % system['uuid']
    stack.put(url, {'state': 'BLINKING'}, status=204)
    assert stack.get(url).json == {'state': 'BLINKING'}
    status, doc = bmc.get(system['system_id'])
    assert (status, doc['IndicatorLED']) == (200, 'Blinking')
    stack.put(url, {'state': 'OFF'}, status=204)
    assert bmc.get(system['system_id'])[1]['IndicatorLED'] == 'Off'
    assert stack.row('rf-led')['reservation'] is None
    # An indicator the BMC does not have: Ironic's 400.
    response = stack.put('/nodes/rf-led/management/indicators/nope@system',
                         {'state': 'ON'}, status=400)
    assert ('Unknown indicator nope for component system of node %s'
            % stack.row('rf-led')['uuid']) in response.json['error_message']
    stack.get('/nodes/rf-led/management/indicators/nope@disk', status=400)


def test_what_nova_minis_redfish_lacks_is_refused(stack, bmc):
    stack.create('rf-lacks', bmc, system=1)
    _manage(stack, 'rf-lacks')
    for target, extension in (('inspect', 'inspect'), ('clean', 'clean')):
        body = {'target': target}
        if target == 'clean':
            body['clean_steps'] = [{'interface': 'deploy',
                                    'step': 'erase_devices'}]
        response = stack.put('/nodes/rf-lacks/states/provision', body,
                             status=400)
        assert ('Driver redfish does not support %s' % extension) in \
            response.json['error_message']
    assert stack.row('rf-lacks')['provision_state'] == states.MANAGEABLE
    # A deploy needs an available node (the state checked first).
    response = stack.put('/nodes/rf-lacks/states/provision',
                         {'target': 'active'}, status=400)
    assert 'cannot be performed on node' in response.json['error_message']


def test_the_password_is_masked_and_kept_as_stored(stack, bmc):
    node = stack.create('rf-secret', bmc)
    assert node['driver_info']['redfish_password'] == '******'
    shown = stack.get('/nodes/rf-secret').json['driver_info']
    assert shown['redfish_password'] == '******'
    assert PASSWORD not in stack.get('/nodes/detail').text
    # A client sending back what it read keeps the stored password.
    shown['redfish_username'] = 'root'
    stack.app.patch_json(stack.url('/nodes/rf-secret'), [
        {'op': 'replace', 'path': '/driver_info', 'value': shown}],
        headers=HEADERS)
    info = stack.row('rf-secret')['driver_info']
    assert (info['redfish_password'], info['redfish_username']) == (
        PASSWORD, 'root')
    stack.app.patch_json(stack.url('/nodes/rf-secret'), [
        {'op': 'replace', 'path': '/driver_info/redfish_password',
         'value': '******'}], headers=HEADERS)
    assert stack.row('rf-secret')['driver_info']['redfish_password'] == \
        PASSWORD
    # The stored password works: the BMC answers the conductor.
    assert 'persistent' in stack.get(
        '/nodes/rf-secret/management/boot_device').json


def _media(bmc, system, device):
    status, body = bmc.get(bmc.systems[system]['system_id'] +
                           '/VirtualMedia/' + device)
    assert status == 200
    return body.get('Image') or None, body.get('Inserted')


def test_deploy_and_tear_down_through_the_bmc(stack, bmc, images):
    stack.create('rf-deploy', bmc, system=2)
    stack.app.patch_json(stack.url('/nodes/rf-deploy'), [
        {'op': 'add', 'path': '/instance_info/boot_iso',
         'value': images + '/boot.iso'}], headers=HEADERS)
    _manage(stack, 'rf-deploy')
    stack.put('/nodes/rf-deploy/states/provision', {'target': 'provide'})
    stack.wait('rf-deploy', lambda s: s['provision_state'] == 'available')
    response = stack.put('/nodes/rf-deploy/states/provision', {
        'target': 'active', 'configdrive': images + '/cd.img'})
    assert response.location.endswith('/v1/nodes/rf-deploy/states')
    row = stack.row('rf-deploy')
    assert (row['provision_state'], row['target_provision_state']) == (
        'deploying', states.ACTIVE)
    assert row['instance_info']['configdrive'] == images + '/cd.img'
    # A deploy in progress holds the node.
    stack.put('/nodes/rf-deploy/states/power', {'target': 'power off'},
              status=409)
    body = stack.wait('rf-deploy',
                      lambda s: s['provision_state'] != 'deploying')
    assert (body['provision_state'], body['target_provision_state'],
            body['power_state'], body['last_error']) == (
        states.ACTIVE, None, states.POWER_ON, None)
    assert _bmc_power(bmc, 2) == 'On'
    assert _media(bmc, 2, 'Cd') == (images + '/boot.iso', True)
    assert _media(bmc, 2, 'Floppy') == (images + '/cd.img', True)
    # The config drive is masked when shown.
    shown = stack.get('/nodes/rf-deploy').json['instance_info']
    assert shown['configdrive'] == '******'
    # rebuild: deployed again, the config drive kept.
    stack.put('/nodes/rf-deploy/states/provision', {'target': 'rebuild'})
    assert stack.row('rf-deploy')['provision_state'] == 'deploying'
    body = stack.wait('rf-deploy',
                      lambda s: s['provision_state'] != 'deploying')
    assert (body['provision_state'], body['power_state'],
            body['last_error']) == (states.ACTIVE, states.POWER_ON, None)
    assert stack.row('rf-deploy')['instance_info']['configdrive'] == \
        images + '/cd.img'
    assert _media(bmc, 2, 'Cd') == (images + '/boot.iso', True)
    # deleted: powered off, media ejected, available.
    stack.put('/nodes/rf-deploy/states/provision', {'target': 'deleted'})
    assert stack.row('rf-deploy')['provision_state'] == 'deleting'
    body = stack.wait('rf-deploy',
                      lambda s: s['provision_state'] != 'deleting')
    assert (body['provision_state'], body['power_state'],
            body['last_error']) == (states.AVAILABLE, states.POWER_OFF,
                                    None)
    assert _bmc_power(bmc, 2) == 'Off'
    assert _media(bmc, 2, 'Cd')[1] is False
    assert _media(bmc, 2, 'Floppy')[1] is False
    assert stack.row('rf-deploy')['reservation'] is None


def test_a_conductor_not_answering_is_503(stack, bmc):
    # A second conductor, registered alive but serving nothing (killed
    # before its heartbeat timed out): its nodes' requests time out.
    ctxt = nm_context.get_admin_context()
    conductor_obj.register_host(ctxt, 'redfish-ghost', ['redfish'])
    hash_ring.reset()
    stack.fixture.conf_fixture.config(rpc_response_timeout=3)
    for index in range(40):
        name = 'rf-ghost-%d' % index
        node = stack.create(name, bmc)
        target = types.SimpleNamespace(uuid=node['uuid'], driver='redfish',
                                       conductor_group='')
        if hash_ring.host_for(ctxt, target) == 'redfish-ghost':
            break
    else:
        pytest.fail('no node of the ghost conductor in 40')
    response = stack.put('/nodes/%s/states/power' % name,
                         {'target': states.POWER_ON}, status=503)
    assert response.headers['Retry-After']
    assert 'redfish-ghost' in response.json['error_message']
    row = stack.row(name)
    assert (row['reservation'], row['target_power_state']) == (None, None)


def _adopt(stack, name):
    stack.put('/nodes/%s/states/provision' % name, {'target': 'adopt'})
    return stack.wait(name, lambda s: s['provision_state'] != 'adopting')


def _manageable(stack, bmc, name, system, boot_iso='http://127.0.0.1:1/'
                'boot.iso', **driver_info):
    """A manageable node of the emulator's ``system`` (managed with good
    driver_info), then given ``driver_info`` and ``boot_iso``.
    """
    stack.create(name, bmc, system=system)
    assert _manage(stack, name)['provision_state'] == states.MANAGEABLE
    patch = [{'op': 'add', 'path': '/driver_info/%s' % key, 'value': value}
             for key, value in driver_info.items()]
    if boot_iso:
        patch.append({'op': 'add', 'path': '/instance_info/boot_iso',
                      'value': boot_iso})
    if patch:
        stack.app.patch_json(stack.url('/nodes/%s' % name), patch,
                             headers=HEADERS)


def test_adopt_reads_the_power_state_from_the_bmc(stack, bmc):
    _manageable(stack, bmc, 'rf-adopt', 1)
    # Powered on out of band: adopted as it is.
    conductor_fixture.bmc_request(
        bmc, bmc.systems[1]['system_id'] + '/Actions/ComputerSystem.Reset',
        'post', json={'ResetType': 'On'})
    stack.wait('rf-adopt', lambda s: _bmc_power(bmc, 1) == 'On')
    before = stack.row('rf-adopt')
    response = stack.put('/nodes/rf-adopt/states/provision',
                         {'target': 'adopt'})
    assert response.location.endswith('/v1/nodes/rf-adopt/states')
    body = stack.wait('rf-adopt',
                      lambda s: s['provision_state'] != 'adopting')
    assert (body['provision_state'], body['target_provision_state'],
            body['power_state'], body['last_error']) == (
        states.ACTIVE, None, states.POWER_ON, None)
    row = stack.row('rf-adopt')
    assert (row['reservation'], row['instance_info'],
            row['driver_info']) == (None, before['instance_info'],
                                    before['driver_info'])
    # Taken over, not deployed: no virtual media inserted, still on.
    assert _media(bmc, 1, 'Cd')[1] is not True
    assert _bmc_power(bmc, 1) == 'On'


def test_adopt_fails_with_the_reason(stack, bmc):
    _manageable(stack, bmc, 'rf-adopt-bad', 2, boot_iso=None)
    uuid = stack.row('rf-adopt-bad')['uuid']
    prefix = 'Error while attempting to adopt node %s: ' % uuid
    # No image to boot from: the boot interface does not validate.
    body = _adopt(stack, 'rf-adopt-bad')
    assert (body['provision_state'], body['power_state']) == (
        states.ADOPTFAIL, None)
    assert body['last_error'].startswith(
        prefix + 'Failed to validate boot driver interface: Cannot '
        'validate image information for node %s' % uuid)
    # Bad driver_info: the power interface's reason.
    stack.app.patch_json(stack.url('/nodes/rf-adopt-bad'), [
        {'op': 'add', 'path': '/instance_info/boot_iso',
         'value': 'http://127.0.0.1:1/boot.iso'},
        {'op': 'replace', 'path': '/driver_info/redfish_address',
         'value': 'ftp://bmc'}], headers=HEADERS)
    body = _adopt(stack, 'rf-adopt-bad')
    assert (body['provision_state'], body['last_error']) == (
        states.ADOPTFAIL,
        prefix + 'Failed to validate power driver interface: Invalid '
        'Redfish address ftp://bmc set in driver_info/redfish_address on '
        'node %s.' % uuid)
    # A BMC that does not answer: its power state cannot be read.
    stack.app.patch_json(stack.url('/nodes/rf-adopt-bad'), [
        {'op': 'replace', 'path': '/driver_info/redfish_address',
         'value': 'http://127.0.0.1:9'}], headers=HEADERS)
    body = _adopt(stack, 'rf-adopt-bad')
    assert body['provision_state'] == states.ADOPTFAIL
    assert body['last_error'].startswith(
        prefix + 'Failed to get power state: ')
    assert '127.0.0.1:9' in body['last_error']
    row = stack.row('rf-adopt-bad')
    assert (row['reservation'], row['power_state'],
            row['target_provision_state']) == (None, None, None)
    # Fixed: adopted from adopt failed, with the BMC's power state.
    stack.app.patch_json(stack.url('/nodes/rf-adopt-bad'), [
        {'op': 'replace', 'path': '/driver_info/redfish_address',
         'value': bmc.url}], headers=HEADERS)
    expected = {'On': states.POWER_ON,
                'Off': states.POWER_OFF}[_bmc_power(bmc, 2)]
    body = _adopt(stack, 'rf-adopt-bad')
    assert (body['provision_state'], body['power_state'],
            body['last_error']) == (states.ACTIVE, expected, None)


def _refused(stack, method, path, body, what, version, cap, uuid):
    """A request the pin holds back: 406 in Ironic's format, saying what
    was not done.
    """
    if method == 'get':
        response = stack.app.get(stack.url(path), headers=HEADERS,
                                 status=406)
    else:
        response = stack.app.put_json(stack.url(path), body,
                                      headers=HEADERS, status=406)
    fault = json.loads(response.json['error_message'])
    assert fault == {
        'faultstring': 'The nova-mini-conductor services cannot %s until '
                       'they are upgraded: [upgrade_levels] conductor caps '
                       'their RPC API at %s and this request needs %s. '
                       'Nothing was done to node %s: retry once the '
                       'conductors run the new release and the cap is '
                       'raised.' % (what, cap, version, uuid),
        'faultcode': 'Client', 'debuginfo': None}, (method, path)


def test_calls_the_conductor_pin_holds_back_are_406(stack, bmc):
    # Every conductor RPC call above 1.0 the API sends: the indicators
    # (1.1) and adopt (1.3). (The tear down's 1.2 form is sent as 1.0
    # under a lower pin: see the end.)
    system = bmc.systems[0]
    _manageable(stack, bmc, 'rf-pinned', 0)
    uuid = stack.row('rf-pinned')['uuid']
    led = '/nodes/rf-pinned/management/indicators/%s@system' % (
        system['uuid'])
    stack.put(led, {'state': 'OFF'}, status=204)
    before = stack.row('rf-pinned')
    conf = stack.fixture.conf_fixture
    conf.config(conductor='1.0', group='upgrade_levels')
    for method, path, body, what in (
            ('get', '/nodes/rf-pinned/management/indicators', None,
             'list the indicators of a node'),
            ('get', led, None, 'read the state of an indicator'),
            ('put', led, {'state': 'BLINKING'},
             'set the state of an indicator')):
        _refused(stack, method, path, body, what, '1.1', '1.0', uuid)
        assert stack.row('rf-pinned') == before, path
    assert bmc.get(system['system_id'])[1]['IndicatorLED'] == 'Off'
    for cap in ('1.0', '1.2'):
        conf.config(conductor=cap, group='upgrade_levels')
        _refused(stack, 'put', '/nodes/rf-pinned/states/provision',
                 {'target': 'adopt'}, 'adopt a node', '1.3', cap, uuid)
        assert stack.row('rf-pinned') == before
    # What 1.0 has still goes: the boot device, and the node's power.
    conf.config(conductor='1.0', group='upgrade_levels')
    assert 'persistent' in stack.get(
        '/nodes/rf-pinned/management/boot_device').json
    # The cap raised: adopted; then a tear down pinned to 1.1 is sent.
    conf.config(conductor='1.3', group='upgrade_levels')
    assert _adopt(stack, 'rf-pinned')['provision_state'] == states.ACTIVE
    conf.config(conductor='1.1', group='upgrade_levels')
    stack.put('/nodes/rf-pinned/states/provision', {'target': 'deleted'})
    body = stack.wait('rf-pinned',
                      lambda s: s['provision_state'] != 'deleting')
    assert (body['provision_state'], body['power_state']) == (
        states.AVAILABLE, states.POWER_OFF)
