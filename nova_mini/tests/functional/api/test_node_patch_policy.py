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

"""The rule of each field a node patch changes, as Ironic 39 maps them,
walked field by field for the owner's member, the lessee's member, a
member of another project and an administrator; and an operator's
override of one of these rules.
"""

import json

import pytest
import webtest

from nova_mini.api.baremetal import node_patch
from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.objects.baremetal import node_interfaces
from nova_mini.policies.baremetal import nodes as policies
from nova_mini.tests.fixtures import builders

V1 = '/baremetal/v1'
OWNER = 'p-own'
LESSEE = 'p-lease'
PERSONAS = {'admin': 'admin:admin', 'owner member': 'alice:' + OWNER,
            'lessee member': 'bob:' + LESSEE,
            'other member': 'dave:p-other'}

# Ironic 39's rule for each patch path (its node controller's map), and
# who passes it by default: written out here, not read from the code
# under test.
_NODE_MEMBERS = ('admin', 'owner member', 'lessee member')
_OWNER_MEMBERS = ('admin', 'owner member')
_ADMINS = ('admin',)
# (field, operation, rule, who may)
CASES = [
    ('name', ('replace', 'node-1'), policies.UPDATE_NAME, _OWNER_MEMBERS),
    ('driver', ('replace', 'fake-hardware'), policies.UPDATE_DRIVER,
     _ADMINS),
    ('driver_info', ('add', 'b', '/a'), policies.UPDATE_DRIVER_INFO,
     _OWNER_MEMBERS),
    ('extra', ('add', 'b', '/a'), policies.UPDATE_EXTRA, _NODE_MEMBERS),
    ('properties', ('add', 2, '/cpus'), policies.UPDATE_PROPERTIES,
     _OWNER_MEMBERS),
    ('resource_class', ('replace', 'rc'), policies.UPDATE, _NODE_MEMBERS),
    ('instance_info', ('add', 'b', '/a'), policies.UPDATE_INSTANCE_INFO,
     _OWNER_MEMBERS),
    ('instance_uuid', ('remove',), policies.UPDATE_INSTANCE_UUID,
     _OWNER_MEMBERS),
    ('maintenance', ('replace', False), policies.UPDATE, _NODE_MEMBERS),
    ('owner', ('replace', OWNER), policies.UPDATE_OWNER, _ADMINS),
    ('lessee', ('replace', LESSEE), policies.UPDATE_LESSEE, _OWNER_MEMBERS),
    ('chassis_uuid', ('remove',), policies.UPDATE_CHASSIS, _ADMINS),
    ('automated_clean', ('replace', False), policies.DISABLE_CLEANING,
     _ADMINS),
    ('automated_clean', ('replace', True), policies.UPDATE, _NODE_MEMBERS),
    ('automated_clean', ('remove',), policies.UPDATE, _NODE_MEMBERS),
    ('conductor_group', ('replace', ''), policies.UPDATE_CONDUCTOR_GROUP,
     _ADMINS),
    ('description', ('replace', 'd'), policies.UPDATE, _NODE_MEMBERS),
    ('protected', ('replace', False), policies.UPDATE, _NODE_MEMBERS),
    ('protected_reason', ('remove',), policies.UPDATE, _NODE_MEMBERS),
    ('retired', ('replace', False), policies.UPDATE_RETIRED,
     _OWNER_MEMBERS),
    ('retired_reason', ('remove',), policies.UPDATE_RETIRED,
     _OWNER_MEMBERS),
] + [(name, ('replace', None), policies.UPDATE_DRIVER, _ADMINS)
     for name in node_interfaces.FIELDS]


def _operation(field, spec):
    op = spec[0]
    operation = {'op': op,
                 'path': '/' + field + (spec[2] if len(spec) > 2 else '')}
    if op != 'remove':
        operation['value'] = spec[1]
    return operation


def _patch(app, token, patch):
    return app.patch_json(
        V1 + '/nodes/node-1', patch, expect_errors=True,
        headers={'X-Auth-Token': token,
                 'X-OpenStack-Ironic-API-Version': '1.65'})


def _node():
    admin = nm_context.get_admin_context()
    node = builders.create_node(admin, 'node-1', owner=OWNER,
                                lessee=LESSEE)
    node.automated_clean = True
    node.save()
    return node


def _fault(response):
    return json.loads(response.json['error_message'])['faultstring']


def test_every_patchable_field_has_a_case():
    assert {case[0] for case in CASES} == set(node_patch.PATCHABLE)


@pytest.fixture
def app(api_fixture_factory):
    app = webtest.TestApp(api_fixture_factory().app)
    _node()
    return app


@pytest.mark.parametrize('persona', sorted(PERSONAS))
def test_field_rules_by_persona(app, persona):
    token = PERSONAS[persona]
    admin = nm_context.get_admin_context()
    for field, spec, rule, allowed in CASES:
        stored = objects.Node.get_by_name(admin, 'node-1')
        if spec == ('replace', None):
            # An interface: set to what it is.
            spec = ('replace', getattr(stored, field))
        response = _patch(app, token, [_operation(field, spec)])
        case = (persona, field, spec, response.text)
        if persona == 'other member':
            # Not the node's project: the node is not found.
            assert response.status_int == 404, case
        elif persona in allowed:
            assert response.status_int == 200, case
        else:
            assert response.status_int == 403, case
            assert _fault(response) == (
                "Policy doesn't allow %s to be performed." % rule), case
            after = objects.Node.get_by_name(admin, 'node-1')
            assert after.updated_at == stored.updated_at, case


def test_lessee_cannot_take_the_owners_settings(app):
    """The issue's examples: the lessee's member changes none of them."""
    admin = nm_context.get_admin_context()
    before = objects.Node.get_by_name(admin, 'node-1')
    for patch in ([{'op': 'replace', 'path': '/conductor_group',
                    'value': 'mine'}],
                  [{'op': 'replace', 'path': '/retired', 'value': True}],
                  [{'op': 'add', 'path': '/retired_reason', 'value': 'x'}],
                  [{'op': 'replace', 'path': '/automated_clean',
                    'value': False}],
                  [{'op': 'add', 'path': '/extra/a', 'value': 'b'},
                   {'op': 'replace', 'path': '/automated_clean',
                    'value': False}]):
        response = _patch(app, PERSONAS['lessee member'], patch)
        assert response.status_int == 403, (patch, response.text)
    node = objects.Node.get_by_name(admin, 'node-1')
    assert node.updated_at == before.updated_at
    assert (node.conductor_group, node.retired, node.retired_reason,
            node.automated_clean, node.extra) == ('', False, None, True, {})


def test_an_override_of_a_field_rule_takes_effect(api_fixture_factory):
    rules = {
        # The owner's members may move their node between conductor
        # groups; nobody may retire a node.
        policies.UPDATE_CONDUCTOR_GROUP:
            'role:member and project_id:%(node.owner)s',
        policies.UPDATE_RETIRED: '!',
        policies.DISABLE_CLEANING: 'role:member',
    }
    app = webtest.TestApp(api_fixture_factory(policy_rules=rules).app)
    _node()
    admin = nm_context.get_admin_context()
    group = [{'op': 'replace', 'path': '/conductor_group', 'value': 'g1'}]
    assert _patch(app, PERSONAS['owner member'], group).status_int == 200
    assert objects.Node.get_by_name(admin, 'node-1').conductor_group == 'g1'
    assert _patch(app, PERSONAS['lessee member'], group).status_int == 403
    retire = [{'op': 'replace', 'path': '/retired', 'value': True}]
    for persona in ('admin', 'owner member'):
        response = _patch(app, PERSONAS[persona], retire)
        assert response.status_int == 403, response.text
        assert policies.UPDATE_RETIRED in _fault(response)
    clean = [{'op': 'replace', 'path': '/automated_clean', 'value': False}]
    assert _patch(app, PERSONAS['lessee member'], clean).status_int == 200
    node = objects.Node.get_by_name(admin, 'node-1')
    assert (node.retired, node.automated_clean) == (False, False)
