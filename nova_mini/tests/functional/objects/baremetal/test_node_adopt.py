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

"""Adoption in the database (the adopt target of Node.set_provision_state):
what is stored, what a refusal leaves, and that an adopted node is never
given to a server.
"""

from oslo_utils import uuidutils
import pytest

from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

INFO = {'image_source': 'http://images.example.com/os.qcow2',
        'root_gb': '10'}


def _node(admin, state='manageable', **values):
    values.setdefault('power_state', 'power on')
    values.setdefault('instance_info', dict(INFO))
    values.setdefault('last_error', 'an old failure')
    return builders.create_node(admin, 'n', provision_state=state, **values)


def _load(admin, node):
    return objects.Node.get_by_uuid(admin, node.uuid)


@pytest.mark.parametrize('state', ['manageable', 'adopt failed'])
@pytest.mark.parametrize('maintenance', [False, True])
@pytest.mark.parametrize('power', ['power on', 'power off'])
def test_adopt_ends_active_as_the_node_was(admin, state, maintenance,
                                           power):
    node = _node(admin, state, maintenance=maintenance, power_state=power)
    node.set_provision_state('adopt')
    stored = _load(admin, node)
    assert stored.provision_state == 'active'
    assert stored.target_provision_state is None
    assert stored.last_error is None
    assert stored.provision_updated_at is not None
    # Ironic's fake deploy interface takes the node over as it is.
    assert stored.power_state == power
    assert stored.maintenance is maintenance
    assert stored.instance_info == INFO
    assert stored.instance_uuid is None
    assert node.provision_state == 'active'


@pytest.mark.parametrize('state', ['enroll', 'available', 'active',
                                   'deploy failed', 'adopting'])
def test_adopt_from_other_states_changes_nothing(admin, state):
    node = _node(admin, state)
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        node.set_provision_state('adopt')
    stored = _load(admin, node)
    assert stored.provision_state == state
    assert stored.provision_updated_at is None
    assert stored.instance_info == INFO
    assert stored.last_error == 'an old failure'


def test_adopted_node_is_not_claimed_and_undeploys(admin):
    node = _node(admin)
    node.set_provision_state('adopt')
    instance = uuidutils.generate_uuid()
    assert not objects.Node.claim(admin, node.uuid, instance)
    assert _load(admin, node).instance_uuid is None
    node.set_provision_state('deleted')
    stored = _load(admin, node)
    assert stored.provision_state == 'available'
    assert stored.power_state == 'power off'
    assert stored.instance_info == {}
    assert stored.instance_uuid is None
