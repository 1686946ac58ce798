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

"""Booting with a flavor whose request groups no bare-metal node can meet
is a 400 that says what to change, before anything is written: a trait
one group requires and another forbids, two numbered groups without
``group_policy``, ``group_policy=isolate`` with two numbered groups.
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders

V21 = '/compute/v2.1'
DEMO = {'X-Auth-Token': 'demo:demo'}
ADMIN = {'X-Auth-Token': 'admin:admin'}

FLAVORS = {
    'conflict': ({'trait1:CUSTOM_A': 'required',
                  'trait2:CUSTOM_A': 'forbidden', 'group_policy': 'none'},
                 ['trait CUSTOM_A is required by group 1 and forbidden by '
                  'group 2', 'remove one of the two']),
    'no-policy': ({'resources1:CUSTOM_BM': '1',
                   'trait2:CUSTOM_A': 'required'},
                  ['2 numbered request groups (1, 2)',
                   'set group_policy=none']),
    'isolate': ({'resources1:CUSTOM_BM': '1', 'resources2:VCPU': '1',
                 'group_policy': 'isolate'},
                ['group_policy=isolate', 'single provider',
                 'use group_policy=none']),
}


@pytest.fixture
def app(api_fixture_factory):
    fixture = api_fixture_factory()
    admin = nm_context.get_admin_context()
    for name, (extra_specs, _words) in FLAVORS.items():
        builders.create_flavor(admin, name, extra_specs=extra_specs)
    return webtest.TestApp(fixture.app)


@pytest.mark.parametrize('flavor', sorted(FLAVORS))
def test_groups_no_node_can_meet_are_a_bad_request(app, flavor):
    response = app.post_json(V21 + '/servers', {'server': {
        'name': 's', 'flavorRef': flavor, 'imageRef': 'c0ffee00-0000-4000-8000-000000000001'}},
        headers=DEMO, expect_errors=True)
    assert response.status_int == 400
    message = response.json['badRequest']['message']
    for words in FLAVORS[flavor][1]:
        assert words in message
    # Nothing was written.
    admin = nm_context.get_admin_context()
    assert list(objects.InstanceList.get_all(admin)) == []
    servers = app.get(V21 + '/servers?all_tenants=1', headers=ADMIN).json
    assert servers['servers'] == []
