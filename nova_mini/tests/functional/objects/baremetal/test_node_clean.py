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

"""Manual cleaning in the database (objects.baremetal.node_clean through
Node.set_provision_state): the BIOS settings stored, what a refusal and a
failure leave, abort of ``clean wait``, manage from ``clean failed``, and
the settings deleted with their node.
"""

import pytest
import sqlalchemy as sa

from nova_mini.db import api as db_api
from nova_mini.db import models
from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.objects.baremetal import bios_setting
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

AGENT = {'agent_secret_token': 'tok', 'agent_url': 'http://10.0.0.9:9999',
         'kept': 1}
APPLY = {'interface': 'bios', 'step': 'apply_configuration',
         'args': {'settings': [{'name': 'A', 'value': 'on'},
                               {'name': 'B', 'value': 2}]}}
RESET = {'interface': 'bios', 'step': 'factory_reset'}


def _node(admin, state='manageable', **values):
    values.setdefault('power_state', 'power on')
    values.setdefault('driver_internal_info', dict(AGENT))
    return builders.create_node(admin, 'n', provision_state=state, **values)


def _load(admin, node):
    return objects.Node.get_by_uuid(admin, node.uuid)


def _settings(admin, node):
    return {row.name: row.value
            for row in bios_setting.get_all(admin, node.id)}


def test_clean_stores_the_settings(admin):
    node = _node(admin)
    node.set_provision_state('clean', clean_steps=[APPLY])
    stored = _load(admin, node)
    assert (stored.provision_state, stored.target_provision_state) == (
        'manageable', None)
    assert stored.power_state == 'power on'
    assert stored.last_error is None
    assert stored.driver_internal_info == {'kept': 1, 'clean_steps': None}
    assert _settings(admin, node) == {'A': 'on', 'B': '2'}
    assert node.provision_state == 'manageable'


def test_factory_reset_deletes_the_settings(admin):
    node = _node(admin)
    node.set_provision_state('clean', clean_steps=[APPLY])
    node.set_provision_state('clean', clean_steps=[RESET])
    assert _settings(admin, node) == {}


@pytest.mark.parametrize('state', ['enroll', 'available', 'clean failed',
                                   'clean wait', 'active'])
def test_clean_from_other_states_changes_nothing(admin, state):
    node = _node(admin, state)
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        node.set_provision_state('clean', clean_steps=[APPLY])
    stored = _load(admin, node)
    assert stored.provision_state == state
    assert stored.driver_internal_info == AGENT
    assert _settings(admin, node) == {}


def test_clean_in_maintenance_changes_nothing(admin):
    node = _node(admin, maintenance=True)
    with pytest.raises(exception_baremetal.NodeInMaintenance):
        node.set_provision_state('clean', clean_steps=[APPLY])
    stored = _load(admin, node)
    assert stored.provision_state == 'manageable'
    assert stored.driver_internal_info == AGENT
    assert _settings(admin, node) == {}


def test_unknown_step_fails_the_cleaning_and_runs_nothing(admin):
    node = _node(admin)
    unknown = {'interface': 'deploy', 'step': 'erase_devices'}
    node.set_provision_state('clean', clean_steps=[APPLY, unknown])
    stored = _load(admin, node)
    assert (stored.provision_state, stored.target_provision_state) == (
        'clean failed', 'manageable')
    assert stored.last_error == (
        "Cannot clean node %s: node does not support this clean step: "
        "{'interface': 'deploy', 'step': 'erase_devices'}" % node.uuid)
    assert not stored.maintenance
    assert stored.driver_internal_info == {
        'kept': 1,
        'clean_steps': [dict(APPLY, abortable=False, priority=0), unknown],
        'cleaning_disable_ramdisk': False, 'declarative_cleaning': True}
    assert _settings(admin, node) == {}


def test_failing_step_keeps_earlier_effects_and_sets_maintenance(admin):
    node = _node(admin)
    node.set_provision_state('clean', clean_steps=[APPLY])
    bad = {'interface': 'bios', 'step': 'apply_configuration',
           'args': {'settings': 'A=on'}}
    node.set_provision_state('clean', clean_steps=[RESET, bad])
    stored = _load(admin, node)
    assert stored.provision_state == 'clean failed'
    assert stored.maintenance
    assert stored.last_error.startswith(
        "Node %s failed step {'interface': 'bios', 'step': "
        "'apply_configuration', 'args': {'settings': 'A=on'}, "
        "'abortable': False, 'priority': 0}: settings must be a list"
        % node.uuid)
    assert stored.maintenance_reason == stored.last_error
    assert _settings(admin, node) == {}


def test_manage_from_clean_failed_keeps_power_and_error(admin):
    node = _node(admin, 'clean failed', last_error='it broke')
    node.set_provision_state('manage')
    stored = _load(admin, node)
    assert (stored.provision_state, stored.power_state,
            stored.last_error) == ('manageable', 'power on', 'it broke')


def test_manage_from_available_still_powers_off(admin):
    node = _node(admin, 'available', last_error='old')
    node.set_provision_state('manage')
    stored = _load(admin, node)
    assert (stored.provision_state, stored.power_state,
            stored.last_error) == ('manageable', 'power off', None)


@pytest.mark.parametrize('target, expected', [
    ('manageable', 'manageable'), (None, 'available')])
def test_abort_of_clean_wait(admin, target, expected):
    info = dict(AGENT, clean_steps=[RESET], clean_step_index=0)
    node = _node(admin, 'clean wait', target_provision_state=target,
                 driver_internal_info=info)
    node.set_provision_state('abort')
    stored = _load(admin, node)
    assert (stored.provision_state, stored.target_provision_state) == (
        'clean failed', expected)
    assert stored.last_error == 'By request, the clean operation was aborted'
    assert stored.driver_internal_info == {'kept': 1, 'clean_steps': None}
    assert stored.power_state == 'power on'


def test_abort_of_rescue_wait_is_unchanged(admin):
    node = _node(admin, 'rescue wait',
                 instance_info={'rescue_password': 'pw', 'x': 1})
    node.set_provision_state('abort')
    stored = _load(admin, node)
    assert (stored.provision_state, stored.target_provision_state) == (
        'rescue failed', 'rescue')
    assert stored.instance_info == {'x': 1}


@db_api.context_manager.reader
def _setting_rows(context, node_id):
    table = models.BIOSSetting.__table__
    return context.session.execute(sa.select(sa.func.count()).where(
        table.c.node_id == node_id)).scalar()


def test_settings_are_deleted_with_their_node(admin):
    node = _node(admin)
    node.set_provision_state('clean', clean_steps=[APPLY])
    assert _setting_rows(admin, node.id) == 2
    node.destroy()
    assert _setting_rows(admin, node.id) == 0
