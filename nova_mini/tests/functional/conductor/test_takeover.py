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

"""No reservation outlives its conductor: a conductor clears its own at
start, and the reservations of dead conductors are cleared with the work
they left failed in Ironic's words; alive conductors' and maintenance
nodes' states are left alone.
"""

import datetime

import pytest
import sqlalchemy as sa

from nova_mini.conductor import takeover
from nova_mini.conductor import task_manager
from nova_mini import context as nm_context
from nova_mini.db import models
from nova_mini.objects.baremetal import conductor as conductor_obj
from nova_mini import states
from nova_mini.tests.fixtures import builders

_NODES = models.Node.__table__


@pytest.fixture
def admin(db):
    return nm_context.get_admin_context()


def _row(engine, node):
    with engine.connect() as connection:
        return connection.execute(sa.select(_NODES).where(
            _NODES.c.id == node.id)).one()._mapping


def _reserved(admin, engine, name, host, **values):
    node = builders.create_node(admin, name, driver='redfish', **values)
    assert task_manager.reserve(admin, node.id, host)
    return node


def _dead(conf, engine, admin, host):
    conductor_obj.register_host(admin, host, ['redfish'])
    with engine.begin() as connection:
        connection.execute(models.Conductor.__table__.update().where(
            models.Conductor.hostname == host).values(
                updated_at=datetime.datetime.utcnow() - datetime.timedelta(
                    seconds=conf.conf.conductor.heartbeat_timeout + 5)))


def test_the_reservations_of_dead_conductors_are_cleared(
        conf, engine, admin):
    _dead(conf, engine, admin, 'dead-1')
    conductor_obj.register_host(admin, 'alive-1', ['redfish'])
    deploying = _reserved(admin, engine, 'deploying', 'dead-1',
                          provision_state=states.DEPLOYING,
                          target_provision_state=states.ACTIVE)
    deleting = _reserved(admin, engine, 'deleting', 'dead-1',
                         provision_state=states.DELETING,
                         target_provision_state=states.AVAILABLE)
    verifying = _reserved(admin, engine, 'verifying', 'dead-1',
                          provision_state=states.VERIFYING,
                          target_provision_state=states.MANAGEABLE)
    powering = _reserved(admin, engine, 'powering', 'dead-1',
                         provision_state=states.ACTIVE,
                         target_power_state=states.POWER_OFF,
                         power_state=states.POWER_ON)
    maintenance = _reserved(admin, engine, 'maintenance', 'dead-1',
                            provision_state=states.DEPLOYING,
                            maintenance=True)
    # A conductor never seen in the registry is not known dead.
    unknown = _reserved(admin, engine, 'unknown', 'never-registered',
                        provision_state=states.DEPLOYING)
    alive = _reserved(admin, engine, 'alive', 'alive-1',
                      provision_state=states.DEPLOYING)
    own = _reserved(admin, engine, 'own', 'me',
                    provision_state=states.DEPLOYING)

    cleared = takeover.clear_dead(admin, 'me')

    assert sorted(cleared) == sorted(node.uuid for node in (
        deploying, deleting, verifying, powering, maintenance))
    expected = {
        deploying: (states.DEPLOYFAIL, states.ACTIVE, None,
                    takeover.TAKEN_OVER),
        deleting: (states.ERROR, None, None, takeover.TAKEN_OVER),
        verifying: (states.ENROLL, None, None, takeover.TAKEN_OVER),
        powering: (states.ACTIVE, None, None, takeover.POWER_TAKEN_OVER),
        maintenance: (states.DEPLOYING, None, None, None),
    }
    for node, (state, target, reservation, error) in expected.items():
        row = _row(engine, node)
        assert (row['provision_state'], row['target_provision_state'],
                row['reservation'], row['last_error']) == (
                    state, target, reservation, error), node.name
    assert _row(engine, powering)['target_power_state'] is None
    assert takeover.TAKEN_OVER == (
        'Operation was aborted due to conductor take over')
    for node, host in ((unknown, 'never-registered'), (alive, 'alive-1'),
                       (own, 'me')):
        row = _row(engine, node)
        assert (row['reservation'], row['provision_state']) == (
            host, states.DEPLOYING)
    # Once.
    assert takeover.clear_dead(admin, 'me') == []


def test_a_conductor_clears_its_own_at_start(engine, admin):
    deploying = _reserved(admin, engine, 'deploying', 'me',
                          provision_state=states.DEPLOYING,
                          target_provision_state=states.ACTIVE)
    deleting = _reserved(admin, engine, 'deleting', 'me',
                         provision_state=states.DELETING)
    powering = _reserved(admin, engine, 'powering', 'me',
                         provision_state=states.AVAILABLE,
                         target_power_state=states.POWER_ON)
    other = _reserved(admin, engine, 'other', 'someone-else',
                      provision_state=states.DEPLOYING)

    assert sorted(takeover.clear_own(admin, 'me')) == sorted(
        [deploying.uuid, deleting.uuid, powering.uuid])

    row = _row(engine, deploying)
    assert (row['provision_state'], row['reservation'],
            row['last_error']) == (
                states.DEPLOYFAIL, None,
                "The deployment can't be resumed by conductor me. Moving "
                "to fail state.")
    assert _row(engine, deleting)['last_error'] == (
        "The deleting state can't be resumed by conductor me. Moving to "
        "fail state.")
    row = _row(engine, powering)
    assert (row['target_power_state'], row['last_error'],
            row['provision_state']) == (
                None, 'Pending power operation was aborted due to '
                'conductor restart', states.AVAILABLE)
    assert _row(engine, other)['reservation'] == 'someone-else'


def test_an_adoption_left_fails(conf, engine, admin):
    # By a dead conductor, and by this one's previous run.
    _dead(conf, engine, admin, 'dead-1')
    taken = _reserved(admin, engine, 'taken', 'dead-1',
                      provision_state=states.ADOPTING,
                      target_provision_state=states.ACTIVE)
    restarted = _reserved(admin, engine, 'restarted', 'me',
                          provision_state=states.ADOPTING,
                          target_provision_state=states.ACTIVE)
    assert takeover.clear_dead(admin, 'me') == [taken.uuid]
    assert takeover.clear_own(admin, 'me') == [restarted.uuid]
    for node, error in (
            (taken, takeover.TAKEN_OVER),
            (restarted, "The adopting state can't be resumed by conductor "
                        "me. Moving to fail state.")):
        row = _row(engine, node)
        assert (row['provision_state'], row['target_provision_state'],
                row['reservation'], row['last_error']) == (
                    states.ADOPTFAIL, None, None, error), node.name


def test_the_periodic_runs_on_its_own(conf, engine, admin):
    _dead(conf, engine, admin, 'dead-2')
    node = _reserved(admin, engine, 'n1', 'dead-2',
                     provision_state=states.DEPLOYING)
    periodic = takeover.Periodic('me', 0.2)
    periodic.start()
    try:
        deadline = datetime.datetime.utcnow() + datetime.timedelta(
            seconds=10)
        while _row(engine, node)['reservation'] is not None:
            assert datetime.datetime.utcnow() < deadline
            periodic._stopped.wait(0.1)
    finally:
        periodic.stop(5)
    assert _row(engine, node)['provision_state'] == states.DEPLOYFAIL
    assert takeover.Periodic('me', 0).start() is None
