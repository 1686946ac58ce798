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

"""Rescue in the database (objects.baremetal.node_rescue through
Node.set_provision_state): what is stored, what a refusal leaves, abort of
``rescue wait``, and freeing a rescued node held by a gone instance.
"""

from oslo_utils import secretutils
from oslo_utils import uuidutils
import pytest

from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

AGENT = {'agent_secret_token': 'tok', 'agent_url': 'http://10.0.0.9:9999',
         'agent_verify_ca': '/path', 'agent_secret_token_pregenerated': True,
         'kept': 1}


def _node(admin, state='active', **values):
    values.setdefault('power_state', 'power on')
    values.setdefault('instance_uuid', uuidutils.generate_uuid())
    values.setdefault('instance_info', {'image_source': 'img'})
    values.setdefault('driver_internal_info', dict(AGENT))
    return builders.create_node(admin, 'n', provision_state=state, **values)


def _load(admin, node):
    return objects.Node.get_by_uuid(admin, node.uuid)


def test_rescue_stores_the_password_and_its_hash(admin):
    node = _node(admin)
    node.set_provision_state('rescue', rescue_password='s3cret')
    stored = _load(admin, node)
    assert stored.provision_state == 'rescue'
    assert stored.target_provision_state is None
    assert stored.power_state == 'power on'
    info = stored.instance_info
    assert info['image_source'] == 'img'
    assert info['rescue_password'] == 's3cret'
    hashed = info['hashed_rescue_password']
    assert hashed.startswith('$5$')
    assert secretutils.crypt_password('s3cret', hashed) == hashed
    # The agent of another ramdisk is forgotten.
    assert stored.driver_internal_info == {'kept': 1}
    assert stored.instance_uuid == node.instance_uuid


def test_rescue_again_replaces_the_password(admin):
    node = _node(admin, 'rescue', instance_info={'rescue_password': 'old'})
    node.set_provision_state('rescue', rescue_password='new')
    assert _load(admin, node).instance_info['rescue_password'] == 'new'


@pytest.mark.parametrize('values, error', [
    ({'maintenance': True}, exception_baremetal.NodeInMaintenance),
    ({'rescue_interface': 'no-rescue'}, exception_baremetal.InstanceRescueFailure),
])
def test_refused_rescue_changes_nothing(admin, values, error):
    node = _node(admin, **values)
    with pytest.raises(error):
        node.set_provision_state('rescue', rescue_password='pw')
    stored = _load(admin, node)
    assert stored.provision_state == 'active'
    assert stored.instance_info == {'image_source': 'img'}
    assert stored.driver_internal_info == AGENT


def test_unrescue_keeps_the_password_and_forgets_the_agent(admin):
    node = _node(admin, 'rescue',
                 instance_info={'rescue_password': 'pw', 'x': 1})
    node.set_provision_state('unrescue')
    stored = _load(admin, node)
    assert stored.provision_state == 'active'
    assert stored.instance_info == {'rescue_password': 'pw', 'x': 1}
    assert stored.driver_internal_info == {'kept': 1}


def test_unrescue_with_no_rescue_fails(admin):
    node = _node(admin, 'rescue', rescue_interface='no-rescue')
    node.set_provision_state('unrescue')
    stored = _load(admin, node)
    assert stored.provision_state == 'unrescue failed'
    assert stored.target_provision_state == 'active'
    assert stored.last_error.startswith('Failed to unrescue: Driver')
    assert 'agent_url' not in stored.driver_internal_info
    assert stored.driver_internal_info['agent_secret_token'] == 'tok'
    assert node.provision_state == 'unrescue failed'


def test_abort_of_rescue_wait(admin):
    node = _node(admin, 'rescue wait',
                 instance_info={'rescue_password': 'pw',
                                'hashed_rescue_password': 'h', 'x': 1})
    node.set_provision_state('abort')
    stored = _load(admin, node)
    assert stored.provision_state == 'rescue failed'
    assert stored.target_provision_state == 'rescue'
    assert stored.instance_info == {'x': 1}
    assert 'agent_url' not in stored.driver_internal_info
    assert stored.instance_uuid == node.instance_uuid


@pytest.mark.parametrize('state', ['rescue', 'rescue wait', 'rescue failed',
                                   'unrescue failed'])
def test_tear_down_from_rescue_states(admin, state):
    node = _node(admin, state)
    node.set_provision_state('deleted')
    stored = _load(admin, node)
    assert (stored.provision_state, stored.power_state) == (
        'available', 'power off')
    assert stored.instance_uuid is None
    assert stored.instance_info == {}
    assert stored.driver_internal_info == {'kept': 1}


@pytest.mark.parametrize('state', ['rescuing', 'unrescuing'])
def test_no_tear_down_from_transitional_states(admin, state):
    node = _node(admin, state)
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        node.set_provision_state('deleted')


def test_release_frees_a_rescued_node(admin):
    node = _node(admin, 'rescue')
    assert objects.Node.release(admin, node.instance_uuid) == node.uuid
    stored = _load(admin, node)
    assert stored.provision_state == 'available'
    assert stored.instance_uuid is None
