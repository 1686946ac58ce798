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

"""What a conductor enables is registered with it (Ironic's
conductor_hardware_interfaces, migration 0027), and the bare-metal API
reads what the alive conductors registered, not its own configuration:
``GET /v1/drivers/{name}``, and the driver and interfaces of the nodes
created and patched (the defaults theirs). A conductor registering again
replaces its rows, one stopping deletes them, and a dead one's rows do
not count. On every test backend, reading the stored rows.
"""

import datetime
import threading

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa
import webtest

from nova_mini.conductor import hash_ring
from nova_mini import conductor_heartbeat
from nova_mini import context as nm_context
from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor
from nova_mini.tests.fixtures import threads

HEADERS = {'X-Auth-Token': 'admin:admin',
           'X-OpenStack-Ironic-API-Version': '1.65'}
TABLE = models.ConductorHardwareInterface.__table__
CONDUCTORS = models.Conductor.__table__
NODES = models.Node.__table__
# What a conductor with the default options registers of redfish.
REDFISH_ROWS = 12


@pytest.fixture
def fixture(api_fixture_factory, backend):
    return api_fixture_factory(backend=backend)


def _engine(url):
    return sa.create_engine(url, poolclass=sa.pool.NullPool)


def _rows(url, hostname):
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            conductor_id = connection.execute(
                sa.select(CONDUCTORS.c.id).where(
                    CONDUCTORS.c.hostname == hostname)).scalar_one()
            return sorted(
                (row.hardware_type, row.interface_type, row.interface_name,
                 row.default) for row in connection.execute(
                    sa.select(TABLE).where(
                        TABLE.c.conductor_id == conductor_id)))
    finally:
        engine.dispose()


def _stored_node(url, uuid):
    engine = _engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(sa.select(NODES).where(
                NODES.c.uuid == uuid)).one_or_none()
    finally:
        engine.dispose()


def _age(url, hostname, seconds):
    """Make ``hostname`` dead: its last heartbeat ``seconds`` ago."""
    engine = _engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(CONDUCTORS.update().where(
                CONDUCTORS.c.hostname == hostname).values(
                    updated_at=timeutils.utcnow() - datetime.timedelta(
                        seconds=seconds)))
    finally:
        engine.dispose()
    hash_ring.reset()


def _register_with(fixture, overrides, hostname, drivers=('redfish',)):
    """Register ``hostname`` as a service with ``overrides`` in its
    configuration does (the API's own configuration is left as it was).
    """
    conf = fixture.conf
    saved = {name: getattr(conf, name) for name in overrides}
    fixture.conf_fixture.config(**overrides)
    try:
        conductor.register_host(nm_context.get_admin_context(), hostname,
                                list(drivers))
    finally:
        fixture.conf_fixture.config(**saved)
    hash_ring.reset()


@db_api.context_manager.writer
def _unregister(context, hostname, drivers=None):
    conductor.unregister(context.session, hostname, drivers)


def _api_host(fixture):
    (host,) = [row.hostname for row in conductor.get_all(
        nm_context.get_admin_context()) if 'fake-hardware' in row.drivers]
    return host


def test_the_drivers_show_what_the_conductors_registered(fixture):
    app = webtest.TestApp(fixture.app)
    url = fixture.database.url
    # A conductor whose configuration enables fake boot only: redfish
    # has no boot interface there, and no default.
    _register_with(fixture, {'enabled_boot_interfaces': ['fake'],
                             'default_deploy_interface': 'ramdisk'},
                   'cond-1')
    rows = _rows(url, 'cond-1')
    assert ('redfish', 'power', 'redfish', True) in rows
    assert ('redfish', 'deploy', 'ramdisk', True) in rows
    assert [row for row in rows if row[1] == 'boot'] == []
    assert len(rows) == REDFISH_ROWS - 1
    # The API's own configuration enables redfish-virtual-media: the
    # answer is the conductor's.
    body = app.get('/baremetal/v1/drivers/redfish', headers=HEADERS).json
    assert body['enabled_boot_interfaces'] == []
    assert body['default_boot_interface'] is None
    assert body['enabled_power_interfaces'] == ['redfish']
    assert body['default_deploy_interface'] == 'ramdisk'

    # A second conductor with the defaults: the union, its default.
    _register_with(fixture, {}, 'cond-2')
    body = app.get('/baremetal/v1/drivers/redfish', headers=HEADERS).json
    assert body['hosts'] == ['cond-1', 'cond-2']
    assert body['enabled_boot_interfaces'] == ['redfish-virtual-media']
    assert body['default_boot_interface'] == 'redfish-virtual-media'

    # Registering again replaces the rows (no duplicates).
    _register_with(fixture, {}, 'cond-1')
    assert ('redfish', 'boot', 'redfish-virtual-media', True) in \
        _rows(url, 'cond-1')
    assert len(_rows(url, 'cond-1')) == REDFISH_ROWS

    # nova-mini-api registered fake-hardware's, from its configuration.
    assert ('fake-hardware', 'boot', 'fake', True) in \
        _rows(url, _api_host(fixture))
    body = app.get('/baremetal/v1/drivers/fake-hardware',
                   headers=HEADERS).json
    assert body['enabled_console_interfaces'] == ['fake', 'no-console']
    assert body['default_console_interface'] == 'fake'


def test_a_stopped_conductor_has_no_rows_left(fixture):
    app = webtest.TestApp(fixture.app)
    url = fixture.database.url
    _register_with(fixture, {'enabled_boot_interfaces': ['fake']}, 'cond-1')
    _register_with(fixture, {}, 'cond-2')
    # cond-2 stops cleanly: its rows are deleted with its registration;
    # cond-1's are left.
    _unregister(nm_context.get_admin_context(), 'cond-2')
    hash_ring.reset()
    body = app.get('/baremetal/v1/drivers/redfish', headers=HEADERS).json
    assert body['hosts'] == ['cond-1']
    assert body['enabled_boot_interfaces'] == []
    assert body['default_boot_interface'] is None
    assert _rows(url, 'cond-2') == []
    assert len(_rows(url, 'cond-1')) == REDFISH_ROWS - 1
    # Starting again registers them again.
    _register_with(fixture, {}, 'cond-2')
    assert len(_rows(url, 'cond-2')) == REDFISH_ROWS


def test_a_service_started_with_other_options_replaces_its_rows(fixture):
    url = fixture.database.url
    host = _api_host(fixture)
    assert {row[0] for row in _rows(url, host)} == {'fake-hardware'}
    # nova-mini-api is killed and started again (its row no longer
    # alive) with [DEFAULT] enabled_hardware_types without fake-hardware:
    # it registers no hardware type, and fake-hardware's rows are gone.
    _age(url, host, fixture.conf.conductor.heartbeat_timeout + 5)
    _register_with(fixture, {}, host, drivers=())
    assert _rows(url, host) == []
    # A conductor started again with other interfaces: those rows only.
    _register_with(fixture, {}, 'cond-1')
    _age(url, 'cond-1', fixture.conf.conductor.heartbeat_timeout + 5)
    _register_with(fixture, {'enabled_power_interfaces': ['fake'],
                             'default_console_interface': 'no-console'},
                   'cond-1')
    rows = _rows(url, 'cond-1')
    assert len(rows) == REDFISH_ROWS - 1
    assert [row for row in rows if row[1] == 'power'] == []
    assert ('redfish', 'console', 'no-console', True) in rows


def _post(app, body, status=201):
    return app.post_json('/baremetal/v1/nodes', body, headers=HEADERS,
                         status=status)


def test_nodes_are_checked_against_the_registrations(
        api_fixture_factory, backend):
    # The API's own configuration enables no redfish power interface, and
    # its default console for fake-hardware is fake.
    fixture = api_fixture_factory(
        backend=backend,
        conf_overrides={'enabled_power_interfaces': ['fake']})
    app = webtest.TestApp(fixture.app)
    url = fixture.database.url
    every_power = ['fake', 'redfish']
    _register_with(fixture, {'enabled_power_interfaces': every_power},
                   'cond-1')

    # The conductor enables redfish power: a redfish node gets it.
    node = _post(app, {'driver': 'redfish', 'name': 'rf-0'}).json
    assert node['power_interface'] == 'redfish'
    assert _stored_node(url, node['uuid']).power_interface == 'redfish'

    # Another conductor of redfish enabling fake boot only: what either
    # enables is accepted; the default is the first host's.
    _register_with(fixture, {'enabled_power_interfaces': every_power,
                             'enabled_boot_interfaces': ['fake']}, 'cond-2')
    _post(app, {'driver': 'redfish', 'name': 'rf-1'})
    # An implementation enabled (fake-hardware's), but not for redfish
    # by its conductors.
    response = app.patch_json(
        '/baremetal/v1/nodes/rf-0',
        [{'op': 'replace', 'path': '/power_interface', 'value': 'fake'}],
        headers=HEADERS, status=400)
    assert ("power interface implementation 'fake' is not supported by "
            "hardware type redfish. Use one of: redfish."
            ) in response.json['error_message']
    # cond-1 dies: its rows no longer count, and cond-2 has no boot
    # interface for redfish.
    _age(url, 'cond-1', fixture.conf.conductor.heartbeat_timeout + 5)
    response = _post(app, {'driver': 'redfish', 'name': 'rf-2'}, 400)
    assert ("hardware type 'redfish', no default value found for boot "
            "interface could be determined. Please ensure the interfaces "
            "are enabled.") in response.json['error_message']
    response = _post(app, {'driver': 'redfish', 'name': 'rf-2',
                           'boot_interface': 'redfish-virtual-media'}, 400)
    # (No alive conductor enables it for any hardware type; what they
    # enable is the API host's fake-hardware's.)
    assert ("Could not find the following interface in the "
            "'ironic.hardware.interfaces.boot' entrypoint: "
            "redfish-virtual-media. Valid interfaces are ['fake']."
            ) in response.json['error_message']
    # A patch of a node's interfaces checks them all, as Ironic's
    # conductor does: rf-0's boot interface is no longer enabled.
    response = app.patch_json(
        '/baremetal/v1/nodes/rf-0',
        [{'op': 'replace', 'path': '/power_interface', 'value': 'fake'}],
        headers=HEADERS, status=400)
    assert ("entrypoint: redfish-virtual-media. Valid interfaces are "
            "['fake'].") in response.json['error_message']
    assert _stored_node(url, node['uuid']).boot_interface == \
        'redfish-virtual-media'
    assert _stored_node(url, node['uuid']).power_interface == 'redfish'

    # No alive conductor of redfish at all: Ironic's no valid host, even
    # while this process's hash ring copy still has cond-2.
    _age(url, 'cond-2', fixture.conf.conductor.heartbeat_timeout + 5)
    response = _post(app, {'driver': 'redfish', 'name': 'rf-3',
                           'boot_interface': 'redfish-virtual-media'}, 400)
    assert ('No valid host was found. Reason: No conductor service '
            'registered which supports driver redfish for conductor group '
            '\\"\\".') in response.json['error_message']
    assert [name for name in ('rf-2', 'rf-3') if app.get(
        '/baremetal/v1/nodes/' + name, headers=HEADERS,
        expect_errors=True).status_int != 404] == []


def test_fake_hardware_defaults_are_those_registered(fixture):
    app = webtest.TestApp(fixture.app)
    url = fixture.database.url
    host = _api_host(fixture)
    # The API host registers again with another default console (another
    # process of it, started with other options): its rows are
    # replaced, and nodes get that default, not this process's.
    _register_with(fixture, {'default_console_interface': 'no-console',
                             'enabled_vendor_interfaces': ['no-vendor']},
                   host, drivers=('fake-hardware',))
    node = _post(app, {'driver': 'fake-hardware'}).json
    stored = _stored_node(url, node['uuid'])
    assert (stored.console_interface, stored.vendor_interface) == \
        ('no-console', 'no-vendor')
    response = _post(app, {'driver': 'fake-hardware',
                           'vendor_interface': 'fake'}, 400)
    assert "entrypoint: fake. Valid interfaces are ['no-vendor']." in \
        response.json['error_message']
    # A patch's reset_interfaces takes the registered defaults too.
    _register_with(fixture, {'enabled_power_interfaces': ['fake', 'redfish']},
                   'cond-1')
    app.patch_json('/baremetal/v1/nodes/%s?reset_interfaces=true'
                   % node['uuid'],
                   [{'op': 'replace', 'path': '/driver', 'value': 'redfish'}],
                   headers=HEADERS)
    assert _stored_node(url, node['uuid']).console_interface == 'no-console'
    app.patch_json('/baremetal/v1/nodes/%s?reset_interfaces=true'
                   % node['uuid'],
                   [{'op': 'replace', 'path': '/driver',
                     'value': 'fake-hardware'}], headers=HEADERS)
    assert _stored_node(url, node['uuid']).vendor_interface == 'no-vendor'

    # nova-mini-api stops (no other one alive): fake-hardware nodes are
    # refused as no conductor drives them.
    _unregister(nm_context.get_admin_context(), host)
    response = _post(app, {'driver': 'fake-hardware', 'name': 'f-1'}, 400)
    assert ('No conductor service registered which supports driver '
            'fake-hardware for conductor group') in \
        response.json['error_message']
    assert _rows(url, host) == []


ROUNDS = 8


def test_concurrent_registrations_lose_no_rows(fixture):
    url = fixture.database.url
    hosts = ('cond-a', 'cond-b')
    timeout = fixture.conf.conductor.heartbeat_timeout
    beats = [conductor_heartbeat.Heartbeat(url, host, 3600,
                                           drivers=['redfish'])
             for host in hosts]
    engine = _engine(url)
    stop = threading.Event()
    seen = []

    def counts():
        with engine.connect() as connection:
            return dict(connection.execute(
                sa.select(CONDUCTORS.c.hostname, sa.func.count(TABLE.c.id))
                .select_from(CONDUCTORS.join(TABLE))
                .where(CONDUCTORS.c.hostname.in_(hosts))
                .group_by(CONDUCTORS.c.hostname)).all())

    def read():
        # Each registration replaces a conductor's rows in one
        # transaction: a reader never sees them partly written.
        while not stop.is_set():
            seen.append(counts())

    def cycle(index):
        # Both conductors at once, each as its service does: it starts
        # (registers), dies (its row too old) and its next beat
        # registers it again, then it stops (unregisters).
        beat = beats[index]
        for _round in range(ROUNDS):
            beat.start()
            _age(url, beat.hostname, timeout + 5)
            assert beat.beat()
            beat.stop()
        beat.start()

    reader = threading.Thread(target=read)
    reader.start()
    try:
        errors = threads.race(cycle, len(hosts))
    finally:
        stop.set()
        reader.join(60)
    try:
        assert errors == []
        assert seen
        assert all(set(counts_.values()) <= {REDFISH_ROWS}
                   for counts_ in seen)
        for host in hosts:
            rows = _rows(url, host)
            assert len(rows) == len(set(rows)) == REDFISH_ROWS
        body = webtest.TestApp(fixture.app).get(
            '/baremetal/v1/drivers/redfish', headers=HEADERS).json
        assert body['hosts'] == list(hosts)
        assert body['default_boot_interface'] == 'redfish-virtual-media'
    finally:
        for beat in beats:
            beat.stop()
        engine.dispose()
    assert [_rows(url, host) for host in hosts] == [[], []]
