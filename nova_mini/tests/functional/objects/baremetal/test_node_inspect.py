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

"""Inspection in the database (objects.baremetal.node_inspect through
Node.set_provision_state): what is stored, and what a refusal leaves.
"""

import pytest

from nova_mini import exception_baremetal
from nova_mini import objects
from nova_mini.tests.fixtures import builders

pytestmark = pytest.mark.usefixtures('db')

AGENT = {'agent_secret_token': 'tok', 'agent_url': 'http://10.0.0.9:9999',
         'agent_verify_ca': '/path', 'agent_secret_token_pregenerated': True,
         'kept': 1}


def _node(admin, state='manageable', **values):
    values.setdefault('power_state', 'power on')
    values.setdefault('driver_internal_info', dict(AGENT))
    values.setdefault('last_error', 'an old failure')
    return builders.create_node(admin, 'n', provision_state=state, **values)


def _load(admin, node):
    return objects.Node.get_by_uuid(admin, node.uuid)


@pytest.mark.parametrize('state', ['manageable', 'inspect failed'])
@pytest.mark.parametrize('maintenance', [False, True])
def test_inspect_ends_manageable_and_forgets_the_agent(admin, state,
                                                       maintenance):
    node = _node(admin, state, maintenance=maintenance)
    node.set_provision_state('inspect')
    stored = _load(admin, node)
    assert stored.provision_state == 'manageable'
    assert stored.target_provision_state is None
    assert stored.last_error is None
    assert stored.provision_updated_at is not None
    # Ironic's fake interface leaves the power as it was.
    assert stored.power_state == 'power on'
    assert stored.maintenance is maintenance
    assert stored.driver_internal_info == {'kept': 1}
    assert node.provision_state == 'manageable'


@pytest.mark.parametrize('state', ['enroll', 'available', 'active',
                                   'inspecting', 'inspect wait'])
def test_inspect_from_other_states_changes_nothing(admin, state):
    node = _node(admin, state)
    with pytest.raises(exception_baremetal.InvalidStateRequested):
        node.set_provision_state('inspect')
    stored = _load(admin, node)
    assert stored.provision_state == state
    assert stored.driver_internal_info == AGENT
    assert stored.last_error == 'an old failure'


def test_no_inspect_is_refused_and_changes_nothing(admin):
    node = _node(admin, inspect_interface='no-inspect')
    with pytest.raises(exception_baremetal.UnsupportedDriverExtension) as caught:
        node.set_provision_state('inspect')
    assert 'does not support inspect' in str(caught.value)
    stored = _load(admin, node)
    assert stored.provision_state == 'manageable'
    assert stored.provision_updated_at is None
    assert stored.driver_internal_info == AGENT
    assert stored.last_error == 'an old failure'
