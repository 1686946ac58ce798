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

"""``baremetal:node:set_provision_state:clean_steps``: checked, besides
``set_provision_state``, when clean steps are given, as Ironic checks it
(403 naming it, the node unchanged); not checked when none are; its
default lets the owner's members and administrators clean.
"""

import json

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.baremetal import bios_setting
from nova_mini.policies.baremetal import nodes as policies
from nova_mini.tests.fixtures import api as api_fixture
from nova_mini.tests.fixtures import builders

V1 = '/baremetal/v1'
OWNER = 'p-owner'
LESSEE = 'p-lessee'
STEPS = [{'interface': 'bios', 'step': 'apply_configuration',
          'args': {'settings': [{'name': 'A', 'value': 'on'}]}}]


def _app(rules=None):
    fixture = api_fixture.APIFixture(policy_rules=rules)
    fixture.setUp()
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, 'n', provision_state='manageable',
                                power_state='power off', owner=OWNER,
                                lessee=LESSEE)
    return fixture, webtest.TestApp(fixture.app), node


def _clean(app, body, token='admin:admin', roles=None):
    headers = {'X-Auth-Token': token,
               'X-OpenStack-Ironic-API-Version': '1.65'}
    if roles:
        headers['X-Roles'] = roles
    return app.put_json(V1 + '/nodes/n/states/provision', body,
                        headers=headers, expect_errors=True)


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def _state(node):
    stored = objects.Node.get_by_uuid(nm_context.get_admin_context(),
                                      node.uuid)
    return stored.provision_state, bios_setting.get_all(
        nm_context.get_admin_context(), node.id)


def test_clean_steps_rule_refuses():
    fixture, app, node = _app({policies.SET_PROVISION_STATE_CLEAN_STEPS:
                               '!'})
    try:
        response = _clean(app, {'target': 'clean', 'clean_steps': STEPS})
        assert response.status_int == 403, response.body
        assert _fault(response) == (
            "Policy doesn't allow %s to be performed."
            % policies.SET_PROVISION_STATE_CLEAN_STEPS)
        assert _state(node) == ('manageable', [])
        # Without steps the rule is not asked: the request's own 400.
        response = _clean(app, {'target': 'clean'})
        assert response.status_int == 400, response.body
        assert 'is required' in _fault(response)
        # Nor for other targets.
        response = _clean(app, {'target': 'provide'})
        assert response.status_int == 202, response.body
    finally:
        fixture.cleanUp()


def test_set_provision_state_is_checked_first():
    fixture, app, node = _app({policies.SET_PROVISION_STATE: '!'})
    try:
        response = _clean(app, {'target': 'clean', 'clean_steps': STEPS})
        assert response.status_int == 403, response.body
        assert policies.SET_PROVISION_STATE + ' ' in _fault(response)
        assert _state(node) == ('manageable', [])
    finally:
        fixture.cleanUp()


@pytest.mark.parametrize('token, roles, status', [
    ('alice:' + OWNER, None, 202),
    ('carol:' + OWNER, 'reader', 403),
    ('bob:' + LESSEE, None, 403),
    ('dave:p-other', None, 404),
])
def test_default_rules_by_persona(token, roles, status):
    fixture, app, node = _app()
    try:
        response = _clean(app, {'target': 'clean', 'clean_steps': STEPS},
                          token, roles)
        assert response.status_int == status, response.body
        settings = _state(node)[1]
        assert [row.name for row in settings] == (
            ['A'] if status == 202 else [])
    finally:
        fixture.cleanUp()
