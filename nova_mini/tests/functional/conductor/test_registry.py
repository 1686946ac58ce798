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

"""A conductor's heartbeat registers the hardware types it is given;
nova-mini-api (fake-hardware) and nova-mini-conductor (redfish) never
share a host's row: the second to register while the other's row is alive
is refused, and its beats leave the row as it is (otherwise one's
heartbeat would keep the other alive after it was killed). Processes of
one kind share it.
"""

import datetime

from oslo_utils import timeutils
import pytest
import sqlalchemy as sa

from nova_mini import conductor_heartbeat
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini.objects.baremetal import conductor as conductor_obj


def _row(host):
    return conductor_obj.get(nm_context.get_admin_context(), host)


def test_the_heartbeat_registers_its_drivers(db, conf):
    beat = conductor_heartbeat.Heartbeat(db.url, 'c-1', 60,
                                         drivers=['redfish'])
    beat.start()
    try:
        row = _row('c-1')
        assert row.drivers == ['redfish']
        assert conductor_obj.is_alive(row)
    finally:
        beat.stop()
    assert not conductor_obj.is_alive(_row('c-1'))


def _age(db, host, when):
    engine = sa.create_engine(db.url, poolclass=sa.pool.NullPool)
    try:
        with engine.begin() as connection:
            connection.execute(models.Conductor.__table__.update().where(
                models.Conductor.hostname == host).values(
                    updated_at=when))
    finally:
        engine.dispose()


def test_api_and_conductor_never_share_a_host(db, conf):
    api = conductor_heartbeat.Heartbeat(db.url, 'host-1', 60)
    conductor = conductor_heartbeat.Heartbeat(db.url, 'host-1', 60,
                                              drivers=['redfish'])
    api.start()
    try:
        with pytest.raises(exception_baremetal.ConductorAlreadyRegistered):
            conductor.start()
        row = _row('host-1')
        assert row.drivers == ['fake-hardware']
        # Another process of nova-mini-api (uwsgi) shares it.
        other_api = conductor_heartbeat.Heartbeat(db.url, 'host-1', 60,
                                                  mark_offline=False)
        other_api.start()
        other_api.stop()
        assert _row('host-1').drivers == ['fake-hardware']
    finally:
        api.stop()
    assert not conductor_obj.is_alive(_row('host-1'))
    # Once nova-mini-api stopped: the conductor's, with its drivers only.
    conductor.start()
    try:
        assert _row('host-1').drivers == ['redfish']
        # nova-mini-api is refused in turn, and its beats (uwsgi's
        # processes register without failing) never refresh the row.
        with pytest.raises(exception_baremetal.ConductorAlreadyRegistered):
            api.start()
        lenient = conductor_heartbeat.Heartbeat(db.url, 'host-1', 60,
                                                mark_offline=False)
        lenient.start(required=False)
        lenient.stop()
        refreshed = timeutils.utcnow() - datetime.timedelta(seconds=5)
        _age(db, 'host-1', refreshed)
        assert not lenient.beat()
        row = _row('host-1')
        assert (row.drivers, row.updated_at) == (['redfish'], refreshed)
        # Killed: its row no longer refreshed, past heartbeat_timeout.
        conductor._stopped.set()
        conductor._thread.join()
        _age(db, 'host-1', datetime.datetime(2020, 1, 1))
        # The next service of the host takes it with its own drivers.
        assert api.beat()
    finally:
        api.mark_offline = False
        api.stop()
        conductor._engine.dispose()
    row = _row('host-1')
    assert row.drivers == ['fake-hardware'] and conductor_obj.is_alive(row)


def test_a_conductor_restarted_takes_its_own_row_back(db, conf):
    # Killed, restarted before its row timed out: its own kind, allowed.
    first = conductor_heartbeat.Heartbeat(db.url, 'c-2', 60,
                                          drivers=['redfish'])
    first.start()
    first._stopped.set()
    first._engine.dispose()
    second = conductor_heartbeat.Heartbeat(db.url, 'c-2', 60,
                                           drivers=['redfish'])
    second.start()
    try:
        row = _row('c-2')
        assert row.drivers == ['redfish'] and conductor_obj.is_alive(row)
    finally:
        second.stop()


def test_an_api_without_fake_hardware_is_refused_too(db, conf):
    # enabled_hardware_types without fake-hardware: nova-mini-api
    # registers no driver, still its own kind.
    conductor = conductor_heartbeat.Heartbeat(db.url, 'host-3', 60,
                                              drivers=['redfish'])
    api = conductor_heartbeat.Heartbeat(db.url, 'host-3', 60, drivers=[])
    conductor.start()
    try:
        with pytest.raises(exception_baremetal.ConductorAlreadyRegistered):
            api.start()
    finally:
        conductor.stop()
    api.start()
    try:
        with pytest.raises(exception_baremetal.ConductorAlreadyRegistered):
            conductor.start()
        assert _row('host-3').drivers == []
    finally:
        api.stop()
