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

"""Every bare-metal PATCH applies to the stored resource (json_patch.
apply_to): what the patch does not name stays as stored, nested keys
next to a patched one included, and a removed field takes its default.
Each test reads the stored row, not the answer. (The resources whose
bodies mask secrets have their own tests: test_node_secrets,
test_patch_masked_echo.)
"""

import pytest
import webtest

from nova_mini import context as nm_context
from nova_mini import objects
from nova_mini.tests.fixtures import builders

V1 = '/baremetal/v1'
VERSION = '1.60'
EXTRA = {'a': {'b': [1, 2]}, 'token': '******', 'keep': 'k'}
UUID = '5d1b7c9e-3a2f-4e8b-9c6d-1f0a2b3c4d5e'


@pytest.fixture
def app(api_fixture_factory):
    return webtest.TestApp(api_fixture_factory().app)


@pytest.fixture
def admin(app):
    return nm_context.get_admin_context()


def _port(admin, node):
    objects.Port(admin, uuid=UUID, node_id=node.id,
                 address='52:54:00:00:00:01', extra=dict(EXTRA),
                 local_link_connection={'switch_id': '00:11:22:33:44:55',
                                        'port_id': 'Eth1'}).create()
    return 'ports', lambda: objects.Port.get_by_uuid(admin, UUID)


def _portgroup(admin, node):
    objects.Portgroup(admin, uuid=UUID, node_id=node.id, name='g',
                      extra=dict(EXTRA), properties={'p': 1}).create()
    return 'portgroups', lambda: objects.Portgroup.get(admin, UUID)


def _chassis(admin, node):
    objects.Chassis(admin, uuid=UUID, description='d',
                    extra=dict(EXTRA)).create()
    return 'chassis', lambda: objects.Chassis.get_by_uuid(admin, UUID)


def _allocation(admin, node):
    objects.Allocation(admin, uuid=UUID, name='al', extra=dict(EXTRA),
                       resource_class='bm').create()
    return 'allocations', lambda: objects.Allocation.get_by_uuid(admin,
                                                                 UUID)


def _template(admin, node):
    objects.DeployTemplate(admin, uuid=UUID, name='CUSTOM_T',
                           extra=dict(EXTRA),
                           steps=[{'interface': 'bios', 'step': 's',
                                   'args': {'password': 'pw'},
                                   'priority': 1}]).create()
    return 'deploy_templates', lambda: objects.DeployTemplate.get_by_uuid(
        admin, UUID)


def _connector(admin, node):
    objects.VolumeConnector(admin, uuid=UUID, node_id=node.id, type='iqn',
                            connector_id='iqn.x', extra=dict(EXTRA)).create()
    return 'volume/connectors', lambda: objects.VolumeConnector.get_by_uuid(
        admin, UUID)


def _target(admin, node):
    objects.VolumeTarget(admin, uuid=UUID, node_id=node.id,
                         volume_type='iscsi', volume_id='v', boot_index=0,
                         properties={'auth_password': 'chap'},
                         extra=dict(EXTRA)).create()
    return 'volume/targets', lambda: objects.VolumeTarget.get_by_uuid(
        admin, UUID)


def _node(admin, node):
    node.extra = dict(EXTRA)
    node.driver_info = {'ipmi_password': 'pw', 'ipmi_address': 'a'}
    node.save()
    return 'nodes', lambda: objects.Node.get_by_uuid(admin, node.uuid)


RESOURCES = {'port': _port, 'portgroup': _portgroup, 'chassis': _chassis,
             'allocation': _allocation, 'deploy_template': _template,
             'volume_connector': _connector, 'volume_target': _target,
             'node': _node}


def _patch(app, path, patch, status=200):
    response = app.patch_json(
        V1 + path, patch, expect_errors=True,
        headers={'X-Auth-Token': 'admin:admin',
                 'X-OpenStack-Ironic-API-Version': VERSION})
    assert response.status_int == status, response.text
    return response


def _setup(admin, name):
    node = builders.create_node(admin, 'n', power_state='power off')
    collection, load = RESOURCES[name](admin, node)
    return '/%s/%s' % (collection, load().uuid), load


def _stored(item):
    return {name: getattr(item, name) for name in item.fields
            if item.obj_attr_is_set(name) and name not in (
                'updated_at', 'extra', 'traits')}


@pytest.mark.parametrize('name', sorted(RESOURCES))
def test_patch_changes_only_what_it_names(app, admin, name):
    path, load = _setup(admin, name)
    before = load()
    _patch(app, path, [{'op': 'add', 'path': '/extra/a/c', 'value': 3},
                       {'op': 'replace', 'path': '/extra/a/b/0',
                        'value': 0}])
    after = load()
    assert after.extra == {'a': {'b': [0, 2], 'c': 3}, 'token': '******',
                           'keep': 'k'}
    # The secrets and every other field as stored before.
    assert _stored(after) == _stored(before)
    assert after.updated_at is not None


@pytest.mark.parametrize('name', sorted(RESOURCES))
def test_removed_extra_is_empty_and_refusals_store_nothing(app, admin,
                                                           name):
    path, load = _setup(admin, name)
    before = load()
    _patch(app, path, [{'op': 'remove', 'path': '/extra/a'},
                       {'op': 'remove', 'path': '/extra/nothing'}],
           status=400)
    assert load().extra == EXTRA
    _patch(app, path, [{'op': 'remove', 'path': '/extra'}])
    after = load()
    assert after.extra == {}
    assert _stored(after) == _stored(before)
